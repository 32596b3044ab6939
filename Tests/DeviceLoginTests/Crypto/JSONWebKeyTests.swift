import Foundation
import Testing

@testable import DeviceLogin

@Suite struct JSONWebKeyTests {
    static func object(_ text: String) throws -> JSONObject {
        try JSONValue.decodeObject(from: Data(text.utf8))
    }

    static func vector(_ algorithm: String) throws -> JSONObject {
        try object(try #require(JOSEVectors.all.first { $0.algorithm == algorithm }).publicKey)
    }

    @Test(arguments: JOSEVectors.all.map(\.algorithm))
    func readsEveryKindOfKeyAndItsThumbprintMatchesJoserfc(algorithm: String) throws {
        let vector = try #require(JOSEVectors.all.first { $0.algorithm == algorithm })
        let key = try JSONWebKey(jsonObject: try Self.object(vector.publicKey))
        #expect(key.keyID == algorithm.lowercased() + "-1")
        #expect(try key.thumbprint() == vector.thumbprint)
        #expect(try JSONWebKey(jsonObject: key.jsonObject) == key)
        #expect(key.suits(try #require(SignatureAlgorithm(name: algorithm))))
    }

    /// RFC 8037 Appendix A.2 and A.3: the Ed25519 public key and its thumbprint.
    @Test func rfc8037Thumbprint() throws {
        let key = try JSONWebKey(jsonObject: [
            "kty": .string("OKP"), "crv": .string("Ed25519"),
            "x": .string("11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"),
        ])
        #expect(
            key.thumbprintInput == #"{"crv":"Ed25519","kty":"OKP","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}"#)
        #expect(try key.thumbprint() == "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k")
    }

    @Test func thumbprintInputHasOnlyTheRequiredMembersInOrder() throws {
        var object = try Self.vector("ES256")
        object["kid"] = .string("k")
        object["alg"] = .string("ES256")
        object["use"] = .string("sig")
        let key = try JSONWebKey(jsonObject: object)
        #expect(key.thumbprintInput.hasPrefix(#"{"crv":"P-256","kty":"EC","x":""#))
        #expect(!key.thumbprintInput.contains("kid"))
    }

    /// Each member must have its JSON type and strict base64url; each component its exact size.
    @Test(arguments: [
        ("ES256", "x", JSONValue.string("")),
        ("ES256", "x", .string("AAAA")), // 3 bytes, not 32
        ("ES256", "y", .string(String(repeating: "A", count: 64))), // 48 bytes on P-256
        ("ES384", "x", .string(String(repeating: "A", count: 43))), // 32 bytes on P-384
        ("EdDSA", "x", .string(String(repeating: "A", count: 42) + "=")), // padding
        ("EdDSA", "x", .string("11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo=")),
        ("EdDSA", "x", .string("11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo")), // standard alphabet
        ("EdDSA", "x", .string("11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHUR")), // 31 bytes
        ("EdDSA", "x", .number(1)),
        ("RS256", "n", .string("AQAB")), // 17 bits
        ("RS256", "n", .string(Base64URL.encode([UInt8](repeating: 0xFF, count: 1025)))), // 8200 bits
        ("RS256", "n", .string(String(repeating: "_", count: 100_000))), // huge
        ("RS256", "e", .string("")),
        ("RS256", "e", .string("AAAA")), // zero
        ("RS256", "e", .string(Base64URL.encode([1, 0, 0, 0, 0, 0, 0, 0, 1]))), // 9 bytes
        ("RS256", "kid", .number(7)),
        ("RS256", "kid", .string(String(repeating: "k", count: 257))),
        ("RS256", "alg", .bool(true)),
        ("RS256", "key_ops", .string("verify")),
        ("RS256", "key_ops", .array([.number(1)])),
    ])
    func refusesMalformedMembers(algorithm: String, member: String, value: JSONValue) throws {
        var object = try Self.vector(algorithm)
        object[member] = value
        #expect(throws: CryptoError(.invalidKey, "")) { try JSONWebKey(jsonObject: object) }
    }

    @Test(arguments: ["RS256", "ES256", "EdDSA"])
    func refusesAMissingComponent(algorithm: String) throws {
        var object = try Self.vector(algorithm)
        object[algorithm == "RS256" ? "n" : "x"] = nil
        #expect(throws: CryptoError(.invalidKey, "")) { try JSONWebKey(jsonObject: object) }
    }

    @Test(
        arguments: [
            ("oct", nil), ("EC", "P-521"), ("EC", "secp256k1"), ("EC", "Ed25519"), ("OKP", "X25519"), ("OKP", "Ed448"),
            ("OKP", "P-256"), ("rsa", nil),
        ] as [(String, String?)])
    func refusesKindsItDoesNotVerifyWith(keyType: String, curve: String?) throws {
        var object = try Self.vector(keyType == "OKP" ? "EdDSA" : "ES256")
        object["kty"] = .string(keyType)
        object["crv"] = curve.map(JSONValue.string)
        #expect(throws: CryptoError(.unsupported, "")) { try JSONWebKey(jsonObject: object) }
    }

    @Test func dropsLeadingZeroBytesOfTheModulus() throws {
        var object = try Self.vector("RS256")
        let modulus = try #require(object["n"]?.stringValue.flatMap { Base64URL.decode($0, maximumBytes: 512) })
        object["n"] = .string(Base64URL.encode([0] + modulus))
        let key = try JSONWebKey(jsonObject: object)
        #expect(key.material == .rsa(modulus: modulus, exponent: [1, 0, 1]))
    }

    @Test func ignoresPrivateAndUnknownMembers() throws {
        var object = try Self.vector("ES256")
        object["d"] = .string("secret")
        object["x5c"] = .array([])
        let key = try JSONWebKey(jsonObject: object)
        #expect(key.jsonObject["d"] == nil)
        #expect(key.jsonObject["x5c"] == nil)
    }

    @Test func suitsOnlyItsAlgorithmUseAndOperations() throws {
        var key = try JSONWebKey(jsonObject: try Self.vector("RS256"))
        #expect(key.suits(.rs256) && key.suits(.ps256))
        #expect(!key.suits(.es256) && !key.suits(.edDSA))
        key.algorithm = "RS256"
        #expect(key.suits(.rs256) && !key.suits(.ps256))
        key.use = "enc"
        #expect(!key.suits(.rs256))
        key.use = "sig"
        key.operations = ["encrypt"]
        #expect(!key.suits(.rs256))
        key.operations = ["sign", "verify"]
        #expect(key.suits(.rs256))
        let p384 = try JSONWebKey(jsonObject: try Self.vector("ES384"))
        #expect(p384.suits(.es384) && !p384.suits(.es256))
    }

    @Test func refusesWrongSizesWhenBuiltInCode() {
        #expect(throws: CryptoError(.invalidKey, "")) {
            try JSONWebKey(material: .ellipticCurve(.p256, x: [UInt8](repeating: 1, count: 32), y: [1]))
        }
        #expect(throws: CryptoError(.invalidKey, "")) {
            try JSONWebKey(material: .ellipticCurve(.ed25519, x: [], y: []))
        }
        #expect(throws: CryptoError(.invalidKey, "")) {
            try JSONWebKey(material: .octetKeyPair(.p256, x: [UInt8](repeating: 1, count: 32)))
        }
        #expect(throws: CryptoError(.invalidKey, "")) {
            try JSONWebKey(material: .rsa(modulus: [0] + [UInt8](repeating: 0xFF, count: 256), exponent: [3]))
        }
    }

    /// A point that is not on the curve reads as a JWK (the sizes are right) but OpenSSL refuses to use it.
    @Test func aPointOffTheCurveCannotVerify() throws {
        var object = try Self.vector("ES256")
        object["y"] = .string(Base64URL.encode([UInt8](repeating: 7, count: 32)))
        let key = try JSONWebKey(jsonObject: object)
        #expect(throws: CryptoError(.invalidKey, "")) {
            try SignatureAlgorithm.es256.verify([UInt8](repeating: 1, count: 64), over: [1], with: key)
        }
    }

    @Test func descriptionNamesTheKindNotTheKey() throws {
        let key = try JSONWebKey(jsonObject: try Self.vector("ES384"))
        #expect(key.description == "JSONWebKey(EC P-384, kid: es384-1, alg: any)")
    }
}
