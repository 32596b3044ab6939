import Foundation
import Testing

@testable import DeviceLogin

@Suite struct IDTokenVerificationTests {
    @Test func isAboutTheTokenItsDigestNames() throws {
        let digest = try SHA256Digest.base64URL(of: "header.payload.signature")
        let verdict = IDTokenVerification(outcome: .verified, tokenDigest: digest, checkedAt: Fixtures.start)
        #expect(verdict.isAbout("header.payload.signature"))
        #expect(!verdict.isAbout("header.payload.signaturf"))
        #expect(!IDTokenVerification(outcome: .verified, tokenDigest: nil, checkedAt: Fixtures.start).isAbout("x"))
    }

    @Test func onlyVerifiedAndRefusedVerdictsAboutATokenAreFinal() {
        #expect(IDTokenVerification(outcome: .verified, tokenDigest: "d", checkedAt: Fixtures.start).isFinal)
        #expect(IDTokenVerification(outcome: .refused, tokenDigest: "d", checkedAt: Fixtures.start).isFinal)
        #expect(!IDTokenVerification(outcome: .undetermined, tokenDigest: "d", checkedAt: Fixtures.start).isFinal)
        #expect(!IDTokenVerification(outcome: .refused, tokenDigest: nil, checkedAt: Fixtures.start).isFinal)
        #expect(!IDTokenVerification(outcome: .refused, tokenDigest: "d", checkedAt: Fixtures.start).isVerified)
    }

    @Test func descriptionSaysWhatCameOfItNeverTheToken() {
        let verdict = IDTokenVerification(
            outcome: .refused, problem: "the signature does not verify", algorithm: "ES256", keyID: "k1",
            tokenDigest: "d", checkedAt: Fixtures.start
        )
        #expect(
            verdict.description
                == "IDTokenVerification(refused, alg: ES256, kid: k1, problem: the signature does not verify)")
    }

    @Test func aVerdictOfUnavailableKeysIsRecentOnlyWithinTheInterval() {
        let at = Fixtures.start
        let verdict = IDTokenVerification(
            outcome: .undetermined, tokenDigest: "d", checkedAt: at, keysUnavailableAt: at)
        let interval = JSONWebKeySetCache.defaultRefetchInterval
        #expect(verdict.isRecent(at: at, within: interval))
        #expect(verdict.isRecent(at: at + 299, within: interval))
        #expect(!verdict.isRecent(at: at + 300, within: interval))
        #expect(!verdict.isRecent(at: at - 1, within: interval), "a clock set back")
        let old = IDTokenVerification(outcome: .undetermined, tokenDigest: "d", checkedAt: at)
        #expect(!old.isRecent(at: at, within: interval), "a record written before the field")
    }

    @Test func keysUnavailableAtIsStoredAndOptionalOnRead() throws {
        let verdict = IDTokenVerification(
            outcome: .undetermined, problem: "p", tokenDigest: "d", checkedAt: Fixtures.start,
            keysUnavailableAt: Fixtures.start + 60)
        let data = try JSONEncoder().encode(verdict)
        #expect(String(decoding: data, as: UTF8.self).contains("\"keys_unavailable_at\":"))
        #expect(try JSONDecoder().decode(IDTokenVerification.self, from: data) == verdict)
        let old = Data(#"{"outcome":"undetermined","sha256":"d","checked_at":1800000000}"#.utf8)
        #expect(try JSONDecoder().decode(IDTokenVerification.self, from: old).keysUnavailableAt == nil)
    }
}
