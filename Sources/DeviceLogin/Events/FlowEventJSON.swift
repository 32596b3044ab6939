/// One JSON object written in the order its fields were added, on one line: what ``FlowEventEncoder`` builds.
///
/// Its strings have been through ``Sanitizer`` already where they come from a server; this writer escapes what JSON
/// demands (`"`, `\`) and, as a second line of defence, every scalar a terminal or a UI could act on or that draws
/// nothing (controls, format characters, line separators) as `\uXXXX`, so a line never holds a raw control character.
struct FlowEventJSON {
    /// A field's value.
    enum Value {
        case string(String)
        case integer(Int)
        case strings([String])
        case null
    }

    private var text = "{"

    /// Adds `"key": value`. Keys are the schema's own ASCII names.
    mutating func add(_ key: String, _ value: Value) {
        if text.utf8.count > 1 { text += "," }
        text += Self.literal(key) + ":"
        switch value {
        case .string(let string): text += Self.literal(string)
        case .integer(let number): text += String(number)
        case .strings(let strings): text += "[" + strings.map(Self.literal).joined(separator: ",") + "]"
        case .null: text += "null"
        }
    }

    /// Adds `"key": value` when there is a value, `"key": null` otherwise.
    mutating func add(_ key: String, orNull value: String?) {
        add(key, value.map(Value.string) ?? .null)
    }

    /// The object, closed: one line without its line feed.
    var line: String { text + "}" }

    /// `string` as a JSON string literal.
    static func literal(_ string: String) -> String {
        var out = String.UnicodeScalarView()
        out.append("\"")
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out.append(contentsOf: #"\""#.unicodeScalars)
            case "\\": out.append(contentsOf: #"\\"#.unicodeScalars)
            default:
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028
                    || scalar.value == 0x2029 || scalar.drawsNothing
                {
                    for unit in String(scalar).utf16 {
                        let hex = String(unit, radix: 16, uppercase: true)
                        let padded = String(repeating: "0", count: 4 - hex.count) + hex
                        out.append(contentsOf: ("\\u" + padded).unicodeScalars)
                    }
                } else {
                    out.append(scalar)
                }
            }
        }
        out.append("\"")
        return String(out)
    }
}
