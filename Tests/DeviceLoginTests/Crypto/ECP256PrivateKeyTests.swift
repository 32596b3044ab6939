import Foundation
import Testing

@testable import DeviceLogin

@Suite struct ECP256PrivateKeyTests {
    @Test func generatesSignsAndVerifies() throws {
        let key = try ECP256PrivateKey.generate()
        let message = Array("a DPoP proof's signing input".utf8)
        let signature = try key.sign(message)
        #expect(signature.count == 64)
        #expect(try SignatureAlgorithm.es256.verify(signature, over: message, with: key.publicKey))
        #expect(key.publicKey.keyType == "EC")
        #expect(key.publicKey.jsonObject["crv"] == .string("P-256"))
        #expect(key.publicKey.jsonObject["d"] == nil)
        #expect(try key.thumbprint() == key.publicKey.thumbprint())
        #expect(try key.thumbprint() != ECP256PrivateKey.generate().thumbprint())
    }

    @Test func thePrivateJWKReadsBackAsTheSameKey() throws {
        let key = try ECP256PrivateKey.generate()
        let jwk = try key.privateJSONWebKey()
        #expect(Set(jwk.keys) == ["kty", "crv", "x", "y", "d", "alg", "use"])
        let again = try ECP256PrivateKey(jsonObject: jwk)
        #expect(again.publicKey == key.publicKey)
        let message = Array("m".utf8)
        #expect(try SignatureAlgorithm.es256.verify(try again.sign(message), over: message, with: key.publicKey))
        #expect(try again.privateJSONWebKey() == jwk)
    }

    @Test func refusesAPrivateScalarOfAnotherPoint() throws {
        var jwk = try ECP256PrivateKey.generate().privateJSONWebKey()
        jwk["d"] = try ECP256PrivateKey.generate().privateJSONWebKey()["d"]
        #expect(throws: CryptoError(.invalidKey, "")) { try ECP256PrivateKey(jsonObject: jwk) }
    }

    @Test(arguments: ["kty", "crv", "x", "y", "d"])
    func refusesAMissingOrMalformedMember(member: String) throws {
        var jwk = try ECP256PrivateKey.generate().privateJSONWebKey()
        jwk[member] = nil
        #expect(throws: CryptoError(.invalidKey, "")) { try ECP256PrivateKey(jsonObject: jwk) }
        jwk[member] = .string("AAAA")
        #expect(throws: CryptoError(.invalidKey, "")) { try ECP256PrivateKey(jsonObject: jwk) }
        jwk[member] = .string(String(repeating: "A", count: 64))
        #expect(throws: CryptoError(.invalidKey, "")) { try ECP256PrivateKey(jsonObject: jwk) }
    }

    @Test func descriptionNeverShowsThePrivateScalar() throws {
        let key = try ECP256PrivateKey.generate()
        let d = try #require(try key.privateJSONWebKey()["d"]?.stringValue)
        #expect(!key.description.contains(d))
        #expect(!String(describing: key.signingKey).contains(d))
        #expect(key.description.hasPrefix("ECP256PrivateKey(JSONWebKey(EC P-256"))
    }
}
