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
}
