import Foundation
import Testing

@testable import DeviceLogin

@Suite("DeviceAuthorizationResponse (RFC 8628 §3.2) and its provider quirks")
struct DeviceAuthorizationResponseTests {
    private let parse = DeviceAuthorizationResponse.decoding

    @Test("the RFC 8628 §3.2 example")
    func rfcExample() throws {
        let response = try parse(
            """
            {"device_code":"GmRhmhcxhwAzkoEqiMEg_DnyEysNkuNhszIySk9eS","user_code":"WDJB-MJHT",
             "verification_uri":"https://example.com/device",
             "verification_uri_complete":"https://example.com/device?user_code=WDJB-MJHT",
             "expires_in":1800,"interval":5}
            """)
        #expect(response.deviceCode == "GmRhmhcxhwAzkoEqiMEg_DnyEysNkuNhszIySk9eS")
        #expect(response.userCode == "WDJB-MJHT")
        #expect(response.verificationURI == "https://example.com/device")
        #expect(response.verificationURIComplete == "https://example.com/device?user_code=WDJB-MJHT")
        #expect(response.expiresIn == 1800)
        #expect(response.effectiveInterval == 5)
        #expect(response.additionalFields.isEmpty)
    }

    @Test("Google and early Microsoft: verification_url")
    func verificationURL() throws {
        let response = try parse(
            """
            {"device_code":"d","user_code":"ABCD-EFGH","verification_url":"https://www.google.com/device",
             "expires_in":1800,"interval":5}
            """)
        #expect(response.verificationURI == "https://www.google.com/device")
        #expect(response.additionalFields["verification_url"] == nil)
    }

    @Test("Microsoft: expires_in and interval as strings, message kept")
    func stringsAndMessage() throws {
        let response = try parse(
            """
            {"device_code":"d","user_code":"FGH","verification_uri":"https://microsoft.com/devicelogin",
             "expires_in":"900","interval":"5","message":"To sign in, use a web browser"}
            """)
        #expect(response.expiresIn == 900)
        #expect(response.interval == 5)
        #expect(response.message == "To sign in, use a web browser")
        #expect(response.additionalFields["message"] == .string("To sign in, use a web browser"))
    }

    @Test(
        "interval missing, 0 or negative means 5 s (RFC 8628 §3.2 default)",
        arguments: [
            "", #","interval":0"#, #","interval":-3"#, #","interval":"0""#, #","interval":"soon""#,
        ])
    func intervalDefault(fragment: String) throws {
        let response = try parse(
            #"{"device_code":"d","user_code":"u","verification_uri":"https://e/d","expires_in":60"#
                + fragment + "}")
        #expect(response.effectiveInterval == 5)
    }

    @Test(
        "a missing required field names it",
        arguments: [
            ("device_code", #"{"user_code":"u","verification_uri":"https://e","expires_in":60}"#),
            ("user_code", #"{"device_code":"d","verification_uri":"https://e","expires_in":60}"#),
            ("verification_uri", #"{"device_code":"d","user_code":"u","expires_in":60}"#),
            ("expires_in", #"{"device_code":"d","user_code":"u","verification_uri":"https://e"}"#),
            ("expires_in", #"{"device_code":"d","user_code":"u","verification_uri":"https://e","expires_in":0}"#),
        ])
    func missingField(field: String, json: String) {
        #expect {
            try parse(json)
        } throws: { error in
            guard let error = error as? DeviceLoginError else { return false }
            return error.code == .invalidResponse && error.message.contains(field)
        }
    }

    @Test("round trip keeps unknown fields; description hides the device code")
    func roundTrip() throws {
        let response = try parse(
            #"{"device_code":"secret-dc","user_code":"U","verification_uri":"https://e/d","#
                + #""expires_in":60,"x_extra":{"a":[1,true,null]}}"#)
        let again = try parse(String(decoding: try JSONEncoder().encode(response), as: UTF8.self))
        #expect(again == response)
        #expect(again.additionalFields["x_extra"] == .object(["a": .array([.number(1), .bool(true), .null])]))
        #expect(!String(describing: response).contains("secret-dc"))
    }

    @Test("Google: verification_url_complete too; the wire form uses the RFC names, byte for byte")
    func googleNamesWrittenAsRFCNames() throws {
        let response = try parse(
            """
            {"device_code":"d","user_code":"ABCD-EFGH","verification_url":"https://www.google.com/device",
             "verification_url_complete":"https://www.google.com/device?user_code=ABCD-EFGH",
             "expires_in":1800,"interval":5}
            """)
        #expect(response.verificationURIComplete == "https://www.google.com/device?user_code=ABCD-EFGH")
        #expect(response.additionalFields.isEmpty)
        #expect(
            try response.wireText == #"{"device_code":"d","expires_in":1800,"interval":5,"user_code":"ABCD-EFGH","#
                + #""verification_uri":"https:\/\/www.google.com\/device","#
                + #""verification_uri_complete":"https:\/\/www.google.com\/device?user_code=ABCD-EFGH"}"#)
    }

    @Test("verification_uri wins over Google's verification_url when both are sent")
    func rfcNameWins() throws {
        let response = try parse(
            #"{"device_code":"d","user_code":"u","verification_uri":"https://e/rfc","#
                + #""verification_url":"https://e/google","expires_in":60}"#)
        #expect(response.verificationURI == "https://e/rfc")
    }

    @Test("Microsoft's strings are written back as numbers; the interval is kept as sent, 0 included")
    func wireFormOfMicrosoftStrings() throws {
        let response = try parse(
            #"{"device_code":"d","user_code":"u","verification_uri":"https://e/d","#
                + #""expires_in":"900","interval":"0","message":"Hi"}"#)
        #expect(response.interval == 0)
        #expect(
            try response.wireText == #"{"device_code":"d","expires_in":900,"interval":0,"message":"Hi","#
                + #""user_code":"u","verification_uri":"https:\/\/e\/d"}"#)
        #expect(
            response
                == DeviceAuthorizationResponse(
                    deviceCode: "d", userCode: "u", verificationURI: "https://e/d", expiresIn: 900, interval: 0,
                    additionalFields: ["message": .string("Hi")]
                ))
    }

    @Test(
        "an expires_in that is no positive whole number below 10^15 is refused",
        arguments: [
            "-60", "1.5", #""soon""#, "1e15", "null",
        ])
    func invalidExpiry(value: String) {
        #expect {
            try parse(
                #"{"device_code":"d","user_code":"u","verification_uri":"https://e","expires_in":"#
                    + value + "}")
        } throws: { error in
            (error as? DeviceLoginError)?.message == "the device authorization response has no valid expires_in"
        }
    }

    // Issue 8: a user code with nothing to show was displayed as "Code: " and polled for.
    @Test(
        "a user code with nothing printable, or too long, is refused",
        arguments: [
            " ", "\\u00a0\\u3000", "\\u3164\\u115f", "\\u200b\\u2060", "\\u2800", "\\u001b",
            String(repeating: "A", count: 65),
        ])
    func invisibleUserCodesAreRefused(code: String) {
        let json = #"{"device_code":"d","user_code":"\#(code)","verification_uri":"https://a/d","expires_in":900}"#
        let error = #expect(throws: DeviceLoginError.self) { try parse(json) }
        #expect(error?.code == .invalidResponse)
        #expect(error?.message.contains("user code") == true)
    }

    // Issue 8: expires_in had no upper bound (1e12 polled "for 2562047788015215 h").
    @Test(
        "expires_in above a day reads as a day", arguments: [(900, 900), (86_400, 86_400), (1_000_000_000_000, 86_400)])
    func deviceLifetimeIsBounded(sent: Int, expected: Int) throws {
        let json =
            #"{"device_code":"d","user_code":"WDJB-MJHT","verification_uri":"https://a/d","expires_in":\#(sent)}"#
        #expect(try parse(json).expiresIn == expected)
    }

    // Issue 17: 1e15 and 3600.5 were unreadable as whole numbers, so they fell back to 5 s: polling faster than asked.
    @Test(
        "an interval above the cap polls at the cap, a fraction rounds up (RFC 8628 §3.5: never faster than asked)",
        arguments: [
            ("3599", 3599), ("3600", 3600), ("3600.5", 3600), ("3601", 3600), ("1e15", 3600),
            ("1.7976931348623157e308", 3600), ("2.5", 3), ("3599.5", 3600), (#""3600.5""#, 3600),
            (#""1e15""#, 3600), (#""1000000000000000000000""#, 3600), (#""Infinity""#, 3600), (#""inf""#, 3600),
            (#""2.5""#, 3), (#""nan""#, 5), (#""-inf""#, 5),
        ] as [(String, Int)])
    func intervalAboveTheCapIsTheCap(interval: String, expected: Int) throws {
        let json =
            #"{"device_code":"d","user_code":"u","verification_uri":"https://e/d","expires_in":60,"interval":"#
            + interval + "}"
        #expect(try parse(json).effectiveInterval == expected)
    }
}
