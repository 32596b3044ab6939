import Foundation
import Testing

@testable import DeviceLogin

@Suite("WireKind: each lenient reader, its bounds and its provider quirks")
struct WireKindTests {
    @Test(
        "integer: whole numbers below 10^15; strings holding one (Microsoft v1, GitHub form bodies)",
        arguments: [
            (JSONValue.number(3600), 3600), (.number(-5), -5), (.number(4.0), 4),
            (.number(999_999_999_999_999), 999_999_999_999_999), (.number(1e15), nil), (.number(-1e15), nil),
            (.number(4.5), nil), (.number(.infinity), nil), (.number(.nan), nil),
            (.string("900"), 900), (.string(" 5 "), 5), (.string("5.0"), 5), (.string("1e3"), 1000),
            (.string("999999999999999"), 999_999_999_999_999), (.string("1000000000000000"), nil),
            (.string("-1000000000000000"), nil), (.string("9223372036854775807"), nil),
            (.string("-9223372036854775808"), nil), (.string("99999999999999999999"), nil), (.string("1e300"), nil),
            (.string("soon"), nil), (.string(""), nil),
            (.bool(true), nil), (.null, nil), (.array([.number(1)]), nil),
        ] as [(JSONValue, Int?)])
    func integer(value: JSONValue, expected: Int?) {
        #expect(WireKind.integer.read(value) == expected)
    }

    @Test(
        "waitSeconds: rounded up, anything above the cap (infinity included) is the cap, NaN is unreadable",
        arguments: [
            (JSONValue.number(5), 5), (.number(2.5), 3), (.number(3600), 3600), (.number(3600.5), 3600),
            (.number(1e15), 3600), (.number(.greatestFiniteMagnitude), 3600), (.number(.infinity), 3600),
            (.number(0), 0), (.number(-3), -3), (.number(-1e15), -3600), (.number(-.infinity), -3600),
            (.number(.nan), nil), (.string("3600.5"), 3600), (.string(" 1e15 "), 3600), (.string("Infinity"), 3600),
            (.string("nan"), nil), (.string("soon"), nil), (.string(""), nil), (.bool(true), nil), (.null, nil),
        ] as [(JSONValue, Int?)])
    func waitSeconds(value: JSONValue, expected: Int?) {
        #expect(WireKind.waitSeconds(atMost: 3600).read(value) == expected)
    }

    @Test("integer is written as a JSON number")
    func integerWrite() {
        #expect(WireKind.integer.write(60) == .number(60))
    }

    @Test(
        "string: non-empty; numbers and booleans as their JSON text",
        arguments: [
            (JSONValue.string("x"), "x"), (.string(""), nil), (.number(42), "42"), (.number(1.5), "1.5"),
            (.bool(false), "false"), (.null, nil), (.array([.string("x")]), nil), (.object([:]), nil),
        ] as [(JSONValue, String?)])
    func string(value: JSONValue, expected: String?) {
        #expect(WireKind.string.read(value) == expected)
    }

    @Test(
        "boolean: JSON booleans, and \"true\"/\"false\" as strings (AWS Cognito)",
        arguments: [
            (JSONValue.bool(true), true), (.bool(false), false), (.string("true"), true), (.string("false"), false),
            (.string("TRUE"), nil), (.string("yes"), nil), (.number(1), nil), (.null, nil),
        ] as [(JSONValue, Bool?)])
    func boolean(value: JSONValue, expected: Bool?) {
        #expect(WireKind.boolean.read(value) == expected)
    }

    @Test(
        "numericDate: Unix seconds with fractions, also as a string; never infinite",
        arguments: [
            (JSONValue.number(1_700_000_000), 1_700_000_000.0), (.number(1_700_000_000.5), 1_700_000_000.5),
            (.string(" 1700000000 "), 1_700_000_000.0), (.number(.infinity), nil), (.string("inf"), nil),
            (.string("tomorrow"), nil), (.bool(true), nil),
        ] as [(JSONValue, Double?)])
    func numericDate(value: JSONValue, seconds: Double?) {
        #expect(WireKind.numericDate.read(value) == seconds.map(Date.init(timeIntervalSince1970:)))
    }

    @Test("numericDate is written as a JSON number of Unix seconds")
    func numericDateWrite() {
        #expect(WireKind.numericDate.write(Date(timeIntervalSince1970: 1_700_000_000.25)) == .number(1_700_000_000.25))
    }

    @Test(
        "stringList: an array (numbers as text, other members dropped) or a space-separated string",
        arguments: [
            (JSONValue.array([.string("openid"), .string("email")]), ["openid", "email"]),
            (.array([.string("a"), .number(1), .null, .object([:])]), ["a", "1"]),
            (.string("openid  email profile"), ["openid", "email", "profile"]), (.string(""), []), (.array([]), []),
            (.number(1), nil), (.null, nil),
        ] as [(JSONValue, [String]?)])
    func stringList(value: JSONValue, expected: [String]?) {
        #expect(WireKind.stringList.read(value) == expected)
    }

    @Test("stringList is written as an array; an audience of one as a string (RFC 7519 §4.1.3)")
    func listWrites() {
        #expect(WireKind.stringList.write(["a"]) == .array([.string("a")]))
        #expect(WireKind.audience.write(["cli"]) == .string("cli"))
        #expect(WireKind.audience.write(["cli", "api"]) == .array([.string("cli"), .string("api")]))
        #expect(WireKind.audience.write([]) == .array([]))
    }

    @Test("requiring: a value that fails the check reads as unreadable")
    func requiring() {
        let positive = WireKind.integer.requiring { $0 > 0 }
        #expect(positive.read(.number(1)) == 1)
        #expect(positive.read(.number(0)) == nil)
        #expect(positive.read(.string("-3")) == nil)
    }

    @Test("first: the first of several names that holds a readable value")
    func first() {
        let object: JSONObject = ["a": .string(""), "b": .string("x"), "c": .string("y")]
        #expect(WireKind.string.first(["a", "b", "c"], in: object) == "x")
        #expect(WireKind.string.first(["z"], in: object) == nil)
    }
}
