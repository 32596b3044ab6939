import DeviceLogin

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes JSON the way the mock server sends it: compact, keys sorted, `/` left unescaped.
///
/// Stable bytes make exact wire assertions possible, and writing by hand keeps per-request cost low for
/// benchmarks with thousands of flows.
enum JSONText {
    /// The object as UTF-8 JSON.
    static func data(_ object: JSONObject) -> Data {
        var text = ""
        write(.object(object), to: &text)
        return Data(text.utf8)
    }

    /// Appends `value` to `text`.
    static func write(_ value: JSONValue, to text: inout String) {
        switch value {
        case .string(let string):
            writeString(string, to: &text)
        case .number(let number):
            if number.isFinite, number == number.rounded(), abs(number) < 1e15 {
                text += String(Int64(number))
            } else if number.isFinite {
                text += String(number)
            } else {
                text += "null"
            }
        case .bool(let flag):
            text += flag ? "true" : "false"
        case .null:
            text += "null"
        case .array(let values):
            text += "["
            for (index, element) in values.enumerated() {
                if index > 0 { text += "," }
                write(element, to: &text)
            }
            text += "]"
        case .object(let members):
            text += "{"
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { text += "," }
                writeString(key, to: &text)
                text += ":"
                write(members[key] ?? .null, to: &text)
            }
            text += "}"
        }
    }

    /// Appends a JSON string literal (RFC 8259 §7).
    private static func writeString(_ string: String, to text: inout String) {
        text += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }
}
