import DeviceLogin
import DeviceLoginTerminal
import Foundation
import Testing

@testable import DeviceLoginCLI

/// The `--json` output on stdout: every scalar a terminal would act on, or that draws nothing, is a `\uXXXX` escape.
@Suite("JSONText: the escaper of --json output")
struct JSONTextTests {
    /// Scalars and the escape each must become (a surrogate pair above U+FFFF).
    static let escaped: [(UInt32, String)] = [
        // Format characters (Cf) beyond the bidi and zero-width ones.
        (0xAD, #"\u00AD"#), (0x600, #"\u0600"#), (0x6DD, #"\u06DD"#), (0x70F, #"\u070F"#), (0x180E, #"\u180E"#),
        (0x206A, #"\u206A"#), (0x206F, #"\u206F"#), (0xFFF9, #"\uFFF9"#), (0xFFFB, #"\uFFFB"#),
        (0x110BD, #"\uD804\uDCBD"#), (0x1D173, #"\uD834\uDD73"#), (0x1BCA0, #"\uD82F\uDCA0"#),
        // Line and paragraph separators: line breaks to JavaScript and to some terminals.
        (0x2028, #"\u2028"#), (0x2029, #"\u2029"#),
        // The tag block, assigned or not: invisible ASCII.
        (0xE0000, #"\uDB40\uDC00"#), (0xE0001, #"\uDB40\uDC01"#), (0xE0041, #"\uDB40\uDC41"#),
        (0xE007F, #"\uDB40\uDC7F"#),
        // Characters that draw nothing without being Cf, as the terminal sanitiser drops them.
        (0x3164, #"\u3164"#), (0x115F, #"\u115F"#), (0x1160, #"\u1160"#), (0xFFA0, #"\uFFA0"#), (0x34F, #"\u034F"#),
        (0xFE0F, #"\uFE0F"#), (0xE0100, #"\uDB40\uDD00"#), (0x2800, #"\u2800"#),
        // Spaces that are not U+0020, private use and unassigned code points.
        (0xA0, #"\u00A0"#), (0x2007, #"\u2007"#), (0x202F, #"\u202F"#), (0x3000, #"\u3000"#), (0x1680, #"\u1680"#),
        (0xE000, #"\uE000"#), (0xF0000, #"\uDB80\uDC00"#), (0x10FFFD, #"\uDBFF\uDFFD"#), (0x378, #"\u0378"#),
        // What was escaped before: DEL, C1, bidi controls, zero-width characters, the byte order mark.
        (0x7F, #"\u007F"#), (0x85, #"\u0085"#), (0x9B, #"\u009B"#), (0x61C, #"\u061C"#), (0x200B, #"\u200B"#),
        (0x200D, #"\u200D"#), (0x202E, #"\u202E"#), (0x2066, #"\u2066"#), (0xFEFF, #"\uFEFF"#),
    ]

    @Test("each is escaped in a value and in a name, and the JSON value stays the same", arguments: escaped)
    func escapes(value: UInt32, escape: String) throws {
        let scalar = try #require(Unicode.Scalar(value))
        let text = "a" + String(Character(scalar)) + "b"
        let json = try TokenOutput.encode([text: .string(text)])
        #expect(json == "{\"a\(escape)b\":\"a\(escape)b\"}")
        let decoded = try JSONDecoder().decode([String: String].self, from: Data(json.utf8))
        #expect(decoded == [text: text])
    }

    @Test("C0 controls stay escaped; visible text, combining marks, emoji and U+0020 stay as they are")
    func plain() throws {
        let controls = (0...0x1F).compactMap(Unicode.Scalar.init).map { String(Character($0)) }.joined()
        let json = try TokenOutput.encode(["c": .string(controls)])
        #expect(!json.unicodeScalars.contains { $0.value < 0x20 })
        #expect(try JSONDecoder().decode([String: String].self, from: Data(json.utf8)) == ["c": controls])
        let visible = "Ada Lovelace é 名前 e\u{301} 😀 👍🏽 «ok» ÿ ~"
        #expect(try TokenOutput.encode(["v": .string(visible)]) == "{\"v\":\"\(visible)\"}")
    }

    /// The code points compared with the sanitiser: planes 0 and 1, the tag and variation-selector block of plane
    /// 14 whole, and every 97th of the rest (unassigned or private use, but for the CJK of planes 2 and 3) — all of
    /// Unicode would take seconds of a core that timing tests running alongside need.
    static let comparedCodePoints =
        Array(UInt32(0)...0x1FFFF) + Array(UInt32(0xE0000)...0xE0FFF)
        + Array(stride(from: UInt32(0x20000), to: 0xE0000, by: 97))
        + Array(stride(from: UInt32(0xE1000), through: 0x10FFFF, by: 97))

    @Test("every scalar the terminal sanitiser drops or replaces is escaped, across Unicode")
    func matchesTheSanitiser() {
        var missed: [String] = []
        for value in Self.comparedCodePoints {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let text = "a" + String(Character(scalar)) + "b"
            if Sanitizer.sanitize(text) != text, !JSONText.needsEscape(scalar) {
                missed.append("U+" + String(value, radix: 16, uppercase: true))
            }
        }
        #expect(missed.isEmpty, "shown raw in --json but dropped by the sanitiser: \(missed.prefix(20))")
    }

    @Test(
        "raw text: C0 controls too, as \\u00XX",
        arguments: [
            ("a\u{0}b", #"a\u0000b"#), ("\u{1B}[31m", #"\u001B[31m"#), ("a\nb", #"a\u000Ab"#),
            ("\u{1F}", #"\u001F"#), ("x\u{E0041}\u{E0042}", #"x\uDB40\uDC41\uDB40\uDC42"#), ("plain", "plain"),
        ])
    func rawText(text: String, escaped: String) {
        #expect(JSONText.escapingControls(text) == escaped)
    }

    @Test(
        "names as ASCII JSON literals: exact, distinct, and readable back as the same string",
        arguments: [
            ("email", #""email""#), ("", #""""#), ("email\u{202E}", #""email\u202E""#),
            ("\u{435}mail", #""\u0435mail""#),
            ("name\n sub", #""name\n sub""#), ("a\r\tb", #""a\r\tb""#), ("say \"hi\" \\o/", #""say \"hi\" \\o/""#),
            ("\u{1B}[2J", #""\u001B[2J""#), ("\u{7F}", #""\u007F""#), ("😀", #""\uD83D\uDE00""#),
        ])
    func asciiLiteral(text: String, literal: String) throws {
        #expect(JSONText.asciiLiteral(text) == literal)
        #expect(try JSONDecoder().decode(String.self, from: Data(literal.utf8)) == text)
    }
}

/// The hand-written encoding of the helpers' answers is the encoder's, character for character.
@Suite("JSONText.compactStrings")
struct JSONTextCompactStringsTests {
    private static let strings = [
        "", "plain", "a\"quote", "back\\slash", "a/slash", "line\nbreak", "cr\rtab\t", "bell\u{8}feed\u{C}",
        "é", "😀", "mixed é/\"\\😀", "\u{7F}del", "\u{85}next line", "\u{200B}zero width", "\u{202E}bidi",
        "\u{2028}separator", "\u{E0041}tag", "\u{A0}no-break space", "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxIn0.sig-_",
        "2026-12-01T16:54:49Z", "client.authentication.k8s.io/v1",
    ]

    @Test func writesWhatTheEncoderWrites() throws {
        for (index, text) in Self.strings.enumerated() {
            let object: JSONObject = [
                "z": .string(text), "a": .string("first"), "Secret": .string(text),
                "status": .object(["token": .string(text), "expirationTimestamp": .string("t")]),
                "\(index)": .object([:]),
            ]
            let written = try #require(JSONText.compactStrings(object), "\(text.debugDescription)")
            #expect(written == (try TokenOutput.encodeWithJSONEncoder(object)), "\(text.debugDescription)")
        }
        #expect(JSONText.compactStrings([:]) == (try TokenOutput.encodeWithJSONEncoder([:])))
    }

    @Test func leavesToTheEncoderWhatItDoesNotWrite() {
        #expect(JSONText.compactStrings(["n": .number(1)]) == nil)
        #expect(JSONText.compactStrings(["a": .array([])]) == nil)
        #expect(JSONText.compactStrings(["b": .bool(true), "s": .string("x")]) == nil)
        #expect(JSONText.compactStrings(["é": .string("x")]) == nil)
        #expect(JSONText.compactStrings(["s": .string("nul\u{0}")]) == nil)
        #expect(JSONText.compactStrings(["s": .string("esc\u{1B}[31m")]) == nil)
    }
}
