import Foundation
import Testing

@testable import DeviceLogin

@Suite struct PrivateSigningKeyTests {
    @Test(arguments: SignatureAlgorithm.all)
    func compactJWSVerifiesWithItsPublicKey(algorithm: SignatureAlgorithm) throws {
        let key = try TestSigningKeys.key(algorithm)
        let token = try key.compactJWS(
            header: ["kid": .string("k1"), "typ": .string("JWT")], claims: ["sub": .string("s")])
        let jws = try CompactJWS(token, maximumBytes: 8192)
        #expect(jws.algorithmName == algorithm.name)
        #expect(jws.keyID == "k1")
        #expect(try jws.verifies(algorithm, with: key.publicKey(keyID: "k1")))
        #expect(key.publicKey(keyID: "k1").keyID == "k1")
        #expect(key.publicKey.algorithm == algorithm.name && key.publicKey.use == "sig")
    }

    @Test func refusesAKeyThatCannotSignTheAlgorithm() throws {
        let ec = try TestSigningKeys.key(.es256)
        #expect(throws: CryptoError(.unsupported, "")) { try PrivateSigningKey(ec.key, algorithm: .es384) }
        let publicOnly = try ec.publicKey.cryptoKey()
        #expect(throws: CryptoError(.unsupported, "")) { try PrivateSigningKey(publicOnly, algorithm: .es256) }
        #expect(throws: CryptoError(.operationFailed, "")) { try publicOnly.sign(.es256, message: [1]) }
    }

    @Test func refusesRSASizesOutOfRange() {
        #expect(throws: CryptoError(.operationFailed, "")) {
            try PrivateSigningKey.generate(for: .rs256, rsaBits: 1024)
        }
        #expect(throws: CryptoError(.operationFailed, "")) {
            try PrivateSigningKey.generate(for: .rs256, rsaBits: 8200)
        }
    }

    @Test func descriptionNamesOnlyTheKind() throws {
        #expect(try TestSigningKeys.key(.edDSA).description == "PrivateSigningKey(EdDSA, OKP Ed25519)")
    }
}
