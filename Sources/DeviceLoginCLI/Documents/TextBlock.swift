/// A block of a command's discussion (``CommandSpec/discussion``): a paragraph that help and the man page flow to
/// their own width, or example lines kept as they are.
enum TextBlock: Sendable, Equatable {
    /// Words to flow: the paragraph's lines joined with spaces.
    case paragraph(String)
    /// Lines that start with a space in the discussion (a command, a config file), without their common
    /// indentation, kept as they are.
    case verbatim([String])
    /// An empty line between two blocks.
    case space

    /// The blocks of `text`: an empty line ends a paragraph (and is kept as ``space``); a line that starts with a
    /// space is an example, kept as it is; the other lines are joined into paragraphs.
    static func blocks(_ text: String) -> [TextBlock] {
        var blocks: [TextBlock] = []
        var words: [String] = []
        var verbatim: [String] = []
        func flush() {
            if !words.isEmpty { blocks.append(.paragraph(words.joined(separator: " "))) }
            if !verbatim.isEmpty {
                let indent = verbatim.map { $0.prefix { $0 == " " }.count }.min() ?? 0
                blocks.append(.verbatim(verbatim.map { String($0.dropFirst(indent)) }))
            }
            words = []
            verbatim = []
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.drop { $0 == " " }
            if trimmed.isEmpty {
                flush()
                if let last = blocks.last, last != .space { blocks.append(.space) }
            } else if line.hasPrefix(" ") {
                if !words.isEmpty { flush() }
                verbatim.append(String(line))
            } else {
                if !verbatim.isEmpty { flush() }
                words.append(String(line))
            }
        }
        flush()
        if blocks.last == .space { blocks.removeLast() }
        return blocks
    }
}
