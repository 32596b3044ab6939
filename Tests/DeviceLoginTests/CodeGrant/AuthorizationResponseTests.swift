import Testing

@testable import DeviceLogin

@Suite("AuthorizationResponse (RFC 6749 §4.1.2, RFC 9207): the redirect, pasted or received")
struct AuthorizationResponseTests {
    private let expected = AuthorizationResponse.Expectation(
        state: "xyz", issuer: "https://a.example", redirectURI: "http://127.0.0.1:8400/callback"
    )

    @Test(
        "what a person may paste: the whole address (extra parameters, a fragment, spaces), its query, the code alone",
        arguments: [
            ("http://127.0.0.1:8400/callback?code=SplxlOBe&state=xyz", "SplxlOBe", "xyz"),
            ("  http://127.0.0.1:8400/callback?code=SplxlOBe&state=xyz&session_state=abc.def\n", "SplxlOBe", "xyz"),
            ("http://127.0.0.1:8400/callback?state=xyz&code=Splx%2FlOBe#_=_", "Splx/lOBe", "xyz"),
            ("HTTP://127.0.0.1:8400/callback?code=c&state=xyz&iss=https%3A%2F%2Fa.example", "c", "xyz"),
            ("?code=c1&state=xyz", "c1", "xyz"), ("code=c2&state=xyz", "c2", "xyz"),
            ("4/0AeanS0ZwAbc-_", "4/0AeanS0ZwAbc-_", nil),
        ] as [(String, String, String?)])
    func pasted(text: String, code: String, state: String?) throws {
        let response = try AuthorizationResponse.parse(pasted: text, expecting: expected)
        #expect(response.code == code)
        #expect(response.state == state)
    }

    @Test(
        "what is refused, and as what",
        arguments: [
            ("code=c&state=abc", "not this sign-in's"),
            ("code=c", "no state"),
            ("code=c&state=xyz&state=xyz", "more than once"),
            ("code=c&code=d&state=xyz", "more than once"),
            ("state=xyz", "no code"),
            ("code=a%20b&state=xyz", "malformed"),
            ("http://127.0.0.1:8401/callback?code=c&state=xyz", "not this sign-in's redirect"),
            ("http://127.0.0.1:8400/other?code=c&state=xyz", "not this sign-in's redirect"),
            ("https://evil.example/callback?code=c&state=xyz", "not this sign-in's redirect"),
            ("http://127.0.0.1:8400/callback#code=c&state=xyz", "no state"),
            ("code=c&state=xyz&iss=https%3A%2F%2Fevil.example", "is not the issuer"),
            ("two words", "neither"),
            ("", "neither"),
            (String(repeating: "a", count: 8193), "longer than 8192"),
            (String(repeating: "a", count: 2049), "neither"),
        ])
    func refused(text: String, message: String) {
        let error = #expect(throws: DeviceLoginError.self) {
            try AuthorizationResponse.parse(pasted: text, expecting: expected)
        }
        #expect(error?.code == .invalidResponse)
        #expect(error?.message.contains(message) == true, "\(error?.message ?? "")")
    }

    @Test("access_denied is a denial, its description sanitised; another error is the server's")
    func errors() {
        let denied = #expect(throws: DeviceLoginError.self) {
            try AuthorizationResponse.parse(
                query: "error=access_denied&error_description=User+said+%1B%5B31mno&state=xyz", expecting: expected)
        }
        #expect(denied?.code == .accessDenied)
        #expect(denied?.oauthError?.code == .accessDenied)
        #expect(denied?.message.contains("\u{1B}") == false)
        #expect(denied?.message.contains("User said") == true)
        let other = #expect(throws: DeviceLoginError.self) {
            try AuthorizationResponse.parse(query: "error=invalid_scope", expecting: expected)
        }
        #expect(other?.code == .oauth)
        #expect(other?.oauthError?.code == .invalidScope)
        // An error for another sign-in's state is refused as that, not believed.
        let forged = #expect(throws: DeviceLoginError.self) {
            try AuthorizationResponse.parse(query: "error=access_denied&state=abc", expecting: expected)
        }
        #expect(forged?.code == .invalidResponse)
    }

    @Test(
        "iss (RFC 9207): checked when sent, required when the server advertises it",
        arguments: [
            ("code=c&state=xyz", false, true), ("code=c&state=xyz", true, false),
            ("code=c&state=xyz&iss=https%3A%2F%2Fa.example", true, true),
            ("code=c&state=xyz&iss=https%3A%2F%2Fa.example%2F", false, false),
        ])
    func issuer(query: Substring, required: Bool, accepted: Bool) {
        var expectation = expected
        expectation.issuerRequired = required
        if accepted {
            #expect(throws: Never.self) { try AuthorizationResponse.parse(query: query, expecting: expectation) }
        } else {
            #expect(throws: DeviceLoginError(.invalidResponse, "")) {
                try AuthorizationResponse.parse(query: query, expecting: expectation)
            }
        }
    }
}
