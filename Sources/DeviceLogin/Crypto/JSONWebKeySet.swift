#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A JSON Web Key Set (RFC 7517 §5): what an issuer serves at its `jwks_uri`, bounded.
///
/// Keys this library cannot use — another `kty` (`oct`), another curve, a missing or malformed member — are
/// skipped and counted, as RFC 7517 §5 asks ("Implementations SHOULD ignore JWKs within a JWK Set that use "kty"
/// (key type) values that are not understood by them, that are missing required members, or for which values are
/// out of the supported ranges"). The set itself must be a JSON object with a `keys` array, at most
/// ``maximumBytes`` long and with at most ``maximumKeys`` entries.
///
/// ```swift
/// let set = try JSONWebKeySet(data: response.body)
/// let key = try set.key(for: .rs256, keyID: header.keyID)
/// ```
public struct JSONWebKeySet: Sendable, Hashable {
    /// The largest key set read: 256 KiB.
    public static let maximumBytes = 256 * 1024
    /// The most entries a key set may have: 100.
    public static let maximumKeys = 100

    /// The keys this library can use, in the order served.
    public var keys: [JSONWebKey]
    /// How many entries were skipped as unusable.
    public var skipped: Int
    /// Why each skipped entry that has a `kid` was refused, by its `kid` ("the RSA modulus has 1024 bits; …"), so
    /// that a token naming it can say why it does not verify rather than that the key is missing. Only the first
    /// entry of a `kid` is kept; a `kid` longer than ``JSONWebKey/maximumKeyIDBytes`` is not.
    public var refusedKeys: [String: String]

    /// Creates a set of keys.
    /// - Parameters:
    ///   - keys: The usable keys.
    ///   - skipped: How many entries were skipped.
    ///   - refusedKeys: Why skipped entries were refused, by `kid`.
    public init(keys: [JSONWebKey], skipped: Int = 0, refusedKeys: [String: String] = [:]) {
        self.keys = keys
        self.skipped = skipped
        self.refusedKeys = refusedKeys
    }

    /// Reads a key set from its JSON text.
    /// - Parameter data: The body served at `jwks_uri`.
    /// - Throws: ``CryptoError`` with code ``CryptoError/Code/invalidKey`` when the text is larger than
    ///   ``maximumBytes``, is not a JSON object with a `keys` array, or has more than ``maximumKeys`` entries.
    public init(data: Data) throws(CryptoError) {
        guard data.count <= Self.maximumBytes else {
            throw CryptoError(.invalidKey, "the key set is larger than \(Self.maximumBytes / 1024) KiB")
        }
        let object: JSONObject
        do {
            object = try JSONValue.decodeObject(from: data)
        } catch {
            throw CryptoError(.invalidKey, "the key set is not a JSON object")
        }
        try self.init(jsonObject: object)
    }

    /// Reads a key set from its JSON object.
    /// - Throws: As ``init(data:)``.
    public init(jsonObject object: JSONObject) throws(CryptoError) {
        guard case .array(let entries)? = object["keys"] else {
            throw CryptoError(.invalidKey, "the key set has no keys array")
        }
        guard entries.count <= Self.maximumKeys else {
            throw CryptoError(
                .invalidKey, "the key set has \(entries.count) keys; at most \(Self.maximumKeys) are read")
        }
        var keys: [JSONWebKey] = []
        var skipped = 0
        var refused: [String: String] = [:]
        for entry in entries {
            guard case .object(let members) = entry else {
                skipped += 1
                continue
            }
            do {
                keys.append(try JSONWebKey(jsonObject: members))
            } catch {
                skipped += 1
                if case .string(let kid)? = members["kid"], kid.utf8.count <= JSONWebKey.maximumKeyIDBytes,
                    refused[kid] == nil
                {
                    refused[kid] = error.message
                }
            }
        }
        self.init(keys: keys, skipped: skipped, refusedKeys: refused)
    }

    /// The set as JSON: `{"keys": [...]}`, each key's public members.
    public var jsonObject: JSONObject {
        ["keys": .array(keys.map { .object($0.jsonObject) })]
    }

    /// Whether the set has a key with this `kid`.
    public func contains(keyID: String) -> Bool {
        keys.contains { $0.keyID == keyID }
    }

    /// The key that verifies `algorithm`'s signatures for a JWS whose header names `keyID`.
    ///
    /// With a `kid`, the key with that `kid`, which must suit the algorithm. Without one, the only key that suits
    /// the algorithm: when several do, the token does not say which, and none is chosen.
    /// - Returns: The key, or nil when no key has the `kid`, or (without a `kid`) none suits the algorithm: the set
    ///   may be out of date, so fetch it again once.
    /// - Throws: ``CryptoError`` with code ``CryptoError/Code/unsupported`` when the key named does not suit the
    ///   algorithm, ``CryptoError/Code/invalidKey`` when no `kid` is given and several keys suit it.
    public func key(for algorithm: SignatureAlgorithm, keyID: String?) throws(CryptoError) -> JSONWebKey? {
        if let keyID {
            guard let key = keys.first(where: { $0.keyID == keyID }) else { return nil }
            guard key.suits(algorithm) else {
                throw CryptoError(
                    .unsupported, "the key the token names (\(key.typeDescription)) cannot verify \(algorithm)"
                )
            }
            return key
        }
        let suitable = keys.filter { $0.suits(algorithm) }
        guard suitable.count <= 1 else {
            throw CryptoError(
                .invalidKey, "the token names no kid and the key set has \(suitable.count) keys for \(algorithm)"
            )
        }
        return suitable.first
    }
}
