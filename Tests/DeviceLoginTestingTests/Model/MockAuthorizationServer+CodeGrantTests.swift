import DeviceLogin
import Foundation
import Testing

@testable import DeviceLoginTesting

/// The mock's code grant: the library's `AuthorizationCodeFlow` signs in against it in process, and each rule a
/// client can break is refused and counted.
@Suite("MockAuthorizationServer: the authorization code grant with PKCE, state and exact redirect URIs")
struct MockAuthorizationServerCodeGrantTests {
    typealias Server = MockAuthorizationServer
    static let redirect = "http://127.0.0.1:8400/callback"

    struct Bench {
        let server: Server
        let transport: InProcessTransport
        let flow: AuthorizationCodeFlow

        static func make(_ settings: Server.CodeGrantSettings = .init(), dpop: DPoPProver? = nil) async throws -> Bench
        {
            var configuration = Server.Configuration()
            configuration.codeGrant = settings
            configuration.clients[0].redirectURIs = ["http://127.0.0.1/callback"]
            let server = Server(configuration: configuration, clock: ManualClock())
            let transport = InProcessTransport(server: server)
            let metadata = try await Self.metadata(of: server)
            let flow = AuthorizationCodeFlow(
                endpoints: try server.endpoints(),
                authorizationEndpoint: try #require(metadata.authorizationEndpoint.flatMap(URL.init(string:))),
                issuerInResponse: metadata.authorizationResponseIssuerSupported == true,
                client: ClientConfiguration(
                    clientID: Server.Configuration.defaultClientID, allowInsecureHTTP: true, dpop: dpop),
                transport: transport
            )
            return Bench(server: server, transport: transport, flow: flow)
        }

        static func metadata(of server: Server) async throws -> AuthorizationServerMetadata {
            let url = try #require(URL(string: server.issuer + "/.well-known/openid-configuration"))
            let response = try #require(await server.handle(HTTPRequest(method: .get, url: url)).response)
            return try JSONDecoder().decode(AuthorizationServerMetadata.self, from: response.body)
        }

        /// What the browser is sent to by `url`: the redirect's `Location`.
        func follow(_ url: URL) async throws -> (status: Int, location: String?) {
            let response = try await transport.send(HTTPRequest(method: .get, url: url))
            return (response.status, response.header("Location"))
        }

        /// `url` with its query parameters changed by `change`.
        func changing(_ url: URL, _ change: (inout [(String, String)]) -> Void) -> URL {
            let text = url.absoluteString
            let split = text.split(separator: "?", maxSplits: 1)
            var pairs = FormEncoding.decode(String(split[1]))
            change(&pairs)
            return URL(string: split[0] + "?" + FormEncoding.encode(pairs))!
        }
    }

    @Test("a sign-in: the redirect carries code, state and iss; the code, verifier and nonce give tokens; no violation")
    func signIn() async throws {
        let bench = try await Bench.make()
        let request = try bench.flow.makeRequest(redirectURI: Self.redirect)
        let (status, location) = try await bench.follow(bench.flow.url(for: request))
        #expect(status == 302)
        let response = try bench.flow.response(pasted: try #require(location), for: request)
        #expect(response.issuer == bench.server.issuer)
        let token = try await bench.flow.redeem(response, for: request)
        #expect(token.refreshToken != nil)
        #expect(token.idToken != nil) // carries the nonce: redeem() checked it
        #expect(bench.server.violations.isEmpty)
        // The same code a second time: refused and counted.
        await #expect(throws: DeviceLoginError(.oauth, "")) { try await bench.flow.redeem(response, for: request) }
        #expect(bench.server.violations.map(\.description).contains { $0.contains("a second time") })
    }

    @Test(
        "authorization requests that break a rule are refused and counted",
        arguments: [
            ("code_challenge", nil, "no PKCE"), ("code_challenge_method", "plain", "not S256"),
            ("state", nil, "no state"), ("redirect_uri", "http://127.0.0.1:8400/other", "not one registered"),
            ("redirect_uri", "https://evil.example/callback", "not one registered"),
        ] as [(String, String?, String)])
    func brokenRules(name: String, value: String?, rule: String) async throws {
        let bench = try await Bench.make()
        let request = try bench.flow.makeRequest(redirectURI: Self.redirect)
        let url = bench.changing(bench.flow.url(for: request)) { pairs in
            pairs.removeAll { $0.0 == name }
            if let value { pairs.append((name, value)) }
        }
        let (status, location) = try await bench.follow(url)
        #expect(status == 302 || status == 400)
        #expect(location?.contains("code=") != true)
        #expect(bench.server.violations.count == 1)
        #expect(bench.server.violations.first?.description.contains(rule) == true)
    }

    @Test("a wrong verifier or redirect URI at the token endpoint is invalid_grant, counted")
    func wrongExchange() async throws {
        let bench = try await Bench.make()
        let request = try bench.flow.makeRequest(redirectURI: Self.redirect)
        let (_, location) = try await bench.follow(bench.flow.url(for: request))
        let response = try bench.flow.response(pasted: try #require(location), for: request)
        var other = request
        other.pkce = try PKCE.generate()
        await #expect(throws: DeviceLoginError(.oauth, "")) { try await bench.flow.redeem(response, for: other) }
        var moved = request
        moved.redirectURI = "http://127.0.0.1:8401/callback"
        await #expect(throws: DeviceLoginError(.oauth, "")) { try await bench.flow.redeem(response, for: moved) }
        #expect(bench.server.violations.count == 2)
        // The right exchange still works: the code was not spent by the refusals.
        _ = try await bench.flow.redeem(response, for: request)
    }

    @Test("a declined sign-in redirects with access_denied, which the flow reports as a denial")
    func declined() async throws {
        let bench = try await Bench.make(Server.CodeGrantSettings(approves: false))
        let request = try bench.flow.makeRequest(redirectURI: Self.redirect)
        let (_, location) = try await bench.follow(bench.flow.url(for: request))
        #expect(throws: DeviceLoginError(.accessDenied, "")) {
            try bench.flow.response(pasted: try #require(location), for: request)
        }
    }

    @Test("without code-grant settings there is no authorization endpoint, in the metadata or on the wire")
    func absent() async throws {
        let server = Server()
        let metadata = try await Bench.metadata(of: server)
        #expect(metadata.authorizationEndpoint == nil)
        let page = await server.handle(HTTPRequest(method: .get, url: URL(string: server.issuer + "/authorize")!))
        #expect(page.response?.status == 404)
    }

    @Test("with a DPoP key the code exchange is proven and the tokens are bound to the key (RFC 9449 §10)")
    func dpopBindsTheExchange() async throws {
        let prover = try DPoPProver(key: try ECP256PrivateKey.generate())
        let bench = try await Bench.make(dpop: prover)
        let request = try bench.flow.makeRequest(redirectURI: Self.redirect)
        let (_, location) = try await bench.follow(bench.flow.url(for: request))
        let response = try bench.flow.response(pasted: try #require(location), for: request)
        let token = try await bench.flow.redeem(response, for: request)
        #expect(token.tokenType == "DPoP")
        let exchange = try #require(bench.server.requests.last { $0.endpoint == .token })
        #expect(exchange.grantType == "authorization_code")
        #expect(exchange.dpop?.verdict == .accepted)
        #expect(exchange.dpop?.thumbprint == prover.thumbprint)
        #expect(bench.server.violations.isEmpty)
    }
}
