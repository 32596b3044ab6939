#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `application/x-www-form-urlencoded` encoding and decoding (WHATWG URL §5, as RFC 6749 Appendix B uses it).
public enum FormEncoding {
    /// The bytes left unescaped: ALPHA / DIGIT / "*" / "-" / "." / "_" (space becomes "+").
    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "*"), UInt8(ascii: "-"),
            UInt8(ascii: "."), UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }

    /// Escapes one name or value.
    public static func escape(_ text: String) -> String {
        // Most names and values (grant types aside) need no escape: then the text is its own encoding.
        if text.utf8.allSatisfy(isUnreserved) { return text }
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count + 16)
        appendEscaped(text, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the escaped bytes of `text` to `out`. Byte by byte: escaping a form goes through no `Character`
    /// (each poll's request is encoded once per flow, and the testing kit decodes every request it gets).
    private static func appendEscaped(_ text: String, to out: inout [UInt8]) {
        let hex: StaticString = "0123456789ABCDEF"
        for byte in text.utf8 {
            if isUnreserved(byte) {
                out.append(byte)
            } else if byte == UInt8(ascii: " ") {
                out.append(UInt8(ascii: "+"))
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hex.utf8Start[Int(byte >> 4)])
                out.append(hex.utf8Start[Int(byte & 0x0F)])
            }
        }
    }

    /// Encodes ordered pairs as a form body: `a=1&b=two+words`.
    public static func encode(_ pairs: [(String, String)]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(pairs.reduce(0) { $0 + $1.0.utf8.count + $1.1.utf8.count + 2 } + 16)
        for (index, (name, value)) in pairs.enumerated() {
            if index > 0 { out.append(UInt8(ascii: "&")) }
            appendEscaped(name, to: &out)
            out.append(UInt8(ascii: "="))
            appendEscaped(value, to: &out)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes one name or value: `+` is a space, `%XX` a byte; invalid escapes are kept as text.
    public static func unescape(_ text: Substring) -> String {
        let utf8 = text.utf8
        guard utf8.contains(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "%") }) else { return String(text) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var index = utf8.startIndex
        while index < utf8.endIndex {
            let byte = utf8[index]
            utf8.formIndex(after: &index)
            if byte == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), index < utf8.endIndex, let high = hexValue(utf8[index]),
                case let next = utf8.index(after: index), next < utf8.endIndex, let low = hexValue(utf8[next])
            {
                bytes.append(high << 4 | low)
                index = utf8.index(after: next)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The value of one hexadecimal digit, either case; nil for another byte. (Also ``URLBinding``'s.)
    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// Decodes a form body into ordered pairs. Empty segments are skipped. The body is split on its bytes (`&` and
    /// `=` are ASCII, and a form is bytes), not on `Character`s.
    public static func decode(_ body: String) -> [(String, String)] {
        body.utf8.split(separator: UInt8(ascii: "&")).map { segment in
            let text = Substring(segment)
            guard let equals = segment.firstIndex(of: UInt8(ascii: "=")) else { return (unescape(text), "") }
            return (unescape(text[..<equals]), unescape(text[text.utf8.index(after: equals)...]))
        }
    }

    /// Decodes a form body into a JSON object of strings (the first value of a repeated name wins).
    public static func decodeObject(_ body: String) -> JSONObject {
        var object: JSONObject = [:]
        for (name, value) in decode(body) where object[name] == nil {
            object[name] = .string(value)
        }
        return object
    }
}
