import Foundation
import Testing

@testable import DeviceLogin

/// A glance reads a stored record's access token, bindings and client authentication as the full decoder does,
/// and is nil for any record the decoder would refuse or read differently.
@Suite("RecordGlance")
struct RecordGlanceTests {
    private static let endpoints = ServerEndpoints(
        issuer: "https://auth.example.test", deviceAuthorization: URL(string: "https://auth.example.test/device")!,
        token: URL(string: "https://auth.example.test/token")!)

    private static func bytes(_ record: ProfileRecord) throws -> [UInt8] {
        try FileTokenStore.encode(record, path: "/x/work.json")
    }

    @Test func readsWhatTheDecoderReads() throws {
        let now = Date(timeIntervalSince1970: 1_796_140_489.75)
        let profile = try Profile(
            name: "work", endpoints: Self.endpoints, clientID: "cli", clientAuthentication: .clientSecretPost,
            clientSecret: "s3cret", bindings: [try URLBinding("https://git.example.test/team")], username: "ada")
        let tokens = TokenSet(
            accessToken: "at-\u{e9}\"1", expiresAt: now.addingTimeInterval(3600), refreshToken: "rt", issuedAt: now)
        let stored = try Self.bytes(ProfileRecord(profile: profile, tokens: tokens))
        let decoded = try FileTokenStore.decode(stored, path: "/x/work.json", profile: "work")

        let glance = try #require(RecordGlance(stored, profile: "work"))

        #expect(glance.name == decoded.profile.name)
        #expect(glance.clientAuthentication == decoded.profile.clientAuthentication)
        #expect(glance.hasClientSecret)
        #expect(glance.hasClientConfiguration)
        #expect(glance.username == decoded.profile.username)
        #expect(glance.effectiveUsername == decoded.profile.effectiveUsername)
        #expect(glance.bindings == decoded.profile.bindings)
        #expect(glance.accessToken == decoded.tokens?.accessToken)
        #expect(glance.tokenType == decoded.tokens?.tokenType)
        #expect(glance.expiresAt == decoded.tokens?.expiresAt)
        let url = try URLBinding("https://git.example.test/team/repo.git")
        #expect(glance.matchLength(url) == decoded.profile.matchLength(url))
        for offset in [-120.0, 0, 3599, 3601] {
            let date = now.addingTimeInterval(offset)
            #expect(glance.accessToken(validAfter: date) == decoded.tokens?.accessToken(validAfter: date))
        }
    }

    @Test func readsASignedOutPublicProfile() throws {
        let profile = try Profile(name: "work", endpoints: Self.endpoints, clientID: "cli")
        let glance = try #require(
            RecordGlance(try Self.bytes(ProfileRecord(profile: profile, tokens: nil)), profile: "work"))

        #expect(glance.accessToken == nil)
        #expect(glance.accessToken(validAfter: Date()) == nil)
        #expect(glance.clientAuthentication == .none)
        #expect(glance.hasClientConfiguration)
        #expect(glance.effectiveUsername == Profile.defaultUsername)
    }

    @Test func aConfidentialProfileWithoutItsSecretHasNoClientConfiguration() throws {
        let profile = try Profile(
            name: "work", endpoints: Self.endpoints, clientID: "cli", clientAuthentication: .clientSecretBasic)
        let glance = try #require(
            RecordGlance(try Self.bytes(ProfileRecord(profile: profile, tokens: nil)), profile: "work"))

        #expect(!glance.hasClientConfiguration)
        #expect(throws: DeviceLoginError.self) { try profile.clientConfiguration() }
    }

    /// Records the decoder refuses, or that a glance does not read: each is nil.
    @Test(arguments: [
        ("not JSON", "{"),
        ("no version", #"{"profile":{"name":"work"}}"#),
        ("a newer version", #"{"version":2,"profile":{"name":"work"}}"#),
        ("a fractional version", #"{"version":0.5,"profile":{"name":"work"}}"#),
        ("another profile", #"{"version":1,"profile":{"name":"home"}}"#),
        ("no profile", #"{"version":1}"#),
        ("an unknown client authentication", #"{"version":1,"profile":{"name":"work","client_authentication":"x"}}"#),
        ("a secret of another type", #"{"version":1,"profile":{"name":"work","client_secret":1}}"#),
        ("a user name with a newline", #"{"version":1,"profile":{"name":"work","username":"a\nb"}}"#),
        ("a binding that is no URL", #"{"version":1,"profile":{"name":"work","bindings":["ftp:x"]}}"#),
        ("tokens of another type", #"{"version":1,"profile":{"name":"work"},"tokens":[]}"#),
        (
            "no token type",
            #"{"version":1,"profile":{"name":"work"},"tokens":{"access_token":"a","issued_at":1}}"#
        ),
        (
            "no issue time",
            #"{"version":1,"profile":{"name":"work"},"tokens":{"access_token":"a","token_type":"Bearer"}}"#
        ),
        (
            "an expiry out of range",
            #"{"version":1,"profile":{"name":"work"},"tokens":{"access_token":"a","token_type":"Bearer","issued_at":1,"expires_at":1e300}}"#
        ),
        (
            "an expiry that is text",
            #"{"version":1,"profile":{"name":"work"},"tokens":{"access_token":"a","token_type":"Bearer","issued_at":1,"expires_at":"soon"}}"#
        ),
    ])
    func isNilFor(_ what: String, text: String) {
        #expect(RecordGlance(Array(text.utf8), profile: "work") == nil, "\(what)")
    }
}
