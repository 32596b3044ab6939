import DeviceLogin
import Testing

@Suite("ProviderPreset.Parameter: a preset's settings checked and normalised")
struct ProviderPresetParameterTests {
    @Test(
        "values taken, as they go into templates",
        arguments: [
            (ProviderPreset.Parameter.host, "github.example.com", "https://github.example.com"),
            (.host, "ghe.example.com:8443", "https://ghe.example.com:8443"),
            (.host, "https://sso.example.com/auth/", "https://sso.example.com/auth"),
            (.host, "HTTP://127.0.0.1:9000", "http://127.0.0.1:9000"),
            (.domain, "tenant.us.auth0.com", "https://tenant.us.auth0.com"),
            (.domain, "https://dev-1.okta.com/", "https://dev-1.okta.com"),
            (.tenant, "organizations", "organizations"),
            (.tenant, "9188040d-6c67-4c5b-b112-36a304b66dad", "9188040d-6c67-4c5b-b112-36a304b66dad"),
            (.tenant, "contoso.onmicrosoft.com", "contoso.onmicrosoft.com"),
            (.realm, "my-realm_2.prod~x", "my-realm_2.prod~x"),
            // The scheme's default port goes, so the issuer is the one discovery returns (Auth0: no port).
            (.domain, "tenant.us.auth0.com:443", "https://tenant.us.auth0.com"),
            (.domain, "https://tenant.us.auth0.com:443/", "https://tenant.us.auth0.com"),
            (.host, "http://127.0.0.1:80/auth", "http://127.0.0.1/auth"),
            (.host, "https://sso.example.com:80", "https://sso.example.com:80"),
            (.host, "http://localhost:443", "http://localhost:443"),
            // Host names compare without case (RFC 3986 §3.2.2): lowercased, as discovery's issuer is.
            (.domain, "Tenant.EU.Auth0.com", "https://tenant.eu.auth0.com"),
            (.host, "https://SSO.example.com/Auth", "https://sso.example.com/Auth"),
            (.host, "https://[::1]:8443/auth", "https://[::1]:8443/auth"),
            (.host, "https://sso.example.com/auth/kc-1_x~y", "https://sso.example.com/auth/kc-1_x~y"),
            (.authorizationServer, "aus1a2b3c4d", "aus1a2b3c4d"),
        ])
    func accepted(parameter: ProviderPreset.Parameter, value: String, normalized: String) throws {
        #expect(try parameter.normalize(value) == normalized)
    }

    @Test(
        "values refused: other schemes, credentials, queries, paths where none belong, characters needing escapes",
        arguments: [
            (ProviderPreset.Parameter.host, ""),
            (.host, "ftp://example.com"),
            (.host, "https://user:pw@example.com"),
            (.host, "https://example.com/?x=1"),
            (.host, "https://example.com/#top"),
            (.host, "https://"),
            (.host, "https://exa mple.com"),
            (.host, "https://example.com/a\nb"),
            (.domain, "https://tenant.auth0.com/api"),
            // Keycloak's host: a host[:port] and a plain path, no dot segments or anything that reads as one.
            (.host, "https://sso.example.com/../admin"),
            (.host, "https://sso.example.com/auth/.."),
            (.host, "https://sso.example.com/./auth"),
            (.host, "sso.example.com/auth/%2e%2e/admin"),
            (.host, "https://sso.example.com/auth/%2E%2E"),
            (.host, "https://sso.example.com//auth"),
            (.host, "https://sso.example.com/a%2fb"),
            (.host, "https://sso.example.com/a\\b"),
            (.host, "https://sso.example.com/a;b"),
            (.host, "https://sso.example.com/a:b"),
            (.host, "https://sso.example.com/a@b"),
            (.host, "https://sso_x!.example.com"),
            (.host, "https://sso.example.com:99999"),
            (.host, "https://sso.example.com:"),
            (.domain, "tenant.auth0.com/.."),
            (.tenant, "contoso/evil"),
            (.tenant, ".hidden"),
            (.tenant, String(repeating: "a", count: 254)),
            (.realm, "a/b"),
            (.realm, ".."),
            (.realm, "ops?x"),
            (.realm, "dev ops"),
            (.authorizationServer, "default/../x"),
        ])
    func refused(parameter: ProviderPreset.Parameter, value: String) {
        #expect {
            try parameter.normalize(value)
        } throws: { error in
            (error as? DeviceLoginError)?.reason == .providerSetting(parameter)
        }
    }

    @Test("a value longer than the limit is refused without being echoed whole")
    func tooLong() {
        let value = "https://" + String(repeating: "a", count: ProviderPreset.Parameter.maximumLength)
        #expect {
            try ProviderPreset.Parameter.host.normalize(value)
        } throws: { error in
            guard let error = error as? DeviceLoginError else { return false }
            return error.message.count < 250
        }
    }
}
