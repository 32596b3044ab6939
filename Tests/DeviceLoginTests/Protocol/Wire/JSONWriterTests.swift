import Foundation
import Testing

@testable import DeviceLogin

/// The one JSON writer: what it escapes, how it spells escapes, numbers and order, and that its text is the text the
/// CLI wrote before through `JSONEncoder`.
@Suite("JSONWriter")
struct JSONWriterTests {
    /// `text` as a one-member object's value, written.
    private func written(_ text: String) -> String {
        JSONWriter.text(.object(["s": .string(text)]))
    }

    /// Scalars of the one rule for unsafe characters and the escape each becomes (a surrogate pair above U+FFFF).
    static let escaped: [(UInt32, String)] = [
        // DEL and C1 controls: C1 CSI and OSC start escape sequences on their own.
        (0x7F, #"\u007F"#), (0x80, #"\u0080"#), (0x85, #"\u0085"#), (0x9B, #"\u009B"#), (0x9F, #"\u009F"#),
        // Bidi controls: they reorder the line.
        (0x061C, #"\u061C"#), (0x200E, #"\u200E"#), (0x200F, #"\u200F"#), (0x202A, #"\u202A"#),
        (0x202E, #"\u202E"#), (0x2066, #"\u2066"#), (0x2069, #"\u2069"#),
        // Zero-width and other format characters (Cf).
        (0x200B, #"\u200B"#), (0x200C, #"\u200C"#), (0x200D, #"\u200D"#), (0x2060, #"\u2060"#), (0xFEFF, #"\uFEFF"#),
        (0xAD, #"\u00AD"#), (0x600, #"\u0600"#), (0x180E, #"\u180E"#), (0xFFF9, #"\uFFF9"#),
        (0x110BD, #"\uD804\uDCBD"#), (0x1D173, #"\uD834\uDD73"#),
        // Line and paragraph separators: line breaks to JavaScript and to some terminals.
        (0x2028, #"\u2028"#), (0x2029, #"\u2029"#),
        // Every space but U+0020: no-break, figure, narrow no-break, ideographic, Ogham, em, medium mathematical.
        (0xA0, #"\u00A0"#), (0x2007, #"\u2007"#), (0x202F, #"\u202F"#), (0x3000, #"\u3000"#), (0x1680, #"\u1680"#),
        (0x2003, #"\u2003"#), (0x205F, #"\u205F"#),
        // The tag block, assigned or not: invisible ASCII.
        (0xE0000, #"\uDB40\uDC00"#), (0xE0001, #"\uDB40\uDC01"#), (0xE0041, #"\uDB40\uDC41"#),
        (0xE007F, #"\uDB40\uDC7F"#),
        // Characters that draw nothing without being Cf: Hangul fillers, the combining grapheme joiner, variation
        // selectors, the blank Braille pattern.
        (0x3164, #"\u3164"#), (0x115F, #"\u115F"#), (0xFFA0, #"\uFFA0"#), (0x34F, #"\u034F"#), (0xFE0F, #"\uFE0F"#),
        (0xE0100, #"\uDB40\uDD00"#), (0x2800, #"\u2800"#),
        // Private use and unassigned code points, the last code point included.
        (0xE000, #"\uE000"#), (0xF0000, #"\uDB80\uDC00"#), (0x10FFFD, #"\uDBFF\uDFFD"#), (0x10FFFF, #"\uDBFF\uDFFF"#),
        (0x378, #"\u0378"#),
    ]

    @Test(
        "each unsafe scalar is escaped in a value and in a name, and reads back as the same string", arguments: escaped)
    func escapes(value: UInt32, escape: String) throws {
        let scalar = try #require(Unicode.Scalar(value))
        let text = "a" + String(Character(scalar)) + "b"
        let json = JSONWriter.text(.object([text: .string(text)]))
        #expect(json == "{\"a\(escape)b\":\"a\(escape)b\"}")
        #expect(try JSONDecoder().decode([String: String].self, from: Data(json.utf8)) == [text: text])
    }

    @Test(
        "quotes, backslashes and C0 controls: short escapes where JSON has them, else \\u00xx in lower case",
        arguments: [
            ("\"", #"\""#), ("\\", #"\\"#), ("\n", #"\n"#), ("\r", #"\r"#), ("\t", #"\t"#), ("\u{8}", #"\b"#),
            ("\u{C}", #"\f"#), ("\u{0}", #"\u0000"#), ("\u{7}", #"\u0007"#), ("\u{1B}[31m", #"\u001b[31m"#),
            ("\u{1F}", #"\u001f"#), ("\u{B}", #"\u000b"#), ("/", "/"),
        ])
    func controls(text: String, escape: String) throws {
        #expect(written(text) == #"{"s":""# + escape + #""}"#)
        let decoded = try JSONDecoder().decode([String: String].self, from: Data(written(text).utf8))
        #expect(decoded == ["s": text])
    }

    @Test("every C0 control is escaped; nothing below U+0020 is ever written raw")
    func everyC0Control() throws {
        let controls = String(String.UnicodeScalarView((0...0x1F).compactMap(Unicode.Scalar.init)))
        let json = written(controls)
        #expect(!json.unicodeScalars.contains { $0.value < 0x20 })
        #expect(try JSONDecoder().decode([String: String].self, from: Data(json.utf8)) == ["s": controls])
    }

    @Test("visible text stays as it is: letters, marks, emoji with modifiers, U+0020 and the scalars at the bounds")
    func visibleText() {
        let visible = "Ada Lovelace é 名前 e\u{301} 😀 👍🏽 🇫🇷 «ok» ÿ ~ \u{A1} \u{2801} \u{FFFD} \u{10000}"
        #expect(written(visible) == #"{"s":""# + visible + #""}"#)
    }

    @Test(
        "the bounds of the rule: the first and last scalar of each escaped range, and their neighbours",
        arguments: [
            (0x1F, true), (0x20, false), (0x7E, false), (0x7F, true), (0x9F, true), (0xA0, true), (0xA1, false),
            (0x2027, false), (0x2028, true), (0x2029, true), (0x202A, true), (0x2030, false), (0x27FF, false),
            (0x2800, true), (0x2801, false), (0xDFFFF, true), (0xE0000, true), (0xE007F, true), (0xE0080, true),
            (0xFFFD, false), (0xFFFE, true), (0x10000, false), (0x10FFFF, true),
        ] as [(UInt32, Bool)])
    func bounds(value: UInt32, isEscaped: Bool) throws {
        let scalar = try #require(Unicode.Scalar(value))
        #expect(written(String(Character(scalar))).contains("\\u") == isEscaped)
    }

    @Test("surrogates: a scalar above U+FFFF is one escaped surrogate pair, high then low, or its UTF-8")
    func surrogatePairs() throws {
        #expect(written("\u{E0041}") == #"{"s":"\uDB40\uDC41"}"#)
        #expect(written("\u{1F600}") == "{\"s\":\"\u{1F600}\"}")
        #expect(JSONWriter.literal("\u{1F600}", asciiOnly: true) == #""\uD83D\uDE00""#)
        #expect(JSONWriter.literal("\u{10FFFF}") == #""\uDBFF\uDFFF""#)
        let mixed = "x\u{E0042}\u{1F600}\u{E0043}y"
        let decoded = try JSONDecoder().decode(String.self, from: Data(JSONWriter.literal(mixed).utf8))
        #expect(decoded == mixed)
    }

    @Test(
        "ASCII literals: every non-ASCII scalar escaped too, so two different names never look alike",
        arguments: [
            ("email", #""email""#), ("", #""""#), ("email\u{202E}", #""email\u202E""#),
            ("\u{435}mail", #""\u0435mail""#), ("name\n sub", #""name\n sub""#), ("a\r\tb", #""a\r\tb""#),
            ("say \"hi\" \\o/", #""say \"hi\" \\o/""#), ("\u{1B}[2J", #""\u001b[2J""#), ("\u{7F}", #""\u007F""#),
            ("é", #""\u00E9""#),
        ])
    func asciiLiterals(text: String, literal: String) throws {
        #expect(JSONWriter.literal(text, asciiOnly: true) == literal)
        #expect(try JSONDecoder().decode(String.self, from: Data(literal.utf8)) == text)
    }

    @Test(
        "numbers as JSONValue encodes them: whole below 10^15 without a fraction, others without a trailing .0",
        arguments: [
            (3, "3"), (-5, "-5"), (0, "0"), (-0.0, "0"), (0.5, "0.5"), (100.25, "100.25"), (1e-7, "1e-07"),
            (999_999_999_999_999, "999999999999999"), (1e15, "1000000000000000"), (-1e15, "-1000000000000000"),
            (1e20, "1e+20"), (1.7976931348623157e308, "1.7976931348623157e+308"), (.infinity, "null"),
            (-.infinity, "null"), (.nan, "null"),
        ] as [(Double, String)])
    func numbers(number: Double, text: String) {
        #expect(JSONWriter.number(number) == text)
        #expect(JSONWriter.text(.number(number)) == text)
    }

    @Test("a JSONObject's keys are sorted as JSONEncoder sorts them; arrays keep their order")
    func sortedKeys() {
        let object: JSONObject = [
            "url": .string("https://a.test/b"), "count": .number(3), "ratio": .number(0.5), "ok": .bool(true),
            "none": .null, "list": .array([.string("x"), .number(-1), .array([])]),
            "nested": .object(["b": .null, "a": .bool(false), "B": .object([:])]), "10": .string("ten"),
            "9": .string("nine"), "é": .string("e"),
        ]
        #expect(
            JSONWriter.text(.object(object))
                == #"{"10":"ten","9":"nine","count":3,"list":["x",-1,[]],"nested":{"B":{},"a":false,"b":null},"#
                + #""none":null,"ok":true,"ratio":0.5,"url":"https://a.test/b","é":"e"}"#)
    }

    @Test("an object built field by field keeps their order; any Int exactly; nil as null")
    func orderedObject() {
        var json = JSONWriter()
        #expect(json.object == "{}")
        json.add("v", integer: 1)
        json.add("event", .string("pending"))
        json.add("big", integer: Int.max)
        json.add("small", integer: Int.min)
        json.add("none", integer: nil)
        json.add("name", string: nil)
        json.add("list", .array([.string("a\u{2028}"), .string("b")]))
        json.add("quote\"", string: "x")
        #expect(
            json.object
                == #"{"v":1,"event":"pending","big":9223372036854775807,"small":-9223372036854775808,"none":null,"#
                + #""name":null,"list":["a\u2028","b"],"quote\"":"x"}"#)
    }

    /// The CLI's `--json` text before the one writer: `JSONEncoder` with sorted keys and slashes unescaped, then
    /// every scalar of the rule but the C0 controls (which the encoder escapes) as `\uXXXX`.
    private static func encoderText(_ value: JSONValue) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var out = ""
        for scalar in String(decoding: try encoder.encode(value), as: UTF8.self).unicodeScalars {
            guard scalar.value >= 0x20, scalar.isUnsafeToShow else {
                out.unicodeScalars.append(scalar)
                continue
            }
            for unit in String(scalar).utf16 {
                let hex = String(unit, radix: 16, uppercase: true)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            }
        }
        return out
    }

    static let strings = [
        "", "plain", "a\"quote", "back\\slash", "a/slash", "line\nbreak", "cr\rtab\t", "bell\u{8}feed\u{C}",
        "nul\u{0}", "esc\u{1B}[31m", "é", "😀", "mixed é/\"\\😀", "\u{7F}del", "\u{85}next line", "\u{200B}zero width",
        "\u{202E}bidi", "\u{2028}separator", "\u{E0041}tag", "\u{A0}no-break space", "\u{3000}ideographic",
        "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxIn0.sig-_", "2026-12-01T16:54:49Z", "client.authentication.k8s.io/v1",
    ]

    static let numbers: [Double] = [0, 1, -1, 0.5, 3600, 1e15, 1.5e15, 1e16, 1e20, -2.5e-8, 999_999_999_999_999]

    @Test("byte for byte the text JSONEncoder wrote for the CLI, for strings, names, numbers and nesting")
    func writesWhatTheEncoderWrote() throws {
        for (index, text) in Self.strings.enumerated() {
            let object: JSONObject = [
                "z": .string(text), "a": .string("first"), "Secret": .string(text), text: .bool(index % 2 == 0),
                "status": .object(["token": .string(text), "expirationTimestamp": .string("t")]),
                "\(index)": .array([.string(text), .null, .number(Self.numbers[index % Self.numbers.count])]),
            ]
            #expect(
                JSONWriter.text(.object(object)) == (try Self.encoderText(.object(object))), "\(text.debugDescription)")
        }
        for number in Self.numbers {
            #expect(JSONWriter.text(.number(number)) == (try Self.encoderText(.number(number))), "\(number)")
        }
        #expect(JSONWriter.text(.object([:])) == (try Self.encoderText(.object([:]))))
    }
}
