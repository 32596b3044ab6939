/// Words for the kiosk screen, each plain, bold or an alert, wrapped to a width so that no style crosses a line end
/// (the QR code drawn beside a line must not inherit one).
struct KioskText: Sendable, Hashable {
    /// How a word is drawn: the sign-in text's styles.
    typealias Style = SignInText.Style

    /// One word: text without spaces, and its style.
    struct Word: Sendable, Hashable {
        var text: String
        var style: Style
    }

    /// The words, in order.
    private(set) var words: [Word]

    /// The words of `text`, split at spaces, all in `style`.
    init(_ text: String, style: Style = .plain) {
        words = text.split(separator: " ").map { Word(text: String($0), style: style) }
    }

    /// The words of a sign-in paragraph, split at spaces. Where a span starts inside a word (the full stop after a
    /// bold host), the word goes on in the style it started in, so that no style ends inside a word.
    init(_ paragraph: SignInText.Paragraph) {
        words = []
        // Whether the last word may go on into the next span: it ended the previous span, at no space.
        var open = false
        for span in paragraph.spans {
            for (index, piece) in span.text.split(separator: " ", omittingEmptySubsequences: false).enumerated()
            where !piece.isEmpty {
                if index == 0, open, let last = words.indices.last {
                    words[last].text += piece
                } else {
                    words.append(Word(text: String(piece), style: span.style))
                }
            }
            if !span.text.isEmpty { open = span.text.last != " " }
        }
    }

    /// These words followed by `other`'s.
    static func + (text: KioskText, other: KioskText) -> KioskText {
        var joined = text
        joined.words += other.words
        return joined
    }

    /// The text broken into lines of at most `width` columns at spaces; a word longer than a line is cut.
    ///
    /// - Parameters:
    ///   - width: The most columns a line takes (at least 1).
    ///   - capabilities: Whether escapes and colours may be written.
    /// - Returns: The lines, each word in its style.
    func lines(width: Int, capabilities: TerminalCapabilities) -> [String] {
        let width = max(1, width)
        var lines: [String] = []
        var line = ""
        var used = 0
        for word in words {
            for piece in Self.pieces(of: word.text, width: width) {
                let count = piece.count
                if used > 0, used + 1 + count > width {
                    lines.append(line)
                    (line, used) = ("", 0)
                }
                if used > 0 {
                    line += " "
                    used += 1
                }
                line += word.style.apply(to: piece, capabilities: capabilities)
                used += count
            }
        }
        if used > 0 || lines.isEmpty { lines.append(line) }
        return lines
    }

    /// `text` cut into pieces of at most `width` characters.
    private static func pieces(of text: String, width: Int) -> [String] {
        guard text.count > width else { return [text] }
        var pieces: [String] = []
        var rest = Substring(text)
        while !rest.isEmpty {
            pieces.append(String(rest.prefix(width)))
            rest = rest.dropFirst(width)
        }
        return pieces
    }

}
