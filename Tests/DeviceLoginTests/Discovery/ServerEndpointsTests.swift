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
}
