import Foundation
import Testing

@testable import DeviceLogin

@Suite("ClientConfiguration: wire form of requests, byte for byte")
struct ClientConfigurationTests {
    private let endpoint = URL(string: "https://auth.example.com/oauth/device")!

    @Test("a public client: client_id in the body, Accept: application/json always")
    func publicClient() {
        let client = ClientConfiguration(clientID: "my app")
        let message = DeviceAuthorizationRequest(
            scopes: ["openid", "profile", "offline_access"], resources: ["https://api.example.com/"],
            additionalParameters: [FormParameter("audience", "https://api")]
        )
        let request = client.formRequest(to: endpoint, parameters: message.formParameters)
        #expect(request.method == .post)
        #expect(
            request.bodyText == "scope=openid+profile+offline_access&resource=https%3A%2F%2Fapi.example.com%2F"
                + "&audience=https%3A%2F%2Fapi&client_id=my+app")
        #expect(request.header("content-type") == "application/x-www-form-urlencoded")
        #expect(request.header("Accept") == "application/json")
        #expect(request.header("Authorization") == nil)
    }

    @Test("client_secret_basic: form-encoded id and secret, then base64 (RFC 6749 §2.3.1)")
    func basic() {
        let client = ClientConfiguration(clientID: "id:1", authentication: .clientSecretBasic(secret: "s p&c"))
        let request = client.formRequest(to: endpoint, parameters: [("grant_type", "refresh_token")])
        // "id%3A1:s+p%26c"
        #expect(request.header("Authorization") == "Basic aWQlM0ExOnMrcCUyNmM=")
        #expect(request.bodyText == "grant_type=refresh_token")
    }

    @Test("client_secret_post: id and secret in the body")
    func post() {
        let client = ClientConfiguration(clientID: "id", authentication: .clientSecretPost(secret: "sec"))
        let request = client.formRequest(to: endpoint, parameters: [("a", "b")])
        #expect(request.bodyText == "a=b&client_id=id&client_secret=sec")
        #expect(request.header("Authorization") == nil)
    }

    @Test("the device access token request (RFC 8628 §3.4)")
    func tokenRequest() {
        let client = ClientConfiguration(clientID: "c")
        let request = client.formRequest(
            to: endpoint, parameters: DeviceAccessTokenRequest(deviceCode: "dc-1").formParameters
        )
        #expect(
            request.bodyText
                == "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Adevice_code&device_code=dc-1&client_id=c")
    }

    @Test("refresh (RFC 6749 §6) and revocation (RFC 7009 §2.1) bodies")
    func refreshAndRevocation() {
        #expect(
            FormEncoding.encode(RefreshTokenRequest(refreshToken: "r", resources: ["urn:x"]).formParameters)
                == "grant_type=refresh_token&refresh_token=r&resource=urn%3Ax")
        #expect(
            FormEncoding.encode(RevocationRequest(token: "t", tokenTypeHint: .refreshToken).formParameters)
                == "token=t&token_type_hint=refresh_token")
    }

    @Test("scopes default to the OpenID set only for OpenID providers; explicit scopes win")
    func scopes() {
        #expect(
            ClientConfiguration(clientID: "c").effectiveScopes(isOpenIDProvider: true)
                == ["openid", "profile", "offline_access"])
        #expect(ClientConfiguration(clientID: "c").effectiveScopes(isOpenIDProvider: false) == [])
        #expect(
            ClientConfiguration(clientID: "c", scopes: ["repo"]).effectiveScopes(isOpenIDProvider: true)
                == ["repo"])
    }

    @Test(
        "the default scopes ask for offline_access only where scopes_supported lists it or is absent",
        arguments: [
            (false, nil, []),
            (false, ["openid", "offline_access"], []),
            (true, nil, ["openid", "profile", "offline_access"]),
            (true, ["openid", "profile", "email", "offline_access"], ["openid", "profile", "offline_access"]),
            (true, ["openid", "profile", "email"], ["openid", "profile"]),
            (true, [], ["openid", "profile"]),
            (true, ["OFFLINE_ACCESS"], ["openid", "profile"]), // scope names are case-sensitive (RFC 6749 §3.3)
        ] as [(Bool, [String]?, [String])])
    func defaultScopes(isOpenIDProvider: Bool, scopesSupported: [String]?, expected: [String]) {
        #expect(
            ClientConfiguration.defaultScopes(isOpenIDProvider: isOpenIDProvider, scopesSupported: scopesSupported)
                == expected)
    }

    @Test("configured scopes win over the server's list; the server's list decides the default")
    func effectiveScopesForEndpoints() throws {
        var endpoints = ServerEndpoints(
            deviceAuthorization: URL(string: "https://a.example/device"),
            token: try #require(URL(string: "https://a.example/token")), isOpenIDProvider: true,
            scopesSupported: ["openid", "profile"])
        #expect(ClientConfiguration(clientID: "c").effectiveScopes(for: endpoints) == ["openid", "profile"])
        #expect(
            ClientConfiguration(clientID: "c", scopes: ["offline_access"]).effectiveScopes(for: endpoints)
                == ["offline_access"])
        endpoints.scopesSupported = nil
        #expect(
            ClientConfiguration(clientID: "c").effectiveScopes(for: endpoints)
                == ["openid", "profile", "offline_access"])
    }

    @Test("the secret never appears in descriptions")
    func noSecretInDescription() {
        let client = ClientConfiguration(clientID: "c", authentication: .clientSecretPost(secret: "hunter2"))
        #expect(!String(describing: client).contains("hunter2"))
        #expect(!String(describing: HTTPHeader("Authorization", "Basic abc")).contains("abc"))
    }

    @Test("extra parameters take part in equality and hashing, in order")
    func additionalParametersEquality() {
        let audience = ClientConfiguration(clientID: "c", additionalParameters: [FormParameter("audience", "a")])
        #expect(audience == ClientConfiguration(clientID: "c", additionalParameters: [FormParameter("audience", "a")]))
        #expect(
            audience.hashValue
                == ClientConfiguration(clientID: "c", additionalParameters: [FormParameter("audience", "a")]).hashValue)
        #expect(audience != ClientConfiguration(clientID: "c", additionalParameters: [FormParameter("audience", "b")]))
        #expect(audience != ClientConfiguration(clientID: "c"))
        let two = [FormParameter("a", "1"), FormParameter("b", "2")]
        #expect(
            DeviceAuthorizationRequest(additionalParameters: two)
                != DeviceAuthorizationRequest(additionalParameters: two.reversed()))
        #expect(Set([DeviceAuthorizationRequest(additionalParameters: two), DeviceAuthorizationRequest()]).count == 2)
    }

    @Test("a copy is a value: a field changed on it leaves the original as it was (shared until then)")
    func copiesAreValues() {
        let original = ClientConfiguration(clientID: "c", scopes: ["openid"])
        var copy = original
        #expect(copy == original)
        copy.clientID = "d"
        copy.authentication = .clientSecretPost(secret: "hunter2")
        copy.scopes = nil
        copy.resources = ["https://api.example"]
        copy.additionalHeaders = [HTTPHeader("X-Tenant", "t")]
        copy.allowInsecureHTTP = true
        #expect(original.clientID == "c")
        #expect(original.authentication == .none)
        #expect(original.scopes == ["openid"])
        #expect(original.resources.isEmpty)
        #expect(original.additionalHeaders.isEmpty)
        #expect(!original.allowInsecureHTTP)
        #expect(copy.clientID == "d")
        #expect(copy != original)
        copy = original
        copy.allowInsecureHTTP = false // the value it had: equal again
        #expect(copy == original)
        #expect(copy.hashValue == original.hashValue)
    }
}
