import Foundation
import Testing

@testable import DeviceLogin

/// The one reader of a profile's file (``ProfileRecord/init(stored:)``): what the store writes reads back the same,
/// an old file reads, and every damaged file is refused with the field named, on every path that reads it.
@Suite("ProfileRecord: the one reader of a stored record")
struct ProfileRecordTests {
    private static let path = "/x/work.json"

    private static func read(_ text: String) throws -> ProfileRecord {
        try FileTokenStore.decode(Array(text.utf8), path: path, profile: "work")
    }

    /// A record with every field the stored form has.
    private static func fullRecord() throws -> ProfileRecord {
        let now = Date(timeIntervalSince1970: 1_796_140_489.75)
        let endpoints = ServerEndpoints(
            issuer: "https://auth.example.test", deviceAuthorization: URL(string: "https://auth.example.test/device")!,
            token: URL(string: "https://auth.example.test/token")!,
            revocation: URL(string: "https://auth.example.test/revoke")!,
            userinfo: URL(string: "https://auth.example.test/userinfo")!, isOpenIDProvider: true,
            jwks: URL(string: "https://auth.example.test/jwks")!, idTokenSigningAlgorithms: ["ES256"],
            scopesSupported: ["openid", "offline_access"])
        let profile = try Profile(
            name: "work", endpoints: endpoints, clientID: "cli", scopes: ["openid"], resources: ["https://api.test"],
            clientAuthentication: .clientSecretPost, clientSecret: "s3cret", allowInsecureHTTP: true,
            bindings: [try URLBinding("https://git.example.test/team")], username: "ada", usesDPoP: true,
            provider: "keycloak")
        let verdict = IDTokenVerification(
            outcome: .verified, algorithm: "ES256", keyID: "k1", tokenDigest: "abc", checkedAt: now,
            keysUnavailableAt: now)
        let tokens = TokenSet(
            accessToken: "at-\u{e9}\"1", tokenType: "DPoP", expiresAt: now.addingTimeInterval(3600),
            refreshToken: "rt", idToken: "id", scope: "openid", issuedAt: now,
            resourceTokens: [
                "https://api.test": TokenSet.ResourceToken(accessToken: "at-api", expiresAt: nil, issuedAt: now)
            ],
            idTokenVerification: verdict)
        var record = ProfileRecord(profile: profile, tokens: tokens)
        record.revision = 7
        return record
    }

    @Test func readsEveryFieldTheStoreWritesAndWritesTheSameBytesAgain() throws {
        let record = try Self.fullRecord()
        let written = try FileTokenStore.encode(record, path: Self.path)

        let read = try FileTokenStore.decode(written, path: Self.path, profile: "work")

        #expect(read == record)
        #expect(read.revision == 7)
        #expect(read.tokens?.idTokenVerification == record.tokens?.idTokenVerification)
        #expect(try FileTokenStore.encode(read, path: Self.path) == written)
        // Codable reads through the same reader.
        #expect(try JSONDecoder().decode(ProfileRecord.self, from: Data(written)) == record)
    }

    @Test func readsAFileWrittenBeforeRevisionsResourcesAndVerdicts() throws {
        let text = #"""
            {
              "profile" : {
                "client_authentication" : "none",
                "client_id" : "cli",
                "endpoints" : {
                  "device_authorization_endpoint" : "https:\/\/auth.example.test\/device",
                  "openid_provider" : false,
                  "token_endpoint" : "https:\/\/auth.example.test\/token"
                },
                "name" : "work"
              },
              "tokens" : {
                "access_token" : "AT",
                "expires_at" : 1700003600,
                "issued_at" : 1700000000,
                "refresh_token" : "RT",
                "token_type" : "Bearer"
              },
              "version" : 1
            }
            """#
        let record = try Self.read(text)
        #expect(record.revision == 0)
        #expect(record.profile.clientID == "cli")
        #expect(record.profile.endpoints.token.absoluteString == "https://auth.example.test/token")
        #expect(record.profile.bindings.isEmpty)
        #expect(record.tokens?.accessToken == "AT")
        #expect(record.tokens?.expiresAt == Date(timeIntervalSince1970: 1_700_003_600))
        #expect(record.tokens?.resourceTokens.isEmpty == true)
        #expect(record.tokens?.idTokenVerification == nil)
    }

    @Test func aVerdictThatCannotBeReadIsNoVerdict() throws {
        let text = #"""
            {"version":1,"profile":{"name":"work","client_id":"c","endpoints":{"device_authorization_endpoint":"https://a.test/d",
            "token_endpoint":"https://a.test/t","openid_provider":true}},"tokens":{"access_token":"a","token_type":"Bearer",
            "issued_at":1,"id_token_verification":{"outcome":"verified","checked_at":"yesterday"}}}
            """#
        #expect(try Self.read(text).tokens?.idTokenVerification == nil)
    }

    private static let profile = storedProfile(with: "")

    /// A profile's member, with `extra` members added to the profile.
    private static func storedProfile(with extra: String) -> String {
        #""profile":{"name":"work","client_id":"c","endpoints":{"device_authorization_endpoint":"https://a.test/d","#
            + #""token_endpoint":"https://a.test/t","openid_provider":true}\#(extra)}"#
    }

    /// Damaged records: each refused with what is wrong, the field named by its path and never its value.
    @Test(
        arguments: [
            ("not JSON", "{", "it is not a JSON object"),
            ("not an object", "[1]", "it is not a JSON object"),
            // The strict parser: a member given twice is not read as either of its values (JSONDecoder took one).
            ("a member twice", #"{"version":1,"version":1,\#(profile)}"#, "it is not a JSON object"),
            ("no version", #"{\#(profile)}"#, "the field version is missing"),
            ("a fractional version", #"{"version":0.5,\#(profile)}"#, "version is invalid"),
            ("a version that is text", #"{"version":"1",\#(profile)}"#, "version has the wrong type"),
            ("no profile", #"{"version":1}"#, "the field profile is missing"),
            ("a profile that is null", #"{"version":1,"profile":null}"#, "profile has the wrong type"),
            ("a negative revision", #"{"version":1,"revision":-1,\#(profile)}"#, "revision is invalid"),
            (
                "no endpoints", #"{"version":1,"profile":{"name":"work","client_id":"c"}}"#,
                "the field endpoints is missing in profile"
            ),
            (
                "an unknown client authentication",
                #"{"version":1,\#(storedProfile(with: #","client_authentication":"x""#))}"#,
                "profile.client_authentication is invalid"
            ),
            (
                "a secret of another type", #"{"version":1,\#(storedProfile(with: #","client_secret":1"#))}"#,
                "profile.client_secret has the wrong type"
            ),
            (
                "a binding that is not text", #"{"version":1,\#(storedProfile(with: #","bindings":["x",1]"#))}"#,
                "profile.bindings.1 has the wrong type"
            ),
            (
                "an endpoint that is no URL",
                #"{"version":1,"profile":{"name":"work","client_id":"c","endpoints":{"device_authorization_endpoint":"#
                    + #""https://a.test/d","token_endpoint":"","openid_provider":true}}}"#,
                "profile.endpoints.token_endpoint is invalid"
            ),
            (
                "endpoints without openid_provider",
                #"{"version":1,"profile":{"name":"work","client_id":"c","endpoints":{"device_authorization_endpoint":"#
                    + #""https://a.test/d","token_endpoint":"https://a.test/t"}}}"#,
                "the field openid_provider is missing in profile.endpoints"
            ),
            ("tokens of another type", #"{"version":1,\#(profile),"tokens":[]}"#, "tokens has the wrong type"),
            (
                "no token type", #"{"version":1,\#(profile),"tokens":{"access_token":"a","issued_at":1}}"#,
                "the field token_type is missing in tokens"
            ),
            (
                "an expiry that is text",
                #"{"version":1,\#(profile),"tokens":{"access_token":"a","token_type":"B","issued_at":1,"expires_at":"x"}}"#,
                "tokens.expires_at has the wrong type"
            ),
        ])
    func refuses(_ what: String, text: String, problem: String) throws {
        let error = try #require(throws: DeviceLoginError.self) { try Self.read(text) }
        #expect(error.code == .storage)
        #expect(error.message == "the token file \(Self.path) is corrupt: \(problem)", "\(what)")
    }

    @Test func aNewerVersionIsRefusedBeforeTheRestIsRead() throws {
        let error = try #require(throws: DeviceLoginError.self) { try Self.read(#"{"version":2}"#) }
        #expect(error.message.contains("has format version 2, newer than this version understands"))
        #expect(error.reason == .storeFromNewerVersion(path: Self.path, version: 2))
    }

    @Test func anotherProfilesRecordIsRefused() throws {
        let error = try #require(throws: DeviceLoginError.self) {
            try Self.read(#"{"version":1,\#(Self.profile)}"#.replacingOccurrences(of: #""work""#, with: #""home""#))
        }
        #expect(error.message.contains(#"holds profile "home", not "work""#))
    }
}
