import Foundation
import Testing

@testable import DeviceLogin

@Suite("ServerEndpoints: what discovery keeps, and what a profile stores")
struct ServerEndpointsTests {
    private func metadata(scopes: [String]?) -> AuthorizationServerMetadata {
        AuthorizationServerMetadata(
            issuer: "https://a.example", deviceAuthorizationEndpoint: "https://a.example/device",
            tokenEndpoint: "https://a.example/token", scopesSupported: scopes)
    }

    @Test("scopes_supported is kept from discovery, and absent stays absent")
    func scopesFromDiscovery() throws {
        let listed = try ServerEndpoints(metadata: metadata(scopes: ["openid", "email"]))
        #expect(listed.scopesSupported == ["openid", "email"])
        #expect(try ServerEndpoints(metadata: metadata(scopes: nil)).scopesSupported == nil)
    }

    @Test("a list longer than the bound is cut, keeping offline_access when the server listed it")
    func boundedScopes() throws {
        let long = (0..<1000).map { "s\($0)" } + ["offline_access"]
        let kept = try #require(try ServerEndpoints(metadata: metadata(scopes: long)).scopesSupported)
        #expect(kept.count == ServerEndpoints.maximumScopesSupported)
        #expect(kept.contains("offline_access"))
        let without = try #require(
            try ServerEndpoints(metadata: metadata(scopes: Array(long.dropLast()))).scopesSupported)
        #expect(without.count == ServerEndpoints.maximumScopesSupported && !without.contains("offline_access"))
    }

    @Test("a profile stores the list as scopes_supported, and one stored without it reads back as nil")
    func storedForm() throws {
        let endpoints = try ServerEndpoints(metadata: metadata(scopes: ["openid"]))
        let stored = try JSONEncoder().encode(endpoints)
        #expect(String(decoding: stored, as: UTF8.self).contains(#""scopes_supported":["openid"]"#))
        #expect(try JSONDecoder().decode(ServerEndpoints.self, from: stored) == endpoints)
        let older = Data(
            (#"{"device_authorization_endpoint":"https://a.example/d","token_endpoint":"https://a.example/t","#
                + #""openid_provider":true}"#).utf8)
        #expect(try JSONDecoder().decode(ServerEndpoints.self, from: older).scopesSupported == nil)
    }

    @Test("a server with only the code grant: no device endpoint, the authorization endpoint and RFC 9207 kept")
    func codeGrantOnly() throws {
        var metadata = AuthorizationServerMetadata(
            issuer: "https://a.example", tokenEndpoint: "https://a.example/token")
        metadata.authorizationEndpoint = "https://a.example/authorize"
        metadata.codeChallengeMethodsSupported = ["S256"]
        metadata.authorizationResponseIssuerSupported = true
        func vetted() -> URL? { try? AuthorizationCodeFlow.authorizationEndpoint(of: metadata) }
        let endpoints = try ServerEndpoints(metadata: metadata, authorization: vetted())
        #expect(endpoints.deviceAuthorization == nil)
        #expect(endpoints.authorization?.absoluteString == "https://a.example/authorize")
        #expect(endpoints.issuerInAuthorizationResponse)
        #expect(FlowChoice.Server(endpoints: endpoints).flows == [.browser, .paste])
        let missing = try #require(throws: DeviceLoginError.self) { try endpoints.requireDeviceAuthorization() }
        #expect(missing.reason == .missingEndpoint(.deviceAuthorization))
        // Stored and read back: the same endpoints; no device endpoint written.
        let data = try JSONEncoder().encode(endpoints)
        #expect(!String(decoding: data, as: UTF8.self).contains("device_authorization_endpoint"))
        #expect(try JSONDecoder().decode(ServerEndpoints.self, from: data) == endpoints)
        // An authorization endpoint the grant may not use (plain PKCE only) is no endpoint at all: then neither.
        metadata.codeChallengeMethodsSupported = ["plain"]
        #expect(vetted() == nil)
        let neither = try #require(throws: DeviceLoginError.self) {
            try ServerEndpoints(metadata: metadata, authorization: vetted())
        }
        #expect(neither.reason == .missingEndpoint(.deviceAuthorization))
    }

    @Test("a copy is a value: a field changed on it leaves the original as it was (shared until then)")
    func copiesAreValues() throws {
        let original = try ServerEndpoints(metadata: metadata(scopes: ["openid"]))
        let openID = original.isOpenIDProvider
        var copy = original
        #expect(copy == original)
        copy.issuer = "https://b.example"
        copy.deviceAuthorization = URL(string: "https://b.example/device")
        copy.token = try #require(URL(string: "https://b.example/token"))
        copy.revocation = URL(string: "https://b.example/revoke")
        copy.isOpenIDProvider = !openID
        copy.scopesSupported = nil
        #expect(original.issuer == "https://a.example")
        #expect(original.deviceAuthorization?.absoluteString == "https://a.example/device")
        #expect(original.token.absoluteString == "https://a.example/token")
        #expect(original.revocation == nil)
        #expect(original.isOpenIDProvider == openID)
        #expect(original.scopesSupported == ["openid"])
        #expect(copy.token.absoluteString == "https://b.example/token")
        #expect(copy != original)
        // Equal, and hashed alike, when the fields are, shared or not.
        let again = try ServerEndpoints(metadata: metadata(scopes: ["openid"]))
        #expect(again == original)
        #expect(Set([original, again, copy]).count == 2)
    }
}
