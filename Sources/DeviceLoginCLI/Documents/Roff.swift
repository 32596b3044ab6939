/// Text made safe for roff (man(7) pages): what `groff` and `mandoc` read as a request or an escape is escaped.
enum Roff {
    /// `text` as the words of a roff line: `\` as `\e`, `-` as `\-` (a minus, so that options copy and paste),
    /// quotes, accents and tildes as their named characters, every other character beyond ASCII as `\[uXXXX]`,
    /// control characters dropped, and `\&` before a leading `.` or `'` (which would start a request).
    static func escape(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": escaped += "\\e"
            case "-": escaped += "\\-"
            case "'": escaped += "\\(aq"
            case "`": escaped += "\\(ga"
            case "^": escaped += "\\(ha"
            case "~": escaped += "\\(ti"
            case "\"": escaped += "\\(dq"
            case " "..."\u{7E}": escaped.unicodeScalars.append(scalar)
            case "\t": escaped += " "
            default:
                guard scalar.value > 0x9F else { continue }
                let hex = String(scalar.value, radix: 16, uppercase: true)
                escaped += "\\[u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + "]"
            }
        }
        if escaped.hasPrefix(".") { escaped = "\\&" + escaped }
        return escaped
    }

    /// `text` as one argument of a macro: escaped (``escape(_:)``) and in double quotes.
    static func argument(_ text: String) -> String {
        "\"" + escape(text) + "\""
    }
}
