import DeviceLogin
import Foundation
import Testing

@Suite("ProviderPreset: each provider's endpoints from its documentation, filled in exactly")
struct ProviderPresetTests {
    /// What one resolution must give: the issuer and the four endpoints, as text (nil: not known beforehand).
    struct Expected: Sendable, CustomTestStringConvertible {
        var preset: String
        var values: [ProviderPreset.Parameter: String] = [:]
        var issuer: String?
        var device: String?
        var token: String?
        var revocation: String? = nil
        var userinfo: String? = nil
        var testDescription: String { "\(preset) \(values.map { "\($0)=\($1)" }.sorted())" }
    }

    static let cases: [Expected] = [
        Expected(
            preset: "github", issuer: nil, device: "https://github.com/login/device/code",
            token: "https://github.com/login/oauth/access_token"),
        Expected(
            preset: "github", values: [.host: "ghe.example.com"], issuer: nil,
            device: "https://ghe.example.com/login/device/code",
            token: "https://ghe.example.com/login/oauth/access_token"),
        Expected(
            preset: "github", values: [.host: "http://127.0.0.1:8080/"], issuer: nil,
            device: "http://127.0.0.1:8080/login/device/code",
            token: "http://127.0.0.1:8080/login/oauth/access_token"),
        Expected(
            preset: "gitlab", issuer: "https://gitlab.com", device: "https://gitlab.com/oauth/authorize_device",
            token: nil),
        Expected(
            preset: "gitlab", values: [.host: "https://git.example.com/"], issuer: "https://git.example.com",
            device: "https://git.example.com/oauth/authorize_device", token: nil),
        Expected(preset: "google", issuer: "https://accounts.google.com", device: nil, token: nil),
        Expected(
            preset: "microsoft", issuer: nil,
            device: "https://login.microsoftonline.com/organizations/oauth2/v2.0/devicecode",
            token: "https://login.microsoftonline.com/organizations/oauth2/v2.0/token",
            userinfo: "https://graph.microsoft.com/oidc/userinfo"),
        Expected(
            preset: "microsoft", values: [.tenant: "contoso.onmicrosoft.com"], issuer: nil,
            device: "https://login.microsoftonline.com/contoso.onmicrosoft.com/oauth2/v2.0/devicecode",
            token: "https://login.microsoftonline.com/contoso.onmicrosoft.com/oauth2/v2.0/token",
            userinfo: "https://graph.microsoft.com/oidc/userinfo"),
        Expected(
            preset: "microsoft", values: [.tenant: "9188040d-6c67-4c5b-b112-36a304b66dad"],
            issuer: "https://login.microsoftonline.com/9188040d-6c67-4c5b-b112-36a304b66dad/v2.0",
            device: "https://login.microsoftonline.com/9188040d-6c67-4c5b-b112-36a304b66dad/oauth2/v2.0/devicecode",
            token: "https://login.microsoftonline.com/9188040d-6c67-4c5b-b112-36a304b66dad/oauth2/v2.0/token",
            userinfo: "https://graph.microsoft.com/oidc/userinfo"),
        Expected(
            preset: "auth0", values: [.domain: "tenant.eu.auth0.com"], issuer: "https://tenant.eu.auth0.com/",
            device: nil, token: nil),
        Expected(
            preset: "okta", values: [.domain: "https://dev-1234.okta.com"],
            issuer: "https://dev-1234.okta.com/oauth2/default", device: nil, token: nil),
        Expected(
            preset: "okta", values: [.domain: "dev-1234.okta.com", .authorizationServer: "aus1a2b3c"],
            issuer: "https://dev-1234.okta.com/oauth2/aus1a2b3c", device: nil, token: nil),
        Expected(
            preset: "keycloak", values: [.host: "https://sso.example.com", .realm: "ops"],
            issuer: "https://sso.example.com/realms/ops", device: nil, token: nil),
        Expected(
            preset: "keycloak", values: [.host: "sso.example.com/auth/", .realm: "master"],
            issuer: "https://sso.example.com/auth/realms/master", device: nil, token: nil),
    ]

    @Test("the issuer and endpoints each preset fills, exactly", arguments: cases)
    func resolves(expected: Expected) throws {
        let preset = try #require(ProviderPreset.named(expected.preset))
        let resolved = try preset.resolve(expected.values)
        #expect(resolved.preset == expected.preset)
        #expect(resolved.issuer == expected.issuer)
        #expect(resolved.deviceAuthorizationEndpoint?.absoluteString == expected.device)
        #expect(resolved.tokenEndpoint?.absoluteString == expected.token)
        #expect(resolved.revocationEndpoint?.absoluteString == expected.revocation)
        #expect(resolved.userinfoEndpoint?.absoluteString == expected.userinfo)
    }

    @Test("the presets, in order, with lower-case names that named(_:) finds in any case")
    func catalog() throws {
        #expect(ProviderPreset.names == ["github", "gitlab", "google", "microsoft", "auth0", "okta", "keycloak"])
        #expect(ProviderPreset.named("GitHub")?.name == "github")
        #expect(ProviderPreset.named("gitea") == nil)
        for preset in ProviderPreset.all {
            #expect(!preset.documentation.isEmpty, "\(preset.name) links its documentation")
            for link in preset.documentation { #expect(link.hasPrefix("https://"), "\(link)") }
        }
    }

    @Test("the quirks that change a sign-in: scopes, parameters, the client secret")
    func quirks() throws {
        let google = try ProviderPreset.google.resolve()
        #expect(google.defaultScopes == ["openid", "email", "profile"])
        #expect(google.requiresClientSecret)
        #expect(google.allowedScopes?.contains("https://www.googleapis.com/auth/drive.file") == true)
        #expect(google.allowedScopes?.contains("offline_access") == false)
        let microsoft = try ProviderPreset.microsoft.resolve()
        #expect(microsoft.defaultScopes == ["openid", "profile", "offline_access"])
        let gitlab = try ProviderPreset.gitlab.resolve()
        #expect(gitlab.defaultScopes == ["openid", "profile"], "offline_access is no GitLab scope")
        let auth0 = try ProviderPreset.auth0.resolve([.domain: "t.auth0.com"])
        #expect(auth0.expectedParameters.keys.sorted() == ["audience"])
        #expect(try ProviderPreset.github.resolve().defaultScopes == nil)
        #expect(try ProviderPreset.keycloak.resolve([.host: "h", .realm: "r"]).defaultScopes == nil)
    }

    @Test("a setting the preset does not take, or a required one missing: refused, naming the setting")
    func refusals() {
        let cases: [(ProviderPreset, [ProviderPreset.Parameter: String], ProviderPreset.Parameter, String)] = [
            (.google, [.host: "https://a"], .host, "the Google preset takes no host"),
            (.github, [.realm: "r"], .realm, "the GitHub (and GitHub Enterprise Server) preset takes no realm"),
            (.keycloak, [.host: "https://sso"], .realm, "the Keycloak preset needs the realm"),
            (.auth0, [:], .domain, "the Auth0 preset needs the tenant's domain (tenant.us.auth0.com)"),
            (.okta, [.authorizationServer: "default"], .domain, "the Okta preset needs the Okta domain"),
            (.keycloak, [.host: "https://sso", .realm: "a/b"], .realm, "the realm must be 1 to 255 letters"),
        ]
        for (preset, values, parameter, message) in cases {
            #expect {
                try preset.resolve(values)
            } throws: { error in
                guard let error = error as? DeviceLoginError else { return false }
                return error.code == .configuration && error.reason == .providerSetting(parameter)
                    && error.message.hasPrefix(message)
            }
        }
    }

    @Test("the Microsoft issuer only for a tenant ID: the multi-tenant names have none to expect")
    func microsoftIssuer() throws {
        for tenant in ["organizations", "common", "consumers", "contoso.com"] {
            #expect(try ProviderPreset.microsoft.resolve([.tenant: tenant]).issuer == nil, "\(tenant)")
        }
        let guid = "00000000-0000-0000-0000-00000000000A"
        #expect(try ProviderPreset.microsoft.resolve([.tenant: guid]).issuer != nil)
        #expect(try ProviderPreset.microsoft.resolve([.tenant: "0000000-0000-0000-0000-000000000000"]).issuer == nil)
    }

    @Test("Auth0 with :443 or capitals: the issuer its discovery returns; Keycloak with /../: refused")
    func issuerMatchesDiscovery() throws {
        for domain in ["tenant.us.auth0.com:443", "https://Tenant.US.auth0.com:443/", "tenant.us.auth0.com"] {
            #expect(try ProviderPreset.auth0.resolve([.domain: domain]).issuer == "https://tenant.us.auth0.com/")
        }
        #expect(throws: DeviceLoginError.self) {
            try ProviderPreset.keycloak.resolve([.host: "https://sso.example.com/auth/../admin", .realm: "ops"])
        }
        #expect(
            try ProviderPreset.keycloak.resolve([.host: "https://sso.example.com:443/auth/", .realm: "ops"]).issuer
                == "https://sso.example.com/auth/realms/ops")
    }
}
