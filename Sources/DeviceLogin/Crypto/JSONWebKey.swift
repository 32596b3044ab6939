/// A public JSON Web Key (RFC 7517) of a kind this library verifies with: RSA (`n`, `e`), EC on P-256 or P-384
/// (`x`, `y`), or Ed25519 (`OKP`, `x`) — RFC 7518 §6, RFC 8037 §2.
///
/// Reading is strict: base64url without padding, every component the exact size its curve needs (RFC 7518
/// §6.2.1.2: "MUST be the full size of a coordinate"), RSA moduli of 2048 to 8192 bits. Private members (`d`...)
/// are ignored: this type holds public keys only.
///
/// ```swift
/// let set = try JSONWebKeySet(data: response.body)     // what jwks_uri serves
/// for key in set.keys { print(key, try key.thumbprint()) }
/// ```
public struct JSONWebKey: Sendable, Hashable {
    /// The curves of EC and OKP keys.
    public enum Curve: String, Sendable, Hashable, CaseIterable {
        /// NIST P-256 (`crv: P-256`), for ES256.
        case p256 = "P-256"
        /// NIST P-384 (`crv: P-384`), for ES384.
        case p384 = "P-384"
        /// Ed25519 (`crv: Ed25519`, RFC 8037), for EdDSA.
        case ed25519 = "Ed25519"
    }

    /// The key itself.
    public enum Material: Sendable, Hashable {
        /// `kty: RSA`: the modulus `n` and public exponent `e`, unsigned big-endian without leading zeros.
        case rsa(modulus: [UInt8], exponent: [UInt8])
        /// `kty: EC` on ``Curve/p256`` or ``Curve/p384``: the affine coordinates `x`, `y`, each the coordinate size.
        case ellipticCurve(Curve, x: [UInt8], y: [UInt8])
        /// `kty: OKP` on ``Curve/ed25519``: the 32-byte public key `x`.
        case octetKeyPair(Curve, x: [UInt8])
    }

    /// The longest `kid` accepted, in UTF-8 bytes: 256.
    public static let maximumKeyIDBytes = 256

    /// The key.
    public var material: Material
    /// `kid`, when the key has one.
    public var keyID: String?
    /// `alg`: the one algorithm the key is for, when it says (RFC 7517 §4.4).
    public var algorithm: String?
    /// `use`: `sig` or `enc`, when it says (RFC 7517 §4.2).
    public var use: String?
    /// `key_ops`: what the key may do (`verify`...), when it says (RFC 7517 §4.3).
    public var operations: [String]?

    /// Creates a key from its material, checking every size.
    /// - Parameters:
    ///   - material: The key.
    ///   - keyID: `kid`.
    ///   - algorithm: `alg`.
    ///   - use: `use`.
    ///   - operations: `key_ops`.
    /// - Throws: ``CryptoError`` with code ``CryptoError/Code/invalidKey`` for a component of the wrong size, a
    ///   curve that does not fit the key type, or a `kid` longer than ``maximumKeyIDBytes``.
    public init(
        material: Material, keyID: String? = nil, algorithm: String? = nil, use: String? = nil,
        operations: [String]? = nil
    ) throws(CryptoError) {
        try Self.check(material)
        if let keyID, keyID.utf8.count > Self.maximumKeyIDBytes {
            throw CryptoError(.invalidKey, "the key's kid is longer than \(Self.maximumKeyIDBytes) bytes")
        }
        self.material = material
        self.keyID = keyID
        self.algorithm = algorithm
        self.use = use
        self.operations = operations
    }

    /// `kty`: `RSA`, `EC` or `OKP`.
    public var keyType: String {
        switch material {
        case .rsa: return "RSA"
        case .ellipticCurve: return "EC"
        case .octetKeyPair: return "OKP"
        }
    }

    /// The key type and curve, for messages: `RSA`, `EC P-256`, `OKP Ed25519`.
    var typeDescription: String {
        switch material {
        case .rsa: return "RSA"
        case .ellipticCurve(let curve, _, _), .octetKeyPair(let curve, _): return "\(keyType) \(curve.rawValue)"
        }
    }

    /// The kind of OpenSSL key the material makes.
    var kind: CryptoKey.Kind {
        switch material {
        case .rsa: return .rsa
        case .ellipticCurve(let curve, _, _): return curve == .p384 ? .p384 : .p256
        case .octetKeyPair: return .ed25519
        }
    }

    /// Whether this key may verify `algorithm`'s signatures: the key type and curve the algorithm needs, `alg` (if
    /// any) naming that algorithm, `use` (if any) `sig`, and `key_ops` (if any) containing `verify`.
    public func suits(_ algorithm: SignatureAlgorithm) -> Bool {
        kind == algorithm.keyKind && (self.algorithm == nil || self.algorithm == algorithm.name)
            && (use == nil || use == "sig") && (operations == nil || operations?.contains("verify") == true)
    }

    /// The OpenSSL key for the material.
    func cryptoKey() throws(CryptoError) -> CryptoKey {
        switch material {
        case .rsa(let modulus, let exponent): return try CryptoKey.rsaPublic(modulus: modulus, exponent: exponent)
        case .ellipticCurve(_, let x, let y): return try CryptoKey.ellipticCurvePublic(kind, x: x, y: y)
        case .octetKeyPair(_, let x): return try CryptoKey.ed25519Public(x)
        }
    }

    /// The key's material from an OpenSSL key's public components.
    static func material(of key: CryptoKey) throws(CryptoError) -> Material {
        let (first, second) = try key.publicComponents()
        switch key.kind {
        case .rsa: return .rsa(modulus: first, exponent: second)
        case .p256: return .ellipticCurve(.p256, x: first, y: second)
        case .p384: return .ellipticCurve(.p384, x: first, y: second)
        case .ed25519: return .octetKeyPair(.ed25519, x: first)
        }
    }

    /// Checks the sizes RFC 7518 §6 and RFC 8037 §2 demand.
    private static func check(_ material: Material) throws(CryptoError) {
        switch material {
        case .rsa(let modulus, let exponent):
            guard let first = modulus.first, first != 0 else {
                throw CryptoError(.invalidKey, "the RSA modulus is empty or has a leading zero byte")
            }
            let bits = modulus.count * 8 - first.leadingZeroBitCount
            guard (CryptoKey.minimumRSABits...CryptoKey.maximumRSABits).contains(bits) else {
                throw CryptoError(
                    .invalidKey,
                    "the RSA modulus has \(bits) bits; \(CryptoKey.minimumRSABits) to \(CryptoKey.maximumRSABits) "
                        + "are accepted")
            }
            guard (1...8).contains(exponent.count), exponent.first != 0 else {
                throw CryptoError(.invalidKey, "the RSA exponent is not 1 to 8 bytes without a leading zero")
            }
        case .ellipticCurve(let curve, let x, let y):
            let size: Int
            switch curve {
            case .p256: size = 32
            case .p384: size = 48
            case .ed25519: throw CryptoError(.invalidKey, "Ed25519 is not an EC curve (its kty is OKP)")
            }
            guard x.count == size, y.count == size else {
                throw CryptoError(.invalidKey, "an EC \(curve.rawValue) coordinate is not \(size) bytes")
            }
        case .octetKeyPair(let curve, let x):
            guard curve == .ed25519 else {
                throw CryptoError(.invalidKey, "\(curve.rawValue) is not an OKP curve (its kty is EC)")
            }
            guard x.count == 32 else { throw CryptoError(.invalidKey, "an Ed25519 public key is not 32 bytes") }
        }
    }
}

extension JSONWebKey: CustomStringConvertible {
    /// The key type, curve, `kid` and `alg`.
    public var description: String {
        "JSONWebKey(\(typeDescription), kid: \(keyID ?? "none"), alg: \(algorithm ?? "any"))"
    }
}
