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
        return String(unsafeUninitializedCapacity: escapedLength(text)) { buffer in
            write(text, into: UnsafeMutableRawBufferPointer(buffer), at: 0)
        }
    }

    /// Encodes ordered pairs as a form body: `a=1&b=two+words`.
    public static func encode(_ pairs: [(String, String)]) -> String {
        String(unsafeUninitializedCapacity: encodedLength(pairs)) { buffer in
            write(pairs, into: UnsafeMutableRawBufferPointer(buffer))
        }
    }

    /// ``encode(_:)`` as the bytes of a request body, written straight into the `Data`: every poll of a device flow
    /// encodes its form again (a waiting flow keeps only its device code), and an array and a string in between
    /// cost the poll two more allocations and copies.
    package static func encodedData(_ pairs: [(String, String)]) -> Data {
        var data = Data(count: encodedLength(pairs))
        data.withUnsafeMutableBytes { buffer in _ = write(pairs, into: buffer) }
        return data
    }

    /// How many bytes each byte becomes: 1 for an unreserved byte and the space (`+`), 3 for the others (`%XX`).
    /// One lookup per byte: the range tests of ``isUnreserved(_:)`` cost 35 instructions a byte when every poll's
    /// form was measured, then written (issue 19).
    private static let widths: [UInt8] = (0...255).map { isUnreserved(UInt8($0)) || $0 == 0x20 ? 1 : 3 }

    /// The length of `text` escaped, in bytes.
    private static func escapedLength(_ text: String) -> Int {
        var text = text
        return widths.withUnsafeBufferPointer { width in
            text.withUTF8 { bytes in bytes.reduce(0) { $0 + Int(width[Int($1)]) } }
        }
    }

    /// The length of `pairs` encoded, in bytes.
    private static func encodedLength(_ pairs: [(String, String)]) -> Int {
        pairs.reduce(max(0, pairs.count - 1)) { length, pair in
            length + escapedLength(pair.0) + 1 + escapedLength(pair.1)
        }
    }

    /// Writes `pairs` encoded at the start of `buffer`, which holds at least ``encodedLength(_:)`` bytes.
    /// - Returns: The number of bytes written.
    private static func write(_ pairs: [(String, String)], into buffer: UnsafeMutableRawBufferPointer) -> Int {
        var position = 0
        for (index, (name, value)) in pairs.enumerated() {
            if index > 0 {
                buffer[position] = UInt8(ascii: "&")
                position += 1
            }
            position = write(name, into: buffer, at: position)
            buffer[position] = UInt8(ascii: "=")
            position = write(value, into: buffer, at: position + 1)
        }
        return position
    }

    /// Writes `text` escaped into `buffer` from `start`, byte by byte: escaping a form goes through no `Character`
    /// (the testing kit decodes every request it gets, and a device flow encodes each poll).
    /// - Returns: The position after the last byte written.
    private static func write(_ text: String, into buffer: UnsafeMutableRawBufferPointer, at start: Int) -> Int {
        let hex: StaticString = "0123456789ABCDEF"
        var text = text
        var position = start
        widths.withUnsafeBufferPointer { width in
            text.withUTF8 { bytes in
                for byte in bytes {
                    if width[Int(byte)] == 3 {
                        buffer[position] = UInt8(ascii: "%")
                        buffer[position + 1] = hex.utf8Start[Int(byte >> 4)]
                        buffer[position + 2] = hex.utf8Start[Int(byte & 0x0F)]
                        position += 3
                    } else {
                        buffer[position] = byte == UInt8(ascii: " ") ? UInt8(ascii: "+") : byte
                        position += 1
                    }
                }
            }
        }
        return position
    }

    /// Decodes one name or value: `+` is a space, `%XX` a byte; invalid escapes are kept as text.
    public static func unescape(_ text: Substring) -> String {
        unescape(Array(text.utf8)[...])
    }

    /// ``unescape(_:)-(Substring)`` over the bytes of a form, which ``decode(_:)`` reads once into an array: indexing
    /// a `Substring`'s UTF-8 view costs a bounds and a boundary check per byte, and decoding the request forms of
    /// device-login-bench's mock server that way took 28,000 instructions a request (issue 19).
    static func unescape(_ bytes: ArraySlice<UInt8>) -> String {
        guard bytes.contains(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "%") }) else {
            return String(decoding: bytes, as: UTF8.self)
        }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            index += 1
            if byte == UInt8(ascii: "+") {
                decoded.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), index + 1 < bytes.endIndex, let high = hexValue(bytes[index]),
                let low = hexValue(bytes[index + 1])
            {
                decoded.append(high << 4 | low)
                index += 2
            } else {
                decoded.append(byte)
            }
        }
        return String(decoding: decoded, as: UTF8.self)
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
        let bytes = Array(body.utf8)
        var pairs: [(String, String)] = []
        var start = 0
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "&")) ?? bytes.count
            if end > start {
                let segment = bytes[start..<end]
                if let equals = segment.firstIndex(of: UInt8(ascii: "=")) {
                    pairs.append((unescape(segment[..<equals]), unescape(segment[(equals + 1)...])))
                } else {
                    pairs.append((unescape(segment), ""))
                }
            }
            start = end + 1
        }
        return pairs
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
