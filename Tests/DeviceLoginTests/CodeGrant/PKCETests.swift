import Testing

@testable import DeviceLogin

@Suite("PKCE (RFC 7636): S256 only, the verifier's bounds, servers that list methods")
struct PKCETests {
    @Test("RFC 7636 Appendix B: the example verifier gives the example challenge")
    func appendixB() throws {
        let pkce = try PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        #expect(pkce.challenge == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        #expect(PKCE.method == "S256")
        #expect(!pkce.description.contains(pkce.verifier))
    }

    @Test(
        "a verifier of 43 to 128 unreserved characters is taken; anything else is refused",
        arguments: [
            (String(repeating: "a", count: 42), false), (String(repeating: "a", count: 43), true),
            (String(repeating: "~", count: 128), true), (String(repeating: "a", count: 129), false),
            (String(repeating: "a", count: 42) + " ", false), (String(repeating: "a", count: 42) + "+", false),
            (String(repeating: "é", count: 43), false), ("-._~" + String(repeating: "Z9", count: 20), true),
        ])
    func verifierBounds(verifier: String, valid: Bool) throws {
        if valid {
            #expect(try PKCE(verifier: verifier).verifier == verifier)
        } else {
            #expect(throws: DeviceLoginError(.configuration, "")) { try PKCE(verifier: verifier) }
        }
    }

    @Test("a generated pair: 43 unreserved characters (256 bits), its challenge, and never twice the same")
    func generated() throws {
        let first = try PKCE.generate()
        let second = try PKCE.generate()
        #expect(first.verifier.utf8.count == 43)
        #expect(first.verifier.utf8.allSatisfy(PKCE.isUnreserved))
        #expect(try PKCE(verifier: first.verifier).challenge == first.challenge)
        #expect(first.verifier != second.verifier)
    }

    @Test(
        "code_challenge_methods_supported: absent, empty or with S256 is tried; a list without S256 is refused",
        arguments: [
            (nil, true), ([], true), (["S256"], true), (["plain", "S256"], true), (["plain"], false),
            (["s256"], false), (["RS256", "plain"], false),
        ] as [([String]?, Bool)])
    func serverMethods(methods: [String]?, accepted: Bool) {
        if accepted {
            #expect(throws: Never.self) { try PKCE.check(methodsSupported: methods) }
        } else {
            let error = #expect(throws: DeviceLoginError.self) { try PKCE.check(methodsSupported: methods) }
            #expect(error?.code == .discovery)
            #expect(error?.message.contains("not S256") == true)
        }
    }

    @Test("state comparison: equal only when every byte is")
    func constantTimeEquality() {
        #expect(RandomText.equal("abc", "abc"))
        #expect(!RandomText.equal("abc", "abd"))
        #expect(!RandomText.equal("abc", "abcd"))
        #expect(!RandomText.equal("", "a"))
        #expect(RandomText.make(bytes: 32).utf8.count == 43)
    }
}
