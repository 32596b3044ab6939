/// base64url without padding (RFC 4648 §5; RFC 7515 §2 "Base64url Encoding"), strictly: the JOSE form of every
/// key component, signature and JWT part.
///
/// Decoding refuses what RFC 7515 §2 rules out — padding (`=`), characters outside the URL-safe alphabet
/// (whitespace, `+`, `/`), a length that leaves one character over, and non-zero bits in the last character's
/// unused part (so every byte string has exactly one encoding) — and anything longer than the caller's bound.
///
/// `package`: the testing kit's mock server makes its tokens and ID tokens with this one encoder.
package enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// The encoding of `bytes`, without padding.
    package static func encode(_ bytes: some Collection<UInt8>) -> String {
        if let encoded = bytes.withContiguousStorageIfAvailable(encode(buffer:)) { return encoded }
        return Array(bytes).withUnsafeBufferPointer(encode(buffer:))
    }

    /// ``encode(_:)`` over the bytes in memory, three at a time, into the string's own storage. The generic loop it
    /// replaces went through the collection's iterator, unspecialised where the testing kit calls it: 22,000
    /// instructions for a 32-byte token (issue 19).
    private static func encode(buffer bytes: UnsafeBufferPointer<UInt8>) -> String {
        String(unsafeUninitializedCapacity: (bytes.count * 4 + 2) / 3) { output in
            var written = 0
            func put(_ sextet: UInt32) {
                output[written] = alphabet[Int(sextet & 63)]
                written += 1
            }
            var index = 0
            while index + 3 <= bytes.count {
                let chunk = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
                put(chunk >> 18)
                put(chunk >> 12)
                put(chunk >> 6)
                put(chunk)
                index += 3
            }
            let left = bytes.count - index
            if left > 0 {
                let chunk = UInt32(bytes[index]) << 16 | (left == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
                put(chunk >> 18)
                put(chunk >> 12)
                if left == 2 { put(chunk >> 6) }
            }
            return written
        }
    }

    /// The bytes `text` encodes, or nil when it is not strict unpadded base64url or would decode to more than
    /// `maximumBytes`.
    package static func decode(_ text: some StringProtocol, maximumBytes: Int) -> [UInt8]? {
        let utf8 = text.utf8
        let count = utf8.count
        guard count % 4 != 1, count / 4 * 3 + max(0, count % 4 - 1) <= maximumBytes else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for character in utf8 {
            guard let value = sextet(character) else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        // The bits left over pad the last character: they must be zero (RFC 4648 §3.5, canonical encoding).
        guard accumulator == 0 else { return nil }
        return output
    }

    private static func sextet(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return character - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return character - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return character - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"): return 62
        case UInt8(ascii: "_"): return 63
        default: return nil
        }
    }
}
