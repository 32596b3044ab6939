import DeviceLogin
import Foundation
import Testing

@testable import DeviceLoginTesting

/// The JSON the mock server sends: the core's one writer, so its bytes are stable for exact wire assertions.
@Suite("WireWriter.jsonData")
struct WireWriterTests {
    @Test("compact, keys sorted, slashes left alone, whole numbers without a fraction")
    func shape() {
        let object: JSONObject = [
            "url": .string("https://a.test/b"), "count": .number(3), "ratio": .number(0.5), "ok": .bool(true),
            "none": .null, "list": .array([.string("x"), .number(-1)]),
            "nested": .object(["b": .null, "a": .bool(false)]),
        ]
        #expect(
            String(decoding: WireWriter.jsonData(object), as: UTF8.self) == """
                {"count":3,"list":["x",-1],"nested":{"a":false,"b":null},"none":null,"ok":true,"ratio":0.5,\
                "url":"https://a.test/b"}
                """)
    }

    @Test("strings escape quotes, backslashes and control characters; other visible text passes as UTF-8")
    func escaping() throws {
        let tricky = "quote \" backslash \\ newline \n tab \t bell \u{07} é ☃"
        let data = WireWriter.jsonData(["text": .string(tricky)])
        #expect(
            String(decoding: data, as: UTF8.self)
                == #"{"text":"quote \" backslash \\ newline \n tab \t bell \u0007 é ☃"}"#)
        #expect(try JSONDecoder().decode(JSONObject.self, from: data) == ["text": .string(tricky)])
    }

    // The kit wrote these raw before it shared the core's writer, and a whole number of 10^15 or more with `.0`.
    @Test("the one rule for unsafe characters: bidi, zero-width, separators, other spaces escaped; the value the same")
    func unsafeCharacters() throws {
        let tricky = "bidi \u{202E} zero width \u{200B} separator \u{2028} no-break\u{A0}space backspace \u{8}"
        let data = WireWriter.jsonData(["text": .string(tricky), "big": .number(1e15)])
        #expect(
            String(decoding: data, as: UTF8.self)
                == #"{"big":1000000000000000,"text":"bidi \u202E zero width \u200B separator \u2028 no-break\u00A0space "#
                + #"backspace \b"}"#)
        #expect(
            try JSONDecoder().decode(JSONObject.self, from: data) == ["text": .string(tricky), "big": .number(1e15)])
    }
}
