import DeviceLogin
import DeviceLoginTesting
import Foundation
import Testing

@Suite("ResolvedProvider: what a preset knows before any request, and a sign-in with it")
struct ResolvedProviderTests {
    @Test("scopes Google's device flow refuses, in the order given")
    func unsupportedScopes() throws {
        let google = try ProviderPreset.google.resolve()
        #expect(google.unsupportedScopes(["openid", "email"]).isEmpty)
        #expect(
            google.unsupportedScopes(["https://www.googleapis.com/auth/drive", "openid", "offline_access"])
                == ["https://www.googleapis.com/auth/drive", "offline_access"])
        #expect(try ProviderPreset.github.resolve().unsupportedScopes(["repo", "anything"]).isEmpty)
    }

    @Test("Auth0 without audience: the parameter is missing; with it, nothing is")
    func missingParameters() throws {
        let auth0 = try ProviderPreset.auth0.resolve([.domain: "t.auth0.com"])
        #expect(auth0.missingParameters([]) == ["audience"])
        #expect(auth0.missingParameters(["organization"]) == ["audience"])
        #expect(auth0.missingParameters(["audience"]).isEmpty)
        #expect(try ProviderPreset.okta.resolve([.domain: "d.okta.com"]).missingParameters([]).isEmpty)
    }

    @Test("discovery URLs for an issuer; none without one")
    func discoveryURLs() throws {
        let keycloak = try ProviderPreset.keycloak.resolve([.host: "https://sso.example.com", .realm: "ops"])
        #expect(
            keycloak.discoveryURLs.map(\.absoluteString) == [
                "https://sso.example.com/realms/ops/.well-known/openid-configuration",
                "https://sso.example.com/.well-known/oauth-authorization-server/realms/ops",
                "https://sso.example.com/.well-known/openid-configuration/realms/ops",
            ])
        #expect(try ProviderPreset.github.resolve().discoveryURLs.isEmpty)
    }

    @Test("endpoints without discovery for GitHub and multi-tenant Microsoft; not for a preset with an issuer")
    func endpointsWithoutDiscovery() throws {
        let github = try #require(try ProviderPreset.github.resolve().endpointsWithoutDiscovery)
        #expect(github.deviceAuthorization?.absoluteString == "https://github.com/login/device/code")
        #expect(github.revocation == nil && github.userinfo == nil)
        let microsoft = try #require(try ProviderPreset.microsoft.resolve().endpointsWithoutDiscovery)
        #expect(microsoft.userinfo?.absoluteString == "https://graph.microsoft.com/oidc/userinfo")
        #expect(try ProviderPreset.gitlab.resolve().endpointsWithoutDiscovery == nil)
    }

    @Test("an embedder signs in to a GitHub-dialect mock with the preset's endpoints, no discovery")
    func signInWithGitHub() async throws {
        let clock = ManualClock()
        let server = MockAuthorizationServer(
            configuration: MockAuthorizationServer.Configuration(
                issuer: "https://ghe.example.com",
                paths: MockAuthorizationServer.Paths(
                    deviceAuthorization: "/login/device/code", token: "/login/oauth/access_token"),
                dialect: .github, interval: 1, defaultScript: .approve(after: .zero)),
            clock: clock)
        let provider = try ProviderPreset.github.resolve([.host: "ghe.example.com"])
        let endpoints = try #require(provider.endpointsWithoutDiscovery)
        let flow = DeviceFlow(
            endpoints: endpoints,
            client: ClientConfiguration(
                clientID: MockAuthorizationServer.Configuration.defaultClientID, scopes: provider.defaultScopes),
            transport: InProcessTransport(server: server), clock: clock)
        let token = try await clock.withAutoAdvance { try await flow.run() }
        #expect(!token.accessToken.isEmpty)
        #expect(token.tokenType.lowercased() == "bearer")
        #expect(server.requests.map(\.endpoint).allSatisfy { $0 == .deviceAuthorization || $0 == .token })
    }
}
