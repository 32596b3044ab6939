import DeviceLogin
import Foundation
import Testing

@testable import DeviceLoginTesting

@Suite("JSONText")
struct JSONTextTests {
    @Test("compact, keys sorted, slashes left alone, whole numbers without a fraction")
    func shape() {
        let object: JSONObject = [
            "url": .string("https://a.test/b"), "count": .number(3), "ratio": .number(0.5), "ok": .bool(true),
            "none": .null, "list": .array([.string("x"), .number(-1)]),
            "nested": .object(["b": .null, "a": .bool(false)]),
        ]
        #expect(
            String(decoding: JSONText.data(object), as: UTF8.self) == """
                {"count":3,"list":["x",-1],"nested":{"a":false,"b":null},"none":null,"ok":true,"ratio":0.5,\
                "url":"https://a.test/b"}
                """)
    }

    @Test("strings escape quotes, backslashes and control characters; other text passes as UTF-8")
    func escaping() throws {
        let tricky = "quote \" backslash \\ newline \n tab \t bell \u{07} é ☃"
        let data = JSONText.data(["text": .string(tricky)])
        #expect(
            String(decoding: data, as: UTF8.self)
                == #"{"text":"quote \" backslash \\ newline \n tab \t bell \u0007 é ☃"}"#)
        #expect(try JSONDecoder().decode(JSONObject.self, from: data) == ["text": .string(tricky)])
    }
}
