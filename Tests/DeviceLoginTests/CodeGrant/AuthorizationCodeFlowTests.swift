import DeviceLoginTesting
import Foundation
import Testing

@testable import DeviceLogin

@Suite("AuthorizationCodeFlow: request, wait, token")
struct AuthorizationCodeFlowTests {
    static let endpoints = ServerEndpoints(
        issuer: "https://a.example", deviceAuthorization: URL(string: "https://a.example/device")!,
        token: URL(string: "https://a.example/token")!, isOpenIDProvider: true
    )

    private func flow(_ transport: any HTTPTransport, clock: any Clock<Duration> = SystemTime.clock)
        -> AuthorizationCodeFlow
    {
        AuthorizationCodeFlow(
            endpoints: Self.endpoints, authorizationEndpoint: URL(string: "https://a.example/authorize")!,
            client: ClientConfiguration(clientID: "app"), transport: transport, clock: clock
        )
    }

    /// An unsigned ID token with these claims (the nonce check reads claims only; signatures are checked later).
    private func idToken(_ claims: String) -> String {
        func part(_ text: String) -> String { Base64URL.encode(Array(text.utf8)) }
        return "\(part(#"{"alg":"RS256"}"#)).\(part(claims)).c2ln"
    }

    @Test("the code exchange, byte for byte; the ID token's nonce must be this sign-in's")
    func redeem() async throws {
        let transport = ScriptedTransport(otherwise: { _ in
            HTTPResponse(
                status: 200, headers: [HTTPHeader("Content-Type", "application/json")],
                body: Data(#"{"access_token":"at-123","token_type":"Bearer","expires_in":60}"#.utf8))
        })
        let flow = flow(transport)
        let request = try flow.makeRequest(redirectURI: "http://127.0.0.1:8400/callback")
        #expect(request.scopes.contains("openid"))
        #expect(request.nonce != nil)
        #expect(flow.url(for: request).absoluteString.hasPrefix("https://a.example/authorize?response_type=code"))
        let response = try flow.response(
            pasted: "http://127.0.0.1:8400/callback?code=SplxlOBe&state=\(request.state)", for: request)
        let token = try await flow.redeem(response, for: request)
        #expect(token.accessToken == "at-123")
        let sent = String(decoding: transport.requests[0].body ?? Data(), as: UTF8.self)
        #expect(
            sent == "grant_type=authorization_code&code=SplxlOBe&redirect_uri=http%3A%2F%2F127.0.0.1%3A8400%2Fcallback"
                + "&code_verifier=\(request.pkce.verifier)&client_id=app")
        #expect(transport.requests[0].url.absoluteString == "https://a.example/token")
    }

    @Test(
        "an ID token with another nonce, or none, is refused; the right one passes",
        arguments: [("other", false), (nil, false), ("RIGHT", true)] as [(String?, Bool)])
    func nonce(claim: String?, accepted: Bool) throws {
        let nonce = "n-0S6_WzA2Mj-abcdefghijklmnopqrstuvwxyz01234"
        let claims = claim.map { #"{"sub":"1","nonce":"\#($0 == "RIGHT" ? nonce : $0)"}"# } ?? #"{"sub":"1"}"#
        let token = TokenResponse(accessToken: "a", tokenType: "Bearer", idToken: idToken(claims))
        if accepted {
            #expect(throws: Never.self) { try AuthorizationCodeFlow.checkNonce(of: token, expected: nonce) }
        } else {
            #expect(throws: DeviceLoginError(.invalidIDToken, "")) {
                try AuthorizationCodeFlow.checkNonce(of: token, expected: nonce)
            }
        }
    }

    @Test("invalid_grant at the token endpoint is the server's refusal, with advice")
    func invalidGrant() async throws {
        let transport = ScriptedTransport(otherwise: ScriptedTransport.json(#"{"error":"invalid_grant"}"#, status: 400))
        let flow = flow(transport)
        let request = try flow.makeRequest(redirectURI: "http://127.0.0.1:8400/callback")
        let error = await #expect(throws: DeviceLoginError.self) {
            try await flow.redeem(AuthorizationResponse(code: "c", state: request.state), for: request)
        }
        #expect(error?.code == .oauth)
        #expect(error?.hint?.contains("start the sign-in again") == true)
    }

    @Test("the local deadline: no redirect by the timeout expires the wait, in virtual time, and closes the listener")
    func deadline() async throws {
        let clock = ManualClock()
        let flow = flow(ScriptedTransport(), clock: clock)
        let listener = try LoopbackRedirectListener()
        let request = try flow.makeRequest(redirectURI: listener.redirectURI)
        let waiting = Task { try await flow.waitForRedirect(request, on: listener, timeout: .seconds(300)) }
        await clock.sleepers(atLeast: 1)
        clock.advance(by: .seconds(300))
        await #expect(throws: DeviceLoginError(.expired, "")) { try await waiting.value }
        #expect(!listener.isOpen)
    }

    @Test("an insecure authorization endpoint is refused before anything is shown")
    func insecure() throws {
        let flow = AuthorizationCodeFlow(
            endpoints: Self.endpoints, authorizationEndpoint: URL(string: "http://a.example/authorize")!,
            client: ClientConfiguration(clientID: "app"), transport: ScriptedTransport()
        )
        #expect(throws: DeviceLoginError(.insecureEndpoint, "")) { try flow.makeRequest(redirectURI: "x") }
    }
}

@Suite("AuthorizationCodeFlow.authorizationEndpoint(of:): the metadata a code grant needs")
struct AuthorizationCodeFlowMetadataTests {
    @Test(
        "an authorization endpoint, PKCE S256 and the query response mode; each lack refused, the choice told",
        arguments: [
            (#"{"authorization_endpoint":"https://a.example/a"}"#, nil),
            (#"{"authorization_endpoint":"https://a.example/a","code_challenge_methods_supported":["S256"]}"#, nil),
            (#"{"authorization_endpoint":"https://a.example/a","response_modes_supported":["query","fragment"]}"#, nil),
            (#"{"authorization_endpoint":"https://a.example/a","response_modes_supported":[]}"#, nil),
            (#"{"authorization_endpoint":"https://a.example/a","code_challenge_methods_supported":["plain"]}"#, "S256"),
            (#"{"authorization_endpoint":"https://a.example/a","response_modes_supported":["form_post"]}"#, "query"),
            (#"{"token_endpoint":"https://a.example/t"}"#, "authorization_endpoint"),
        ] as [(String, String?)])
    func metadata(fields: String, refusal: String?) throws {
        let json =
            #"{"issuer":"https://a.example","device_authorization_endpoint":"https://a.example/d","#
            + fields.dropFirst()
        let metadata = try JSONDecoder().decode(AuthorizationServerMetadata.self, from: Data(json.utf8))
        let server = FlowChoice.Server(metadata: metadata)
        #expect(server.hasDeviceEndpoint)
        #expect(server.hasAuthorizationEndpoint == (refusal == nil))
        if let refusal {
            let error = #expect(throws: DeviceLoginError.self) {
                try AuthorizationCodeFlow.authorizationEndpoint(of: metadata)
            }
            #expect(error?.code == .discovery)
            #expect(error?.message.contains(refusal) == true, "\(error?.message ?? "")")
        } else {
            #expect(
                try AuthorizationCodeFlow.authorizationEndpoint(of: metadata).absoluteString == "https://a.example/a")
        }
    }
}
