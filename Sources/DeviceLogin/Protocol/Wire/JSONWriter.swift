/// The one JSON writer (RFC 8259): compact text, safe to land on a terminal or in a log, without `JSONEncoder`.
///
/// Every JSON the package writes goes through it: the v1 event lines (``FlowEventEncoder``), every `--json` output
/// of the CLI and its helpers' answers (kubectl's `ExecCredential`, Docker's credentials), and the testing kit's mock
/// server. `JSONEncoder` and `Codable` instantiate generic metadata at run time, which costs the CLI's fast lane more
/// than its whole answer does; this writer needs nothing but the standard library.
///
/// Strings are written as `JSONEncoder` writes them with `.withoutEscapingSlashes` (`/` as it is), then made safe:
/// - `"` and `\` escaped, and `\b`, `\f`, `\n`, `\r`, `\t` by their short escapes; the other C0 controls as
///   `\u00xx` in lower case, as `JSONEncoder` writes them;
/// - every other scalar of the one rule for unsafe characters (`Unicode.Scalar.isUnsafeToShow`: DEL and C1
///   controls, bidi and other format characters, zero-width and invisible characters, line and paragraph
///   separators, the tag block, private-use and unassigned code points, every space but U+0020) as `\uXXXX` in
///   upper case, a UTF-16 surrogate pair above U+FFFF (RFC 8259 §7);
/// - everything else as it is, in UTF-8.
///
/// Every JSON reader turns the escapes back into the same string, so the value is the one given; only what shows
/// changes. Numbers are written as ``JSONValue`` encodes them (a whole number below 10^15 in magnitude without a
/// fraction, any other finite number as Swift prints it, without a trailing `.0`), a non-finite one as `null`.
/// Objects given as a ``JSONObject`` have their keys sorted; an object built with ``add(_:_:)`` keeps the order of
/// its fields.
///
/// ```swift
/// JSONWriter.text(.object(["a": .string("x\u{202E}y"), "n": .number(3)]))  // {"a":"x\u202Ey","n":3}
/// var line = JSONWriter()
/// line.add("v", integer: 1)
/// line.add("event", .string("pending"))
/// line.object  // {"v":1,"event":"pending"}
/// ```
package struct JSONWriter {
    /// The object's UTF-8 so far: the writer appends bytes and makes a `String` once, at the end. Appending to a
    /// `String` piece by piece cost some 330 instructions an append, most of the mock server's answers and a good part
    /// of every event line (issue 19).
    private var bytes: [UInt8] = [UInt8(ascii: "{")]

    /// An empty object, to which ``add(_:_:)`` adds fields in order.
    package init() {}

    /// Adds `"key":value` after the fields added before.
    package mutating func add(_ key: String, _ value: JSONValue) {
        addKey(key)
        Self.write(value, to: &bytes)
    }

    /// Adds `"key":integer`, or `"key":null` when there is none; any `Int` is written exactly.
    package mutating func add(_ key: String, integer: Int?) {
        addKey(key)
        bytes.append(contentsOf: (integer.map { String($0) } ?? "null").utf8)
    }

    /// Adds `"key":"string"`, or `"key":null` when there is none.
    package mutating func add(_ key: String, string: String?) {
        add(key, string.map(JSONValue.string) ?? .null)
    }

    private mutating func addKey(_ key: String) {
        if bytes.count > 1 { bytes.append(UInt8(ascii: ",")) }
        Self.writeString(key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
    }

    /// The object, closed: one line, without a line feed.
    package var object: String { String(decoding: bytes + [UInt8(ascii: "}")], as: UTF8.self) }

    /// `value` as compact JSON text, keys sorted.
    package static func text(_ value: JSONValue) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        write(value, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `value` to `bytes` as compact JSON, keys sorted (by `String`'s order, as `JSONEncoder` sorts them).
    private static func write(_ value: JSONValue, to bytes: inout [UInt8]) {
        switch value {
        case .string(let string):
            writeString(string, to: &bytes)
        case .number(let number):
            bytes.append(contentsOf: self.number(number).utf8)
        case .bool(let flag):
            bytes.append(contentsOf: (flag ? "true" : "false").utf8)
        case .null:
            bytes.append(contentsOf: "null".utf8)
        case .array(let values):
            bytes.append(UInt8(ascii: "["))
            for (index, element) in values.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                write(element, to: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                writeString(key, to: &bytes)
                bytes.append(UInt8(ascii: ":"))
                write(members[key] ?? .null, to: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// `number` as JSON: a whole number below 10^15 in magnitude without a fraction (`3`, `-0` as `0`), any other
    /// finite number as Swift prints it without a trailing `.0` (`0.5`, `1000000000000000`, `1e+20`), and `null`
    /// for infinity and NaN, which JSON cannot write.
    package static func number(_ number: Double) -> String {
        guard number.isFinite else { return "null" }
        if number == number.rounded(), abs(number) < 1e15 { return String(Int64(number)) }
        let text = number.description
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }

    /// `string` as a JSON string literal, its quotes included.
    /// - Parameters:
    ///   - string: The text.
    ///   - asciiOnly: Escape every non-ASCII scalar too, so the literal is plain ASCII and two different strings
    ///     never look alike (a name shown exactly, whatever it holds).
    package static func literal(_ string: String, asciiOnly: Bool = false) -> String {
        var bytes: [UInt8] = []
        writeString(string, asciiOnly: asciiOnly, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `string` to `bytes` as a JSON string literal, its quotes included (see ``literal(_:asciiOnly:)``).
    private static func writeString(_ string: String, asciiOnly: Bool = false, to bytes: inout [UInt8]) {
        // Most strings (names, tokens, times, URLs) are printable ASCII without a quote or a backslash: as they are,
        // read through their buffer (a `UTF8View`'s iterator cost 6 instructions a byte more).
        var contiguous = string
        let plain = contiguous.withUTF8 { utf8 in
            guard utf8.allSatisfy(isPlain) else { return false }
            bytes.append(UInt8(ascii: "\""))
            bytes.append(contentsOf: utf8)
            bytes.append(UInt8(ascii: "\""))
            return true
        }
        if plain { return }
        var out = String.UnicodeScalarView()
        out.append("\"")
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out.append(contentsOf: #"\""#.unicodeScalars)
            case "\\": out.append(contentsOf: #"\\"#.unicodeScalars)
            case "\n": out.append(contentsOf: #"\n"#.unicodeScalars)
            case "\r": out.append(contentsOf: #"\r"#.unicodeScalars)
            case "\t": out.append(contentsOf: #"\t"#.unicodeScalars)
            case "\u{8}": out.append(contentsOf: #"\b"#.unicodeScalars)
            case "\u{C}": out.append(contentsOf: #"\f"#.unicodeScalars)
            default:
                if scalar.value < 0x20 {
                    appendEscape(UInt16(scalar.value), uppercase: false, to: &out)
                } else if scalar.isUnsafeToShow || (asciiOnly && !scalar.isASCII) {
                    for unit in String(scalar).utf16 { appendEscape(unit, uppercase: true, to: &out) }
                } else {
                    out.append(scalar)
                }
            }
        }
        out.append("\"")
        bytes.append(contentsOf: String(out).utf8)
    }

    /// Whether a byte of UTF-8 stands in a JSON string as it is: printable ASCII other than a quote or a backslash.
    private static func isPlain(_ byte: UInt8) -> Bool {
        byte >= 0x20 && byte < 0x7F && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\")
    }

    /// Appends `\uXXXX` for one UTF-16 code unit.
    private static func appendEscape(_ unit: UInt16, uppercase: Bool, to out: inout String.UnicodeScalarView) {
        let hex = String(unit, radix: 16, uppercase: uppercase)
        out.append(contentsOf: "\\u".unicodeScalars)
        out.append(contentsOf: repeatElement("0", count: 4 - hex.utf8.count))
        out.append(contentsOf: hex.unicodeScalars)
    }
}
