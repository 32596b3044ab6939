/// A JWS signature algorithm this library verifies and makes (RFC 7518 §3.1, RFC 8037 §3.1).
///
/// Only asymmetric algorithms: `none` and the HMAC algorithms (`HS256`...) have no value here, so a token that names
/// one can never be verified (RFC 8725 §3.1–3.2: a public key must never serve as an HMAC secret).
///
/// ```swift
/// guard let algorithm = SignatureAlgorithm(name: header["alg"]?.stringValue ?? "") else { throw refused }
/// let valid = try algorithm.verify(signature, over: Array(signingInput.utf8), with: key)
/// ```
public struct SignatureAlgorithm: Sendable, Hashable, CustomStringConvertible {
    private enum Value: String, Sendable, Hashable, CaseIterable {
        case rs256 = "RS256"
        case ps256 = "PS256"
        case es256 = "ES256"
        case es384 = "ES384"
        case edDSA = "EdDSA"
    }
    private let value: Value

    /// `RS256`: RSASSA-PKCS1-v1_5 with SHA-256 (RFC 7518 §3.3), the OpenID Connect default.
    public static let rs256 = SignatureAlgorithm(value: .rs256)
    /// `PS256`: RSASSA-PSS with SHA-256, MGF1 with SHA-256 and a 32-byte salt (RFC 7518 §3.5).
    public static let ps256 = SignatureAlgorithm(value: .ps256)
    /// `ES256`: ECDSA with P-256 and SHA-256; the signature is the 64 bytes r || s (RFC 7518 §3.4).
    public static let es256 = SignatureAlgorithm(value: .es256)
    /// `ES384`: ECDSA with P-384 and SHA-384; the signature is the 96 bytes r || s (RFC 7518 §3.4).
    public static let es384 = SignatureAlgorithm(value: .es384)
    /// `EdDSA` with Ed25519 (RFC 8037 §3.1).
    public static let edDSA = SignatureAlgorithm(value: .edDSA)

    /// Every algorithm, in the order above.
    public static let all: [SignatureAlgorithm] = Value.allCases.map { SignatureAlgorithm(value: $0) }

    /// The algorithm a JWS header's `alg` names, exactly (the names are case-sensitive, RFC 7515 §4.1.1); nil for
    /// any other, `none` and the HMAC algorithms included.
    public init?(name: String) {
        guard let value = Value(rawValue: name) else { return nil }
        self.value = value
    }

    private init(value: Value) {
        self.value = value
    }

    /// The name in a JWS header's `alg`.
    public var name: String { value.rawValue }

    public var description: String { name }

    /// Whether `name` is a symmetric algorithm (`HS256`, `HS384`, `HS512`), which must never be verified with a
    /// server's public key.
    public static func isHMAC(_ name: String) -> Bool {
        name.uppercased().hasPrefix("HS")
    }

    /// The kind of key this algorithm needs.
    var keyKind: CryptoKey.Kind {
        switch value {
        case .rs256, .ps256: return .rsa
        case .es256: return .p256
        case .es384: return .p384
        case .edDSA: return .ed25519
        }
    }

    /// The algorithm's number in `CCrypto` (`DL_CRYPTO_RS256`...).
    var libraryCode: Int32 {
        switch value {
        case .rs256: return 1
        case .ps256: return 2
        case .es256: return 3
        case .es384: return 4
        case .edDSA: return 5
        }
    }

    /// Verifies a JWS signature.
    ///
    /// ```swift
    /// let valid = try SignatureAlgorithm.es256.verify(signature, over: Array(signingInput.utf8), with: key)
    /// ```
    /// - Parameters:
    ///   - signature: The signature's bytes, in the JWS form (raw r || s for ECDSA).
    ///   - message: The bytes signed: for a JWS, the ASCII of `header.payload`.
    ///   - key: The public key, which must suit the algorithm (``JSONWebKey/suits(_:)``).
    /// - Returns: Whether the signature is valid; `false` also for a signature of the wrong length.
    /// - Throws: ``CryptoError`` with code ``CryptoError/Code/unsupported`` when the key does not suit the algorithm,
    ///   ``CryptoError/Code/invalidKey`` when OpenSSL refuses the key, ``CryptoError/Code/libraryUnavailable``
    ///   without libcrypto.
    public func verify(_ signature: [UInt8], over message: [UInt8], with key: JSONWebKey) throws(CryptoError) -> Bool {
        guard key.suits(self) else {
            throw CryptoError(.unsupported, "a \(key.typeDescription) key cannot verify \(name) signatures")
        }
        return try key.cryptoKey().verify(self, signature: signature, message: message)
    }
}
