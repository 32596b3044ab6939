import Foundation
import Testing

@testable import DeviceLogin

@Suite("KnownSecrets: the secrets this process holds, scrubbed from any text shown")
struct KnownSecretsTests {
    /// A value no other test holds.
    private static func unique(_ label: String) -> String { "\(label)-\(UUID().uuidString)" }

    @Test("a remembered value is replaced by a marker wherever it appears; other text is kept")
    func scrubsRememberedValues() {
        let token = Self.unique("refresh")
        KnownSecrets.remember(token)
        let text = KnownSecrets.scrub("the refresh token \(token) is revoked (\(token))")
        #expect(!text.contains(token))
        let marker = "[redacted, \(token.count) chars]"
        #expect(text == "the refresh token \(marker) is revoked (\(marker))")
    }

    @Test("nil and values shorter than Redaction.minimumScrubbedLength are not remembered")
    func shortValuesAreIgnored() {
        KnownSecrets.remember(nil as String?)
        KnownSecrets.remember("abcde")
        #expect(KnownSecrets.scrub("abcde and more") == "abcde and more")
    }

    @Test("a secret inside a longer one: the longer is replaced whole")
    func longestFirst() {
        let short = Self.unique("inner")
        let long = short + "-outer"
        KnownSecrets.remember([short, long])
        #expect(KnownSecrets.scrub("x \(long) y") == "x [redacted, \(long.count) chars] y")
    }

    @Test("remembering a value again keeps one copy; a set holds at most its capacity, forgetting the oldest")
    func bounded() {
        var set = KnownSecrets(capacity: 3)
        for value in ["first1", "second", "third3", "first1", "fourth"] { set.remember(value) }
        #expect(set.scrub("first1") == "[redacted, 6 chars]")
        #expect(set.scrub("second") == "second")
        #expect(set.scrub("third3 fourth") == "[redacted, 6 chars] [redacted, 6 chars]")
    }

    @Test("overlapping secrets: the stretch they cover together is one marker, no part of either left shown")
    func overlapping() {
        var set = KnownSecrets(capacity: 4)
        set.remember("abcdefgh")
        set.remember("efghijkl")
        #expect(set.scrub("<abcdefghijkl>") == "<[redacted, 12 chars]>")
        #expect(set.scrub("abcdefg efghijk") == "abcdefg efghijk")
    }

    @Test("a value forgotten beyond the capacity is no longer scrubbed; text without a secret is returned as it is")
    func forgotten() {
        var set = KnownSecrets(capacity: 2)
        for value in ["secret-one", "secret-two", "secret-three"] { set.remember(value) }
        #expect(set.scrub("secret-one secret-two") == "secret-one [redacted, 10 chars]")
        #expect(set.scrub("nothing to hide here, ünïcödé") == "nothing to hide here, ünïcödé")
    }
}
