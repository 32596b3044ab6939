import Foundation
import Testing

@testable import DeviceLogin

@Suite struct JSONWebKeySetTests {
    static func publicKeys() throws -> [JSONObject] {
        try JOSEVectors.all.map { try JSONWebKeyTests.object($0.publicKey) }
    }

    @Test func readsTheKeysAndSkipsWhatItCannotUse() throws {
        var entries = try Self.publicKeys().map(JSONValue.object)
        entries.append(.object(["kty": .string("oct"), "k": .string("c2VjcmV0")]))
        entries.append(
            .object(["kty": .string("EC"), "crv": .string("P-521"), "x": .string("AA"), "y": .string("AA")]))
        entries.append(.object(["kty": .string("RSA"), "n": .string("AQAB"), "e": .string("AQAB")]))
        entries.append(.string("not a key"))
        let set = try JSONWebKeySet(data: try JSONValue.encode(["keys": .array(entries)]))
        #expect(set.keys.map(\.keyID) == ["rs256-1", "ps256-1", "es256-1", "es384-1", "eddsa-1"])
        #expect(set.skipped == 4)
        #expect(try JSONWebKeySet(jsonObject: set.jsonObject).keys == set.keys)
    }

    @Test(arguments: [
        "", "[]", "{}", #"{"keys": {}}"#, #"{"keys": "x"}"#, "not json", #"{"keys": [1, 2"#,
    ])
    func refusesWhatIsNotAKeySet(text: String) {
        #expect(throws: CryptoError(.invalidKey, "")) { try JSONWebKeySet(data: Data(text.utf8)) }
    }

    @Test func anEmptySetIsASet() throws {
        #expect(try JSONWebKeySet(data: Data(#"{"keys": []}"#.utf8)).keys.isEmpty)
    }

    @Test func boundsTheSizeAndTheNumberOfKeys() throws {
        let key = JSONValue.object(["kty": .string("oct"), "k": .string("AA")])
        let hundred = try JSONValue.encode(["keys": .array(Array(repeating: key, count: 100))])
        #expect(try JSONWebKeySet(data: hundred).skipped == 100)
        let tooMany = try JSONValue.encode(["keys": .array(Array(repeating: key, count: 101))])
        #expect(throws: CryptoError(.invalidKey, "")) { try JSONWebKeySet(data: tooMany) }
        let padding = String(repeating: " ", count: JSONWebKeySet.maximumBytes)
        #expect(throws: CryptoError(.invalidKey, "")) {
            try JSONWebKeySet(data: Data((#"{"keys":[]}"# + padding).utf8))
        }
        let justFits = #"{"keys":[]}"# + String(repeating: " ", count: JSONWebKeySet.maximumBytes - 11)
        #expect(try JSONWebKeySet(data: Data(justFits.utf8)).keys.isEmpty)
    }

    @Test func selectsByKeyID() throws {
        let set = try JSONWebKeySet(jsonObject: ["keys": .array(try Self.publicKeys().map(JSONValue.object))])
        #expect(try set.key(for: .es256, keyID: "es256-1")?.keyID == "es256-1")
        #expect(try set.key(for: .rs256, keyID: "ps256-1")?.keyID == "ps256-1", "an RSA key serves both paddings")
        #expect(try set.key(for: .es256, keyID: "unknown") == nil)
        #expect(set.contains(keyID: "eddsa-1") && !set.contains(keyID: "unknown"))
        #expect(throws: CryptoError(.unsupported, "")) { try set.key(for: .es256, keyID: "rs256-1") }
        #expect(throws: CryptoError(.unsupported, "")) { try set.key(for: .es384, keyID: "es256-1") }
    }

    /// Without a `kid`, only the one key that suits the algorithm is chosen; none, or more than one, is no choice.
    @Test func withoutAKeyIDTheOnlySuitableKey() throws {
        let set = try JSONWebKeySet(jsonObject: ["keys": .array(try Self.publicKeys().map(JSONValue.object))])
        #expect(try set.key(for: .es384, keyID: nil)?.keyID == "es384-1")
        #expect(try set.key(for: .edDSA, keyID: nil)?.keyID == "eddsa-1")
        #expect(throws: CryptoError(.invalidKey, "")) { try set.key(for: .rs256, keyID: nil) }
        let onlyEC = JSONWebKeySet(keys: set.keys.filter { $0.keyType == "EC" })
        #expect(try onlyEC.key(for: .rs256, keyID: nil) == nil)
    }

    // Issue 17: a refused key left no trace, so a token naming it read "no key k1".
    @Test("a skipped entry with a kid keeps why it was refused; the first of a kid wins, a kid too long is not kept")
    func refusedKeysKeepTheirReason() throws {
        let small = Base64URL.encode([0xC0] + [UInt8](repeating: 0x55, count: 127))
        let entries: [JSONValue] = [
            .object(["kty": .string("RSA"), "kid": .string("k1"), "n": .string(small), "e": .string("AQAB")]),
            .object(["kty": .string("oct"), "kid": .string("k1"), "k": .string("AAAA")]),
            .object(["kty": .string("oct"), "kid": .string("k2"), "k": .string("AAAA")]),
            .object(["kty": .string("oct"), "kid": .string(String(repeating: "k", count: 300))]),
            .object(["kty": .string("oct")]),
        ]
        let set = try JSONWebKeySet(jsonObject: ["keys": .array(entries)])
        #expect(set.skipped == 5)
        #expect(set.refusedKeys["k1"] == "the RSA modulus has 1024 bits; 2048 to 8192 are accepted")
        #expect(set.refusedKeys["k2"]?.contains("oct") == true)
        #expect(set.refusedKeys.count == 2)
    }
}
