import Foundation
import Testing

@testable import DeviceLogin

@Suite struct SignatureAlgorithmTests {
    @Test func namesAreExactAndOnlyAsymmetric() {
        #expect(SignatureAlgorithm.all.map(\.name) == ["RS256", "PS256", "ES256", "ES384", "EdDSA"])
        for name in ["none", "None", "HS256", "HS384", "HS512", "rs256", "RS512", "ES512", "Ed25519", "", "RS256 "] {
            #expect(SignatureAlgorithm(name: name) == nil, "\(name)")
        }
        #expect(SignatureAlgorithm.isHMAC("HS256") && SignatureAlgorithm.isHMAC("hs512"))
        #expect(!SignatureAlgorithm.isHMAC("RS256"))
    }

    /// Tokens signed by another JOSE implementation verify, and no longer do when one byte changes.
    @Test(arguments: JOSEVectors.all.map(\.algorithm))
    func verifiesWhatJoserfcSigned(name: String) throws {
        let vector = try #require(JOSEVectors.all.first { $0.algorithm == name })
        let algorithm = try #require(SignatureAlgorithm(name: name))
        let key = try JSONWebKey(jsonObject: try JSONWebKeyTests.object(vector.publicKey))
        let jws = try CompactJWS(vector.token, maximumBytes: 4096)
        #expect(jws.algorithmName == name)
        #expect(try algorithm.verify(jws.signature, over: jws.signingInput, with: key))
        var tampered = jws.signingInput
        tampered[tampered.count - 1] ^= 1
        #expect(try !algorithm.verify(jws.signature, over: tampered, with: key))
        var signature = jws.signature
        signature[0] ^= 0x80
        #expect(try !algorithm.verify(signature, over: jws.signingInput, with: key))
    }

    @Test(arguments: SignatureAlgorithm.all)
    func signsAndVerifiesItsOwn(algorithm: SignatureAlgorithm) throws {
        let signer = try TestSigningKeys.key(algorithm)
        let message = Array("header.payload".utf8)
        let signature = try signer.sign(message)
        switch algorithm {
        case .es256: #expect(signature.count == 64)
        case .es384: #expect(signature.count == 96)
        case .edDSA: #expect(signature.count == 64)
        default: #expect(signature.count == 256)
        }
        #expect(try algorithm.verify(signature, over: message, with: signer.publicKey))
        #expect(try !algorithm.verify(signature, over: message + [0], with: signer.publicKey))
        #expect(try !algorithm.verify(Array(signature.dropLast()), over: message, with: signer.publicKey))
        #expect(try !algorithm.verify(signature + [0], over: message, with: signer.publicKey))
        #expect(try !algorithm.verify([], over: message, with: signer.publicKey))
        #expect(try algorithm.verify(try signer.sign([]), over: [], with: signer.publicKey))
    }

    /// A signature made by another key of the same kind does not verify.
    @Test(arguments: SignatureAlgorithm.all)
    func anotherKeysSignatureDoesNotVerify(algorithm: SignatureAlgorithm) throws {
        let signer = try TestSigningKeys.key(algorithm)
        let other = try PrivateSigningKey.generate(for: algorithm)
        let message = Array("header.payload".utf8)
        #expect(try !algorithm.verify(try other.sign(message), over: message, with: signer.publicKey))
    }

    /// PKCS#1 v1.5 and PSS are told apart: RS256 with a PS256 signature, and the reverse, do not verify.
    @Test func rsaPaddingsAreNotInterchangeable() throws {
        let signer = try TestSigningKeys.key(.rs256)
        let rsa = try PrivateSigningKey(signer.key, algorithm: .ps256)
        let message = Array("m".utf8)
        #expect(try !SignatureAlgorithm.ps256.verify(try signer.sign(message), over: message, with: rsa.publicKey))
        #expect(try !SignatureAlgorithm.rs256.verify(try rsa.sign(message), over: message, with: signer.publicKey))
    }

    @Test func aKeyOfAnotherKindIsRefused() throws {
        let ec = try TestSigningKeys.key(.es256).publicKey
        let p384 = try TestSigningKeys.key(.es384).publicKey
        #expect(throws: CryptoError(.unsupported, "")) { try SignatureAlgorithm.rs256.verify([1], over: [1], with: ec) }
        #expect(throws: CryptoError(.unsupported, "")) {
            try SignatureAlgorithm.es256.verify([UInt8](repeating: 1, count: 64), over: [1], with: p384)
        }
        #expect(throws: CryptoError(.unsupported, "")) {
            try SignatureAlgorithm.edDSA.verify([UInt8](repeating: 1, count: 64), over: [1], with: ec)
        }
        var named = ec
        named.algorithm = "ES384"
        #expect(throws: CryptoError(.unsupported, "")) {
            try SignatureAlgorithm.es256.verify([UInt8](repeating: 1, count: 64), over: [1], with: named)
        }
    }

    /// An all-zero ECDSA signature (r = s = 0) is invalid, not an error.
    @Test func zeroECDSASignatureDoesNotVerify() throws {
        let key = try TestSigningKeys.key(.es256).publicKey
        #expect(try !SignatureAlgorithm.es256.verify([UInt8](repeating: 0, count: 64), over: [1], with: key))
        #expect(try !SignatureAlgorithm.es256.verify([UInt8](repeating: 0xFF, count: 64), over: [1], with: key))
    }
}
