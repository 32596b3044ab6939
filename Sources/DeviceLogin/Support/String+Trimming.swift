extension StringProtocol {
    /// The text without leading and trailing spaces, tabs and line breaks.
    ///
    /// FoundationEssentials has no `trimmingCharacters(in:)`; this is all the core needs of it.
    package func trimmed() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
