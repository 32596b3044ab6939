import Foundation
import Testing

@testable import DeviceLogin

/// JSONParser reads JSON (RFC 8259) to the values it holds, and refuses what is not JSON or does not fit.
@Suite("JSONParser")
struct JSONParserTests {
    private static func parse(_ text: String) throws(JSONParser.Failure) -> JSONValue {
        try JSONParser.parse(Array(text.utf8))
    }

    @Test(
        arguments: [
            (#"{}"#, .object([:])), (#"[]"#, .array([])), (#"  {"a" : 1 }  "#, .object(["a": .number(1)])),
            (
                "\n\t{\"a\":[1,2,{\"b\":null}]}\r\n",
                .object(["a": .array([.number(1), .number(2), .object(["b": .null])])])
            ),
            (#""text""#, .string("text")), ("0", .number(0)), ("-0", .number(-0.0)), ("12.5e-3", .number(0.0125)),
            ("1E+2", .number(100)), ("true", .bool(true)), ("false", .bool(false)), ("null", .null),
            (#"{"a":"\u00e9\ud83d\ude00\n\"\\\/"}"#, .object(["a": .string("é😀\n\"\\/")])),
            (#"["\u0000"]"#, .array([.string("\u{0}")])),
            (
                #"{"profile":{"name":"work","bindings":["https:\/\/git.example"]},"version":1}"#,
                .object([
                    "profile": .object(["name": .string("work"), "bindings": .array([.string("https://git.example")])]),
                    "version": .number(1),
                ])
            ),
            (
                "[1.7976931348623157e308, -2.2250738585072014e-308, 123456789012345678901234567890]",
                .array([
                    .number(1.7976931348623157e308), .number(-2.2250738585072014e-308), .number(1.2345678901234568e29),
                ])
            ),
            (
                "[4.9e-324, -0.0, 0.1e1, 0.0, -0.00]",
                .array([.number(.leastNonzeroMagnitude), .number(-0.0), .number(1), .number(0), .number(0)])
            ),
            // A zero with an exponent is JSON, and zero.
            ("[0e8, -0E+1, -0.0e3, 0.00e1]", .array([.number(0), .number(0), .number(0), .number(0)])),
        ] as [(String, JSONValue)])
    func reads(_ text: String, value: JSONValue) throws {
        #expect(try Self.parse(text) == value)
    }

    @Test func readsStringsAndNumbersExactly() throws {
        #expect(try Self.parse(#""a\u00e9\ud83d\ude00b""#) == .string("aé😀b"))
        #expect(try Self.parse(#""\b\f\n\r\t""#) == .string("\u{8}\u{C}\n\r\t"))
        #expect(try Self.parse("1796144089.7566848") == .number(1796144089.7566848))
        #expect(try Self.parse("[-1.5e2]") == .array([.number(-150)]))
    }

    @Test(
        arguments: [
            ("", "the text ended where a value was expected"),
            ("{", "a member name must be a string"),
            (#"{"a":1"#, "expected a ',' or '}' after the member"),
            (#"{"a":1,}"#, "a member name must be a string"),
            ("[1,]", "unexpected character"),
            ("[1 2]", "expected a ',' or ']' after the element"),
            (#"{"a" 1}"#, "expected a ':' after the member name"),
            (#"{"a":1,"a":2}"#, #"the member name "a" appears twice"#),
            ("01", "a number with a leading zero"),
            ("-", "a number needs digits"),
            ("1.", "a number needs digits after '.'"),
            ("1e", "a number needs digits in its exponent"),
            (".5", "unexpected character"),
            ("+1", "unexpected character"),
            ("1e400", "a number out of range"),
            ("1e-400", "a number too small for a Double"),
            ("-0.5e-400", "a number too small for a Double"),
            ("NaN", "unexpected character"),
            ("tru", "an unknown literal"),
            ("nul", "an unknown literal"),
            ("1 2", "text after the value"),
            (#""abc"#, "the string does not end"),
            ("\"a\tb\"", "a control character in a string"),
            (#""\x""#, "an unknown escape"),
            (#""\u12""#, #"a \u escape needs 4 hex digits"#),
            (#""\ud83d""#, #"an unpaired surrogate in a \u escape"#),
            (#""\ud83dx""#, #"an unpaired surrogate in a \u escape"#),
            (#""\ud83d\u0041""#, #"an unpaired surrogate in a \u escape"#),
            (#""\ude00""#, #"an unpaired surrogate in a \u escape"#),
            ("\u{FEFF}{}", "unexpected character"),
            ("'a'", "unexpected character"),
        ] as [(String, String)])
    func refuses(_ text: String, reason: String) {
        #expect(throws: JSONParser.Failure.self) { try Self.parse(text) }
        do {
            _ = try Self.parse(text)
        } catch {
            #expect(error.reason == reason, "\(text)")
        }
    }

    @Test func refusesInvalidUTF8InAString() {
        let bytes: [UInt8] = [0x22, 0xC3, 0x28, 0x22]

        #expect(throws: JSONParser.Failure(offset: 0, reason: "the string is not valid UTF-8")) {
            try JSONParser.parse(bytes)
        }
    }

    @Test func refusesNestingDeeperThanItsLimit() throws {
        let deepest =
            String(repeating: "[", count: JSONParser.maximumDepth)
            + String(repeating: "]", count: JSONParser.maximumDepth)
        let deeper = "[" + deepest + "]"

        #expect(throws: Never.self) { try Self.parse(deepest) }
        #expect(throws: JSONParser.Failure(offset: JSONParser.maximumDepth, reason: "nested deeper than 64 levels")) {
            try Self.parse(deeper)
        }
        // A hundred thousand levels: refused at the limit, not by running out of stack.
        #expect(throws: JSONParser.Failure.self) { try Self.parse(String(repeating: "{\"a\":", count: 100_000)) }
    }

    @Test func aFailureSaysWhere() {
        #expect(throws: JSONParser.Failure(offset: 7, reason: "expected a ',' or '}' after the member")) {
            try Self.parse(#"{"a":1 "b":2}"#)
        }
        #expect(
            JSONParser.Failure(offset: 6, reason: "text after the value").description
                == "invalid JSON at byte 6: text after the value")
    }
}
