#if canImport(CCrypto)
import CCrypto
#endif

/// An OpenSSL key (`EVP_PKEY`, through `CCrypto`), freed when the last reference goes: the one Swift type that calls
/// the C wrappers for keys, signatures and digests.
///
/// Every other type of the crypto layer is plain Swift values; this one turns them into calls. Each call first loads
/// libcrypto (``CryptoLibrary``), so nothing is loaded before a key is made or a digest asked for.
final class CryptoKey: @unchecked Sendable {
    // @unchecked: the pointer is never changed after the key is made, and OpenSSL allows one EVP_PKEY to be used for
    // signing and verifying from many threads at once.

    /// The kinds of key, as `CCrypto` numbers them.
    enum Kind: Int32, Sendable, Hashable {
        case rsa = 1
        case p256 = 2
        case p384 = 3
        case ed25519 = 4

        /// The size of one coordinate (and of the private scalar) of an EC key in bytes; nil for other kinds.
        var coordinateSize: Int? {
            switch self {
            case .p256: return 32
            case .p384: return 48
            case .rsa, .ed25519: return nil
            }
        }
    }

    /// The smallest RSA modulus accepted, in bits (RFC 7518 §3.3: "A key of size 2048 bits or larger MUST be used").
    static let minimumRSABits = 2048
    /// The largest RSA modulus accepted, in bits.
    static let maximumRSABits = 8192

    let kind: Kind

    #if canImport(CCrypto)
    private let pointer: OpaquePointer

    private init(_ pointer: OpaquePointer) {
        self.pointer = pointer
        self.kind = Kind(rawValue: dl_crypto_key_type(pointer)) ?? .rsa
    }

    deinit { dl_crypto_key_free(pointer) }

    /// Whether the key has its private part.
    var isPrivate: Bool { dl_crypto_key_is_private(pointer) != 0 }

    /// Makes a key with `make`, which gets an error buffer; a NULL result throws `code` with the wrapper's reason.
    private static func make(
        _ code: CryptoError.Code, _ what: String,
        _ body: (UnsafeMutablePointer<CChar>, Int) -> OpaquePointer?
    ) throws(CryptoError) -> CryptoKey {
        try CryptoLibrary.ensureLoaded()
        var reason = CryptoCall.errorBuffer()
        guard let made = body(&reason, CryptoCall.errorCapacity) else {
            throw CryptoError(code, "\(what): \(CryptoCall.message(in: reason))")
        }
        return CryptoKey(made)
    }

    /// An RSA public key from its modulus and exponent (unsigned big-endian, no leading zeros).
    static func rsaPublic(modulus: [UInt8], exponent: [UInt8]) throws(CryptoError) -> CryptoKey {
        try make(.invalidKey, "the RSA key cannot be used") { error, size in
            dl_crypto_rsa_public(modulus, modulus.count, exponent, exponent.count, error, size)
        }
    }

    /// An EC public key from its coordinates, each exactly the curve's coordinate size.
    static func ellipticCurvePublic(_ kind: Kind, x: [UInt8], y: [UInt8]) throws(CryptoError) -> CryptoKey {
        try make(.invalidKey, "the EC key cannot be used") { error, size in
            dl_crypto_ec_public(kind.rawValue, x, x.count, y, y.count, error, size)
        }
    }

    /// An EC key pair from its private scalar and public coordinates; refused unless they belong together.
    static func ellipticCurvePrivate(_ kind: Kind, d: [UInt8], x: [UInt8], y: [UInt8]) throws(CryptoError)
        -> CryptoKey
    {
        try make(.invalidKey, "the EC private key cannot be used") { error, size in
            dl_crypto_ec_private(kind.rawValue, d, d.count, x, x.count, y, y.count, error, size)
        }
    }

    /// An Ed25519 public key from its 32 bytes.
    static func ed25519Public(_ x: [UInt8]) throws(CryptoError) -> CryptoKey {
        try make(.invalidKey, "the Ed25519 key cannot be used") { error, size in
            dl_crypto_ed25519_public(x, x.count, error, size)
        }
    }

    /// A new key pair of `kind`; `rsaBits` is the modulus size of an RSA key.
    static func generate(_ kind: Kind, rsaBits: Int = 2048) throws(CryptoError) -> CryptoKey {
        guard let bits = Int32(exactly: rsaBits) else { throw CryptoError(.unsupported, "no such RSA key size") }
        return try make(.operationFailed, "no key could be generated") { error, size in
            dl_crypto_generate(kind.rawValue, bits, error, size)
        }
    }

    /// The public components: RSA `n` and `e`; EC `x` and `y`; Ed25519's 32 bytes and nothing.
    func publicComponents() throws(CryptoError) -> (first: [UInt8], second: [UInt8]) {
        let capacity = Self.maximumRSABits / 8
        var first = [UInt8](repeating: 0, count: capacity)
        var second = [UInt8](repeating: 0, count: capacity)
        var firstLength = 0
        var secondLength = 0
        var reason = CryptoCall.errorBuffer()
        let status = dl_crypto_public_components(
            pointer, &first, capacity, &firstLength, &second, capacity, &secondLength, &reason, CryptoCall.errorCapacity
        )
        guard status == 1, firstLength <= capacity, secondLength <= capacity else {
            throw CryptoError(.operationFailed, "the public key cannot be read: \(CryptoCall.message(in: reason))")
        }
        return (Array(first.prefix(firstLength)), Array(second.prefix(secondLength)))
    }

    /// The private scalar `d` of an EC key pair, the coordinate size long.
    func privateScalar() throws(CryptoError) -> [UInt8] {
        let capacity = 48
        var scalar = [UInt8](repeating: 0, count: capacity)
        var length = 0
        var reason = CryptoCall.errorBuffer()
        guard dl_crypto_ec_private_scalar(pointer, &scalar, capacity, &length, &reason, CryptoCall.errorCapacity) == 1,
            length <= capacity
        else {
            throw CryptoError(.operationFailed, "the private key cannot be read: \(CryptoCall.message(in: reason))")
        }
        return Array(scalar.prefix(length))
    }

    /// Whether `signature` is `algorithm`'s signature of `message` under this key.
    /// - Throws: ``CryptoError/Code/unsupported`` when the key does not suit the algorithm.
    func verify(_ algorithm: SignatureAlgorithm, signature: [UInt8], message: [UInt8]) throws(CryptoError) -> Bool {
        var reason = CryptoCall.errorBuffer()
        let status = dl_crypto_verify(
            pointer, algorithm.libraryCode, message, message.count, signature, signature.count, &reason,
            CryptoCall.errorCapacity
        )
        guard status >= 0 else {
            throw CryptoError(.unsupported, "cannot verify \(algorithm): \(CryptoCall.message(in: reason))")
        }
        return status == 1
    }

    /// `algorithm`'s signature of `message` under this private key, in the JWS form (raw r || s for ECDSA).
    func sign(_ algorithm: SignatureAlgorithm, message: [UInt8]) throws(CryptoError) -> [UInt8] {
        let capacity = Self.maximumRSABits / 8
        var signature = [UInt8](repeating: 0, count: capacity)
        var length = 0
        var reason = CryptoCall.errorBuffer()
        guard
            dl_crypto_sign(
                pointer, algorithm.libraryCode, message, message.count, &signature, capacity, &length, &reason,
                CryptoCall.errorCapacity
            ) == 1, length <= capacity
        else {
            throw CryptoError(.operationFailed, "cannot sign with \(algorithm): \(CryptoCall.message(in: reason))")
        }
        return Array(signature.prefix(length))
    }

    /// SHA-256 of `bytes`.
    static func sha256(_ bytes: [UInt8]) throws(CryptoError) -> [UInt8] {
        try CryptoLibrary.ensureLoaded()
        var digest = [UInt8](repeating: 0, count: 32)
        var reason = CryptoCall.errorBuffer()
        guard dl_crypto_sha256(bytes, bytes.count, &digest, &reason, CryptoCall.errorCapacity) == 1 else {
            throw CryptoError(.operationFailed, "SHA-256 failed: \(CryptoCall.message(in: reason))")
        }
        return digest
    }

    /// HMAC-SHA-256 (RFC 2104) of `message` under `key`.
    static func hmacSHA256(key: [UInt8], message: [UInt8]) throws(CryptoError) -> [UInt8] {
        try CryptoLibrary.ensureLoaded()
        var mac = [UInt8](repeating: 0, count: 32)
        var reason = CryptoCall.errorBuffer()
        guard
            dl_crypto_hmac_sha256(key, key.count, message, message.count, &mac, &reason, CryptoCall.errorCapacity)
                == 1
        else {
            throw CryptoError(.operationFailed, "HMAC-SHA-256 failed: \(CryptoCall.message(in: reason))")
        }
        return mac
    }
    #else
    private init() { kind = .rsa }

    var isPrivate: Bool { false }

    private static var unavailable: CryptoError {
        CryptoError(.libraryUnavailable, "verifying signatures needs OpenSSL 3, which this platform's build lacks")
    }

    static func rsaPublic(modulus: [UInt8], exponent: [UInt8]) throws(CryptoError) -> CryptoKey { throw unavailable }
    static func ellipticCurvePublic(_ kind: Kind, x: [UInt8], y: [UInt8]) throws(CryptoError) -> CryptoKey {
        throw unavailable
    }
    static func ellipticCurvePrivate(_ kind: Kind, d: [UInt8], x: [UInt8], y: [UInt8]) throws(CryptoError)
        -> CryptoKey
    { throw unavailable }
    static func ed25519Public(_ x: [UInt8]) throws(CryptoError) -> CryptoKey { throw unavailable }
    static func generate(_ kind: Kind, rsaBits: Int = 2048) throws(CryptoError) -> CryptoKey { throw unavailable }
    func publicComponents() throws(CryptoError) -> (first: [UInt8], second: [UInt8]) { throw Self.unavailable }
    func privateScalar() throws(CryptoError) -> [UInt8] { throw Self.unavailable }
    func verify(_ algorithm: SignatureAlgorithm, signature: [UInt8], message: [UInt8]) throws(CryptoError) -> Bool {
        throw Self.unavailable
    }
    func sign(_ algorithm: SignatureAlgorithm, message: [UInt8]) throws(CryptoError) -> [UInt8] {
        throw Self.unavailable
    }
    static func sha256(_ bytes: [UInt8]) throws(CryptoError) -> [UInt8] { throw unavailable }
    static func hmacSHA256(key: [UInt8], message: [UInt8]) throws(CryptoError) -> [UInt8] { throw unavailable }
    #endif
}
