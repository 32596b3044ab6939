import DeviceLogin
import Foundation
import Testing

@testable import DeviceLoginCLI

@Suite("providers: the presets, what each takes and fills in")
struct ProvidersCommandTests {
    @Test("text: a paragraph per preset, its options, templates and documentation")
    func text() async {
        let result = await CLIHarness.run(["providers"])
        #expect(result.code == .success)
        #expect(result.stderr.isEmpty)
        let paragraphs = result.stdout.components(separatedBy: "\n\n")
        #expect(paragraphs.count == ProviderPreset.all.count)
        #expect(
            paragraphs.first?.hasPrefix(
                """
                github: GitHub (and GitHub Enterprise Server)
                  takes:        --host (default https://github.com): the GitHub Enterprise Server host, for one other \
                than github.com
                  issuer:       none (no discovery)
                  device:       {host}/login/device/code
                  token:        {host}/login/oauth/access_token
                  scopes:       the default
                """) == true)
        #expect(
            result.stdout.contains(
                """
                keycloak: Keycloak
                  takes:        --host (required): the Keycloak server's base URL (with /auth for Keycloak 16 and older)
                  takes:        --realm (required): the realm
                  issuer:       {host}/realms/{realm} (the rest by discovery)
                """))
        #expect(result.stdout.contains("  takes:        --auth-server (default default): "))
        #expect(
            result.stdout.contains(
                "  docs:         https://docs.gitlab.com/api/oauth2/#device-authorization-grant-flow"))
    }

    @Test("--json: {\"v\": 1, \"providers\": [...]}, no dynamic top-level keys")
    func json() async throws {
        let result = await CLIHarness.run(["providers", "--json"])
        #expect(result.code == .success)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["v", "providers"])
        #expect(object["v"] as? Int == 1)
        let providers = try #require(object["providers"] as? [[String: Any]])
        #expect(providers.compactMap { $0["name"] as? String } == ProviderPreset.names)
        let microsoft = try #require(providers.first { $0["name"] as? String == "microsoft" })
        #expect(microsoft["issuer_needs_tenant_id"] as? Bool == true)
        #expect(
            microsoft["device_authorization_endpoint"] as? String
                == "https://login.microsoftonline.com/{tenant}/oauth2/v2.0/devicecode")
        let settings = try #require(microsoft["settings"] as? [[String: Any]])
        #expect(settings.first?["option"] as? String == "tenant")
        #expect(settings.first?["default"] as? String == "organizations")
        let google = try #require(providers.first { $0["name"] as? String == "google" })
        #expect(google["requires_client_secret"] as? Bool == true)
        #expect((google["allowed_scopes"] as? [String])?.count == 7)
        for provider in providers {
            #expect(provider["client_id"] == nil, "no preset carries a client ID")
        }
    }
}
