import DeviceLogin

/// JSON text on its way to stdout: the same JSON value, with nothing in it that a terminal would act on or that
/// would hide from a reader.
///
/// `JSONEncoder` escapes only what JSON demands (`"`, `\` and U+0000–U+001F) and passes the rest through raw. A
/// server's string may hold much more that a person piping `--json` to a terminal must not receive raw: C1 controls
/// that start escape sequences, bidi overrides that reorder the line, the invisible tag characters, line separators
/// that JavaScript and some terminals break lines at, and characters that draw nothing. Each of them becomes a
/// `\uXXXX` escape (a surrogate pair above U+FFFF), which every JSON reader turns back into the same string.
enum JSONText {
    /// `json` with every scalar of ``needsEscape(_:)`` written as a `\uXXXX` escape.
    ///
    /// Meant for the output of `JSONEncoder` without pretty printing: such text has these scalars only inside
    /// strings, where an escape means the same.
    static func escapingControls(_ json: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in json.unicodeScalars {
            if needsEscape(scalar) {
                appendEscape(of: scalar, to: &out)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// `object` as `JSONEncoder` writes it with sorted keys and without escaped slashes, then
    /// ``escapingControls(_:)``, when it holds only strings and objects of strings under ASCII keys, and no control
    /// character but `\n`, `\r`, `\t`, `\b` and `\f`; nil for anything else (the caller encodes it with
    /// `JSONEncoder`).
    static func compactStrings(_ object: JSONObject) -> String? {
        var out = "{"
        for key in object.keys.sorted() {
            guard key.utf8.allSatisfy({ $0 < 0x80 }), let value = object[key],
                let name = encoderString(key)
            else { return nil }
            if out.utf8.count > 1 { out += "," }
            out += name + ":"
            switch value {
            case .string(let text):
                guard let literal = encoderString(text) else { return nil }
                out += literal
            case .object(let inner):
                guard let text = compactStrings(inner) else { return nil }
                out += text
            default:
                return nil
            }
        }
        return out + "}"
    }

    /// `text` as `JSONEncoder` writes a string without escaped slashes, after ``escapingControls(_:)``; nil when it
    /// holds a control character that has no short escape.
    private static func encoderString(_ text: String) -> String? {
        var out = String.UnicodeScalarView()
        out.append("\"")
        for scalar in text.unicodeScalars {
            if let escape = shortEscape(of: scalar, withBackspaceAndFormFeed: true) {
                out.append(contentsOf: escape.unicodeScalars)
            } else if scalar.value < 0x20 {
                return nil
            } else if needsEscape(scalar) {
                appendEscape(of: scalar, to: &out)
            } else {
                out.append(scalar)
            }
        }
        out.append("\"")
        return String(out)
    }

    /// The two-character escape of `scalar` in a JSON string: `\"`, `\\`, `\n`, `\r`, `\t`, and `\b` and `\f` when
    /// asked for; nil for any other scalar.
    private static func shortEscape(of scalar: Unicode.Scalar, withBackspaceAndFormFeed: Bool) -> String? {
        switch scalar {
        case "\"": #"\""#
        case "\\": #"\\"#
        case "\n": #"\n"#
        case "\r": #"\r"#
        case "\t": #"\t"#
        case "\u{8}" where withBackspaceAndFormFeed: #"\b"#
        case "\u{C}" where withBackspaceAndFormFeed: #"\f"#
        default: nil
        }
    }

    /// `text` as a JSON string literal in plain ASCII: quotes and backslashes escaped, `\n`, `\r` and `\t` by
    /// their short escapes, every other control and every non-ASCII scalar as `\uXXXX`. Two different strings never
    /// give the same literal, so it shows a server's name exactly, whatever it holds.
    static func asciiLiteral(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        out.append("\"")
        for scalar in text.unicodeScalars {
            if let escape = shortEscape(of: scalar, withBackspaceAndFormFeed: false) {
                out.append(contentsOf: escape.unicodeScalars)
            } else if (" "..."~").contains(scalar) {
                out.append(scalar)
            } else {
                appendEscape(of: scalar, to: &out)
            }
        }
        out.append("\"")
        return String(out)
    }

    /// Whether `scalar` is written as an escape: every C0 control, DEL and C1 control; every format character
    /// (category Cf: bidi controls, zero-width characters, the soft hyphen, the byte order mark, the interlinear
    /// annotation and tag characters, …); the line and paragraph separators; the whole tag block U+E0000–U+E007F;
    /// and the other characters the terminal sanitiser drops or replaces because they draw nothing or pass for a
    /// space: default-ignorable code points (the Hangul fillers, the combining grapheme joiner, variation
    /// selectors), the blank Braille pattern U+2800, private-use and unassigned code points, and every space but
    /// U+0020.
    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x2800, 0xE0000...0xE007F: return true
        case 0x20...0x7E: return false
        default: break
        }
        let properties = scalar.properties
        switch properties.generalCategory {
        case .control, .format, .privateUse, .unassigned, .surrogate, .lineSeparator, .paragraphSeparator,
            .spaceSeparator:
            return true
        default:
            return properties.isDefaultIgnorableCodePoint
        }
    }

    /// Appends `\uXXXX` for `scalar`, as a UTF-16 surrogate pair above U+FFFF (RFC 8259 §7).
    private static func appendEscape(of scalar: Unicode.Scalar, to out: inout String.UnicodeScalarView) {
        for unit in String(scalar).utf16 {
            let hex = String(unit, radix: 16, uppercase: true)
            out.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).unicodeScalars)
        }
    }
}
