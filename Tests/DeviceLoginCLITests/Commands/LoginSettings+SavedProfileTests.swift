import DeviceLogin
import Foundation
import Testing

@testable import DeviceLoginCLI

@Suite("LoginSettings from a saved profile: the same server and client, no discovery")
struct LoginSettingsSavedProfileTests {
    private static func url(_ text: String) throws -> URL {
        try #require(URL(string: text))
    }

    private static func endpoints(_ base: String) throws -> ServerEndpoints {
        ServerEndpoints(
            issuer: base, deviceAuthorization: try url(base + "/device"), token: try url(base + "/token"),
            revocation: try url(base + "/revoke"), userinfo: try url(base + "/userinfo"), isOpenIDProvider: true)
    }

    @Test("the profile's name, issuer, client and endpoints; its secret stored again only if it was")
    func fields() throws {
        for storedSecret in [nil, "s3cret"] as [String?] {
            let profile = try Profile(
                name: "work", issuer: "https://auth.example.test",
                endpoints: try Self.endpoints("https://auth.example.test"), clientID: "cli",
                scopes: ["openid", "offline_access"], resources: ["https://k8s.example.test"],
                clientAuthentication: storedSecret == nil ? .none : .clientSecretBasic, clientSecret: storedSecret)
            let client = try profile.clientConfiguration()
            let settings = LoginSettings(signingInAgain: profile, client: client, caFile: "/etc/ca.pem")
            #expect(settings.profile == "work")
            #expect(settings.issuer == "https://auth.example.test")
            #expect(settings.client == client)
            #expect(settings.client.scopes == ["openid", "offline_access"])
            #expect(settings.client.resources == ["https://k8s.example.test"])
            #expect(settings.savedEndpoints == profile.endpoints)
            #expect(settings.caFile == "/etc/ca.pem")
            #expect(settings.store && !settings.json && settings.bindings.isEmpty && settings.username == nil)
            #expect(settings.storeSecret == (storedSecret != nil))
        }
    }

    @Test("the saved endpoints are used without a request")
    func noDiscovery() async throws {
        let saved = try Self.endpoints("https://auth.example.test")
        let profile = try Profile(name: "work", issuer: "https://auth.example.test", endpoints: saved, clientID: "cli")
        let settings = LoginSettings(signingInAgain: profile, client: try profile.clientConfiguration(), caFile: nil)
        let transport = StubTransport()
        #expect(try await settings.resolveEndpoints(transport: transport) == saved)
        #expect(transport.requests.isEmpty)
    }

    @Test("the HTTPS policy still applies to saved endpoints")
    func httpsPolicy() async throws {
        let profile = try Profile(
            name: "work", endpoints: try Self.endpoints("http://auth.example.test"), clientID: "cli")
        let settings = LoginSettings(signingInAgain: profile, client: try profile.clientConfiguration(), caFile: nil)
        await #expect {
            _ = try await settings.resolveEndpoints(transport: StubTransport())
        } throws: { error in
            (error as? DeviceLoginError)?.code == .insecureEndpoint
        }
    }
}
