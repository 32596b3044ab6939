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

    @Test("adjacent occurrences are two markers; a value overlapping itself is one marker over the whole stretch")
    func adjacentAndSelfOverlapping() {
        var set = KnownSecrets(capacity: 4)
        set.remember("abcdefgh")
        set.remember("zzzzzz")
        #expect(set.scrub("abcdefghabcdefgh.") == "[redacted, 8 chars][redacted, 8 chars].")
        #expect(set.scrub("<zzzzzzzz>") == "<[redacted, 8 chars]>")
        #expect(set.scrub("zzzzz zzzzzz") == "zzzzz [redacted, 6 chars]")
        // The marker counts Characters: a secret with letters of two bytes.
        set.remember("ünïcödé")
        #expect(set.scrub("[ünïcödé]") == "[[redacted, 7 chars]]")
        // Five Characters in ten bytes: shorter than the minimum, which counts Characters.
        set.remember("ééééé")
        #expect(set.scrub("ééééé") == "ééééé")
    }

    @Test("a value forgotten leaves another value whose first four bytes share its filter bit scrubbed")
    func forgettingKeepsASharedFilterBit() throws {
        // Two four-byte prefixes that fall on the same bit: there are 16,384 bits, so a few hundred tries find two.
        var seen: [Int: String] = [:]
        var pair: (String, String)?
        for number in 0..<100_000 where pair == nil {
            let prefix = String(format: "%04x", number)
            let key = prefix.utf8.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            let bit = KnownSecrets.filterBit(key)
            let slot = bit.word * 64 + bit.mask.trailingZeroBitCount
            if let other = seen[slot] { pair = (other, prefix) } else { seen[slot] = prefix }
        }
        let (first, second) = try #require(pair)
        var set = KnownSecrets(capacity: 2)
        set.remember(first + "-one")
        set.remember(second + "-two")
        set.remember("another-value") // forgets the first
        #expect(set.scrub("\(first)-one \(second)-two") == "\(first)-one [redacted, 8 chars]")
    }

    @Test("random texts over a small alphabet: the same result as searching for every value at every position")
    func matchesAPlainSearch() {
        var random = SplitMix(seed: 19)
        let alphabet = Array("ab.é")
        func word(_ length: Int) -> String { String((0..<length).map { _ in alphabet[random.below(alphabet.count)] }) }
        for _ in 0..<300 {
            var set = KnownSecrets(capacity: 8)
            let values = (0..<(1 + random.below(8))).map { _ in word(6 + random.below(4)) }
            for value in values { set.remember(value) }
            for _ in 0..<10 {
                let text = word(random.below(40))
                #expect(set.scrub(text) == Self.plainScrub(text, values), "\(values) in \(text)")
            }
        }
    }

    /// What `scrub` must give, the slow way: every occurrence of every value, overlapping ones merged into one stretch
    /// (adjacent ones not), each stretch a marker of its Characters.
    private static func plainScrub(_ text: String, _ values: [String]) -> String {
        let bytes = Array(text.utf8)
        var matches: [Range<Int>] = []
        for value in Set(values) {
            let pattern = Array(value.utf8)
            guard pattern.count <= bytes.count else { continue }
            for start in 0...(bytes.count - pattern.count)
            where bytes[start..<start + pattern.count].elementsEqual(pattern) {
                matches.append(start..<start + pattern.count)
            }
        }
        var stretches: [Range<Int>] = []
        for match in matches.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = stretches.last, match.lowerBound < last.upperBound {
                stretches[stretches.count - 1] = last.lowerBound..<max(last.upperBound, match.upperBound)
            } else {
                stretches.append(match)
            }
        }
        var result = bytes
        for stretch in stretches.reversed() {
            let characters = String(decoding: bytes[stretch], as: UTF8.self).count
            result.replaceSubrange(stretch, with: KnownSecrets.marker(length: characters).utf8)
        }
        return String(decoding: result, as: UTF8.self)
    }
}
