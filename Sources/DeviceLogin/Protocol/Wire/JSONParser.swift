/// A strict JSON parser (RFC 8259) into ``JSONValue``, without `JSONDecoder`.
///
/// For what the CLI reads before anything else runs — a stored profile (``FileTokenStore``'s one reader,
/// ``ProfileRecord/init(stored:)``, on every path) and kubectl's `KUBERNETES_EXEC_INFO`: `JSONDecoder` and `Codable`
/// instantiate generic metadata at run time, which costs more than the fast lane's whole answer. It refuses duplicate
/// keys, invalid UTF-8, unpaired surrogates, control characters in strings, leading zeros, a byte-order mark,
/// anything after the value, nesting deeper than ``maximumDepth``, and numbers that do not fit a `Double` (too large,
/// or so small that they would read as zero).
package struct JSONParser {
    /// The deepest nesting of arrays and objects accepted.
    static let maximumDepth = 64

    /// Why a text is not JSON: the byte offset and what was wrong there.
    package struct Failure: Error, Equatable, CustomStringConvertible {
        let offset: Int
        let reason: String

        package var description: String { "invalid JSON at byte \(offset): \(reason)" }
    }

    private let bytes: [UInt8]
    private var index = 0

    private init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Parses `bytes`, which must hold exactly one JSON value (with white space around it).
    /// - Throws: ``Failure``.
    package static func parse(_ bytes: [UInt8]) throws(Failure) -> JSONValue {
        var parser = JSONParser(bytes)
        parser.skipWhiteSpace()
        let value = try parser.value(depth: 0)
        parser.skipWhiteSpace()
        guard parser.index == bytes.count else { throw parser.failure("text after the value") }
        return value
    }

    // MARK: - Values

    private mutating func value(depth: Int) throws(Failure) -> JSONValue {
        guard let byte = peek() else { throw failure("the text ended where a value was expected") }
        switch byte {
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw failure("unexpected character")
        }
    }

    private mutating func object(depth: Int) throws(Failure) -> JSONValue {
        // Read in order first, then put in a dictionary made for all of them: growing one member by member hashed
        // every key again at each doubling.
        var read: [(key: String, offset: Int, value: JSONValue)] = []
        try sequence(depth: depth, closing: UInt8(ascii: "}"), what: "member") { parser throws(Failure) in
            guard parser.peek() == UInt8(ascii: "\"") else { throw parser.failure("a member name must be a string") }
            let keyOffset = parser.index
            let key = try parser.string()
            parser.skipWhiteSpace()
            try parser.expect(UInt8(ascii: ":"), "a ':' after the member name")
            parser.skipWhiteSpace()
            read.append((key, keyOffset, try parser.value(depth: depth)))
        }
        var members = [String: JSONValue](minimumCapacity: read.count)
        for member in read {
            guard members.updateValue(member.value, forKey: member.key) == nil else {
                throw Failure(offset: member.offset, reason: "the member name \"\(member.key)\" appears twice")
            }
        }
        return .object(members)
    }

    private mutating func array(depth: Int) throws(Failure) -> JSONValue {
        var elements: [JSONValue] = []
        try sequence(depth: depth, closing: UInt8(ascii: "]"), what: "element") { parser throws(Failure) in
            elements.append(try parser.value(depth: depth))
        }
        return .array(elements)
    }

    /// The items of an object or an array, from its opening bracket to `closing`, each read by `item`.
    private mutating func sequence(
        depth: Int, closing: UInt8, what: String, item: (inout JSONParser) throws(Failure) -> Void
    ) throws(Failure) {
        guard depth <= Self.maximumDepth else { throw failure("nested deeper than \(Self.maximumDepth) levels") }
        index += 1
        skipWhiteSpace()
        if peek() == closing {
            index += 1
            return
        }
        while true {
            try item(&self)
            skipWhiteSpace()
            if peek() == closing {
                index += 1
                return
            }
            // The message is made only for a failure: made for every item, it cost a formatted string each.
            guard peek() == UInt8(ascii: ",") else {
                throw failure("expected a ',' or '\(Character(Unicode.Scalar(closing)))' after the \(what)")
            }
            index += 1
            skipWhiteSpace()
        }
    }

    // MARK: - Strings

    private mutating func string() throws(Failure) -> String {
        let start = index
        index += 1
        // Most strings have no escape: up to the closing quote, they are their own bytes.
        let contentStart = index
        var seen: UInt8 = 0
        while let byte = peek(), byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\"), byte >= 0x20 {
            seen |= byte
            index += 1
        }
        if peek() == UInt8(ascii: "\"") {
            index += 1
            // ASCII is valid UTF-8 as it stands: validating it cost 1,000 instructions a string.
            if seen < 0x80 { return String(decoding: bytes[contentStart..<index - 1], as: UTF8.self) }
            guard let text = String(validating: bytes[contentStart..<index - 1], as: UTF8.self) else {
                throw Failure(offset: start, reason: "the string is not valid UTF-8")
            }
            return text
        }
        var utf8 = Array(bytes[contentStart..<index])
        while true {
            guard let byte = peek() else { throw Failure(offset: start, reason: "the string does not end") }
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard let text = String(validating: utf8, as: UTF8.self) else {
                    throw Failure(offset: start, reason: "the string is not valid UTF-8")
                }
                return text
            case UInt8(ascii: "\\"):
                try escape(into: &utf8)
            case 0x00..<0x20:
                throw failure("a control character in a string", at: index - 1)
            default:
                utf8.append(byte)
            }
        }
    }

    private mutating func escape(into utf8: inout [UInt8]) throws(Failure) {
        guard let byte = peek() else { throw failure("the text ended in an escape") }
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(byte)
        case UInt8(ascii: "b"): utf8.append(0x08)
        case UInt8(ascii: "f"): utf8.append(0x0C)
        case UInt8(ascii: "n"): utf8.append(0x0A)
        case UInt8(ascii: "r"): utf8.append(0x0D)
        case UInt8(ascii: "t"): utf8.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try hexQuad()
            if (0xD800..<0xDC00).contains(scalar) {
                // A high surrogate: a low one must follow, as a second \u escape.
                guard peek() == UInt8(ascii: "\\"), peek(1) == UInt8(ascii: "u") else {
                    throw failure("an unpaired surrogate in a \\u escape")
                }
                index += 2
                let low = try hexQuad()
                guard (0xDC00..<0xE000).contains(low) else { throw failure("an unpaired surrogate in a \\u escape") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(scalar) {
                throw failure("an unpaired surrogate in a \\u escape")
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw failure("an invalid \\u escape") }
            UTF8.encode(unicode) { utf8.append($0) }
        default:
            throw failure("an unknown escape", at: index - 1)
        }
    }

    private mutating func hexQuad() throws(Failure) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = peek(), let digit = Self.hexDigit(byte) else {
                throw failure("a \\u escape needs 4 hex digits")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    private static func hexDigit(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    // MARK: - Numbers and literals

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, as a finite `Double`.
    private mutating func number() throws(Failure) -> Double {
        let start = index
        if peek() == UInt8(ascii: "-") { index += 1 }
        if peek() == UInt8(ascii: "0") {
            index += 1
            if let next = peek(), Self.isDigit(next) { throw failure("a number with a leading zero", at: start) }
        } else {
            guard digits() > 0 else { throw failure("a number needs digits", at: start) }
        }
        if peek() == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { throw failure("a number needs digits after '.'", at: start) }
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            index += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw failure("a number needs digits in its exponent", at: start) }
        }
        let digits = bytes[start..<index]
        let text = String(decoding: digits, as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw failure("a number out of range", at: start)
        }
        let mantissa = digits.prefix { $0 != UInt8(ascii: "e") && $0 != UInt8(ascii: "E") }
        // A number that underflows to zero (`1e-400`) does not fit a Double: it would read as another number.
        if value == 0, mantissa.contains(where: { $0 >= UInt8(ascii: "1") && $0 <= UInt8(ascii: "9") }) {
            throw failure("a number too small for a Double", at: start)
        }
        return value
    }

    private mutating func digits() -> Int {
        let start = index
        while let byte = peek(), Self.isDigit(byte) { index += 1 }
        return index - start
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private mutating func literal(_ word: StaticString) throws(Failure) {
        let start = index
        let expected = UnsafeRawBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        for byte in expected {
            guard peek() == byte else { throw failure("an unknown literal", at: start) }
            index += 1
        }
    }

    // MARK: - Scanning

    private func peek(_ ahead: Int = 0) -> UInt8? {
        index + ahead < bytes.count ? bytes[index + ahead] : nil
    }

    private mutating func skipWhiteSpace() {
        while let byte = peek(), byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    private mutating func expect(_ byte: UInt8, _ what: String) throws(Failure) {
        guard peek() == byte else { throw failure("expected " + what) }
        index += 1
    }

    private func failure(_ reason: String, at offset: Int? = nil) -> Failure {
        Failure(offset: offset ?? index, reason: reason)
    }
}
