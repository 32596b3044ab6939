import Foundation
import Testing

@testable import DeviceLogin

@Suite struct ProfileTests {
    @Test(arguments: ["default", "work", "a.b", "user@example.com", "x_1-2+3", String(repeating: "p", count: 64)])
    func acceptsValidNames(name: String) throws {
        try Profile.validate(name: name)
    }

    @Test(arguments: [
        "", "a/b", "..", "a..b", ".hidden", "-rf", String(repeating: "p", count: 65), "a b", "ü", "a\u{0}b", "/",
    ])
    func refusesUnsafeNames(name: String) {
        #expect(throws: DeviceLoginError(.configuration, "")) { try Profile.validate(name: name) }
    }

    @Test func refusalSaysWhatIsWrong() {
        do {
            try Profile.validate(name: "../etc")
            Issue.record("accepted ../etc")
        } catch let error as DeviceLoginError {
            #expect(error.message.contains("'/'") || error.message.contains("'..'"))
            #expect(error.hint != nil)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func issuerDefaultsToTheEndpointsIssuer() throws {
        #expect(try Fixtures.profile().issuer == Fixtures.issuer)
    }

    @Test func clientConfigurationForAPublicClient() throws {
        let client = try Fixtures.profile().clientConfiguration()
        #expect(client.clientID == "cli")
        #expect(client.authentication == .none)
        #expect(client.scopes == ["openid", "offline_access"])
    }

    @Test func secretIsStoredOnlyWhenAsked() throws {
        let client = ClientConfiguration(clientID: "c", authentication: .clientSecretBasic(secret: "s3cret"))
        let without = try Profile(endpoints: Fixtures.endpoints, client: client)
        #expect(without.clientSecret == nil)
        #expect(without.clientAuthentication == .clientSecretBasic)
        #expect(throws: DeviceLoginError(.configuration, "")) { try without.clientConfiguration() }
        #expect(try without.clientConfiguration(secret: "given").authentication == .clientSecretBasic(secret: "given"))

        let with = try Profile(endpoints: Fixtures.endpoints, client: client, storingSecret: true)
        #expect(with.clientSecret == "s3cret")
        #expect(try with.clientConfiguration().authentication == .clientSecretBasic(secret: "s3cret"))
        #expect(!"\(with)".contains("s3cret"))
    }

    @Test func clientSecretPostRoundTrips() throws {
        let client = ClientConfiguration(clientID: "c", authentication: .clientSecretPost(secret: "p"))
        let profile = try Profile(endpoints: Fixtures.endpoints, client: client, storingSecret: true)
        #expect(try profile.clientConfiguration().authentication == .clientSecretPost(secret: "p"))
    }

    @Test func codableRoundTripAndNameValidationOnDecode() throws {
        let profile = try Profile(
            name: "work", endpoints: Fixtures.endpoints, clientID: "cli", resources: [Fixtures.api],
            clientAuthentication: .clientSecretPost, clientSecret: "s", allowInsecureHTTP: true
        )
        let data = try JSONEncoder().encode(profile)
        #expect(try JSONDecoder().decode(Profile.self, from: data) == profile)

        let text = String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\"work\"", with: "\"..\"")
        #expect(throws: DeviceLoginError(.configuration, "")) {
            try JSONDecoder().decode(Profile.self, from: Data(text.utf8))
        }
    }

    /// A profile file as the library has always written it: the same bytes load, and the same bytes come back.
    @Test(arguments: [
        ("client_secret_post", ClientAuthentication.Method.clientSecretPost, #","client_secret":"s""#),
        ("client_secret_basic", .clientSecretBasic, ""),
        ("none", ClientAuthentication.Method.none, ""),
    ])
    func storedFormIsUnchanged(name: String, method: ClientAuthentication.Method, secretField: String) throws {
        let text =
            #"{"client_authentication":""# + name + #"","client_id":"cli""# + secretField
            + #","endpoints":{"device_authorization_endpoint":"https:\/\/auth.example.com\/device","#
            + #""issuer":"https:\/\/auth.example.com","openid_provider":true,"#
            + #""revocation_endpoint":"https:\/\/auth.example.com\/revoke","#
            + #""token_endpoint":"https:\/\/auth.example.com\/token","#
            + #""userinfo_endpoint":"https:\/\/auth.example.com\/userinfo"},"#
            + #""issuer":"https:\/\/auth.example.com","name":"work","scopes":["openid"]}"#
        let profile = try JSONDecoder().decode(Profile.self, from: Data(text.utf8))
        #expect(profile.clientAuthentication == method)
        #expect(profile.clientSecret == (secretField.isEmpty ? nil : "s"))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        #expect(String(decoding: try encoder.encode(profile), as: UTF8.self) == text)
    }

    @Test func aProfileWithoutAMethodIsAPublicClient() throws {
        let text =
            #"{"client_id":"cli","endpoints":{"device_authorization_endpoint":"https:\/\/a\/d","#
            + #""openid_provider":false,"token_endpoint":"https:\/\/a\/t"},"name":"old"}"#
        #expect(try JSONDecoder().decode(Profile.self, from: Data(text.utf8)).clientAuthentication == .none)
    }

    @Test func dpopIsStoredAsATrueFlagAndReadBackAbsentAsFalse() throws {
        var client = Fixtures.client
        client.dpop = try DPoPProver(key: try ECP256PrivateKey.generate())
        let profile = try Profile(endpoints: Fixtures.endpoints, client: client)
        #expect(profile.usesDPoP)
        #expect(profile.description.hasSuffix(", dpop: yes)"))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let text = String(decoding: try encoder.encode(profile), as: UTF8.self)
        #expect(text.contains(#""dpop":true"#))
        #expect(try JSONDecoder().decode(Profile.self, from: Data(text.utf8)) == profile)
        let plain = try Profile(endpoints: Fixtures.endpoints, client: Fixtures.client)
        #expect(!plain.usesDPoP)
        #expect(!String(decoding: try encoder.encode(plain), as: UTF8.self).contains("dpop"))
    }

    @Test func theProviderPresetIsStoredWhenOneWasUsedAndLeftOutOtherwise() throws {
        let profile = try Profile(endpoints: Fixtures.endpoints, client: Fixtures.client, provider: "keycloak")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let text = String(decoding: try encoder.encode(profile), as: UTF8.self)
        #expect(text.contains(#""provider":"keycloak""#))
        #expect(try JSONDecoder().decode(Profile.self, from: Data(text.utf8)).provider == "keycloak")
        let plain = try Profile(endpoints: Fixtures.endpoints, client: Fixtures.client)
        #expect(plain.provider == nil)
        #expect(!String(decoding: try encoder.encode(plain), as: UTF8.self).contains(#""provider":"#))
    }

    @Test(
        "login --flow's choice is stored when not auto, and read leniently: absent, unknown or not a string is auto",
        arguments: [
            (#","flow":"paste""#, "paste"), (#","flow":"browser""#, "browser"), ("", nil), (#","flow":"auto""#, nil),
            (#","flow":"telepathy""#, nil), (#","flow":42"#, nil),
        ] as [(String, String?)])
    func flowIsReadLeniently(field: String, flow: String?) throws {
        let text =
            #"{"client_id":"cli","endpoints":{"device_authorization_endpoint":"https:\/\/a\/d","#
            + #""openid_provider":false,"token_endpoint":"https:\/\/a\/t"},"name":"old""# + field + "}"
        let profile = try JSONDecoder().decode(Profile.self, from: Data(text.utf8))
        #expect(profile.flow == flow)
        let encoded = String(decoding: try JSONEncoder().encode(profile), as: UTF8.self)
        #expect(encoded.contains(#""flow":"#) == (flow != nil))
    }
}
