import Foundation
import Testing

@testable import DeviceLogin

@Suite("AuthorizationRequest (RFC 6749 §4.1.1, RFC 7636 §4.3, OpenID Connect Core §3.1.2.1)")
struct AuthorizationRequestTests {
    private func request(nonce: String? = "n-0S6_WzA2Mj") throws -> AuthorizationRequest {
        AuthorizationRequest(
            clientID: "my app", redirectURI: "http://127.0.0.1:8400/callback", scopes: ["openid", "email"],
            state: "af0ifjsldkj", nonce: nonce, pkce: try PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            resources: ["https://api.example"], additionalParameters: [FormParameter("audience", "x")]
        )
    }

    @Test("the query, byte for byte, in wire order")
    func query() throws {
        let url = try request().url(at: URL(string: "https://a.example/authorize")!)
        #expect(
            url.absoluteString
                == "https://a.example/authorize?response_type=code&client_id=my+app"
                + "&redirect_uri=http%3A%2F%2F127.0.0.1%3A8400%2Fcallback&scope=openid+email&state=af0ifjsldkj"
                + "&nonce=n-0S6_WzA2Mj&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
                + "&code_challenge_method=S256&resource=https%3A%2F%2Fapi.example&audience=x")
    }

    @Test(
        "the endpoint's own query is kept and its fragment dropped (RFC 6749 §3.1)",
        arguments: [
            ("https://a.example/auth?tenant=1", "https://a.example/auth?tenant=1&response_type=code"),
            ("https://a.example/auth?", "https://a.example/auth?response_type=code"),
            ("https://a.example/auth#x", "https://a.example/auth?response_type=code"),
        ])
    func endpointQuery(endpoint: String, prefix: String) throws {
        #expect(try request().url(at: URL(string: endpoint)!).absoluteString.hasPrefix(prefix))
    }

    @Test("a made request: fresh state, verifier and nonce for OpenID scopes only; the secrets are remembered")
    func made() throws {
        let openID = try AuthorizationRequest.make(
            clientID: "c", redirectURI: "http://127.0.0.1/cb", scopes: ["openid"])
        let plain = try AuthorizationRequest.make(clientID: "c", redirectURI: "http://127.0.0.1/cb", scopes: ["repo"])
        #expect(openID.nonce?.utf8.count == 43)
        #expect(plain.nonce == nil)
        #expect(!plain.queryParameters.contains { $0.0 == "nonce" })
        #expect(openID.state != plain.state)
        #expect(openID.pkce.verifier != plain.pkce.verifier)
        #expect(!KnownSecrets.scrub("v=\(openID.pkce.verifier)").contains(openID.pkce.verifier))
    }

    @Test("state matching", arguments: [("af0ifjsldkj", true), ("af0ifjsldk", false), ("AF0IFJSLDKJ", false)])
    func stateMatching(received: String, matches: Bool) throws {
        #expect(try request().matches(state: received) == matches)
        #expect(try !request().matches(state: nil))
    }

    @Test("the token request of the code grant (RFC 6749 §4.1.3), byte for byte, secrets left out of its description")
    func tokenRequest() {
        let message = AuthorizationCodeTokenRequest(
            code: "SplxlOBeZQQYbYS6WxSbIA", redirectURI: "http://127.0.0.1:8400/callback",
            codeVerifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk", resources: ["https://api.example"]
        )
        #expect(
            FormEncoding.encode(message.formParameters)
                == "grant_type=authorization_code&code=SplxlOBeZQQYbYS6WxSbIA"
                + "&redirect_uri=http%3A%2F%2F127.0.0.1%3A8400%2Fcallback"
                + "&code_verifier=dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk&resource=https%3A%2F%2Fapi.example")
        #expect(!message.description.contains("SplxlOBeZQQYbYS6WxSbIA"))
        #expect(!message.description.contains("dBjftJeZ4CVP"))
    }
}
