/// "Did you mean …?" for a mistyped option or command: the known word closest to the one given, when it is close.
enum Suggestion {
    /// The longest word compared: the distance costs the product of the two lengths, and a longer word is no
    /// typo of an option.
    static let maximumLength = 64

    /// The word of `candidates` nearest to `word` by edit distance (``distance(_:_:)``), when it is near enough
    /// to be a typo: at most 1 edit for names of up to 4 characters (leading dashes not counted), 2 up to 8, and
    /// 3 beyond. The first of equally near candidates wins; nil when none is near, or `word` is one of them.
    static func closest(to word: String, among candidates: [String]) -> String? {
        let typed = Array(word)
        guard !typed.isEmpty, typed.count <= maximumLength else { return nil }
        let length = typed.drop { $0 == "-" }.count
        let allowed = length <= 4 ? 1 : length <= 8 ? 2 : 3
        var best: (word: String, distance: Int)?
        for candidate in candidates where candidate.count <= maximumLength {
            let distance = distance(typed, Array(candidate))
            if distance == 0 { return nil }
            if distance <= allowed, distance < best?.distance ?? .max { best = (candidate, distance) }
        }
        return best?.word
    }

    /// The edit distance between two words: insertions, deletions, substitutions, and swaps of two neighbouring
    /// characters (`--isseur` is one edit from `--issuer`), each costing 1 (optimal string alignment).
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var beforePrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], beforePrevious[j - 2] + 1)
                }
            }
            (beforePrevious, previous, current) = (previous, current, beforePrevious)
        }
        return previous[b.count]
    }

    /// `message` with `; did you mean 'X'?` added when a candidate is near `word`.
    static func message(_ message: String, for word: String, among candidates: [String]) -> String {
        guard let match = closest(to: word, among: candidates) else { return message }
        return message + "; did you mean '\(match)'?"
    }
}
