/// An EC P-256 private key that signs ES256 (RFC 7518 §3.4): the key of a DPoP client (RFC 9449).
///
/// Made with ``generate()``, or read back with ``init(jsonObject:)`` from the private JWK ``privateJSONWebKey()``
/// wrote (RFC 7518 §6.2.2: `kty`, `crv`, `x`, `y` and the private `d`). Keep that JWK as secret as a refresh token:
/// in a file of mode 0600 beside the tokens, never in a log. ``description`` never shows `d`.
///
/// ```swift
/// let key = try ECP256PrivateKey.generate()
/// let signature = try key.sign(Array("header.payload".utf8))   // 64 bytes: r || s
/// let jkt = try key.publicKey.thumbprint()                     // RFC 7638, for cnf.jkt
/// ```
public struct ECP256PrivateKey: Sendable, CustomStringConvertible {
    /// The key, as the package's signers use it.
    package let signingKey: PrivateSigningKey

    private init(_ key: CryptoKey) throws(CryptoError) {
        signingKey = try PrivateSigningKey(key, algorithm: .es256)
    }

    /// A new random key.
    /// - Throws: ``CryptoError``: ``CryptoError/Code/libraryUnavailable`` without libcrypto,
    ///   ``CryptoError/Code/operationFailed`` when OpenSSL cannot generate one.
    public static func generate() throws(CryptoError) -> ECP256PrivateKey {
        try ECP256PrivateKey(CryptoKey.generate(.p256))
    }

    /// Reads a key from its private JWK: `kty: EC`, `crv: P-256`, and `x`, `y`, `d` of 32 bytes each in base64url.
    /// - Parameter object: The JWK, as ``privateJSONWebKey()`` writes it.
    /// - Throws: ``CryptoError`` with code ``CryptoError/Code/invalidKey`` when a member is missing or malformed, or
    ///   `d` does not belong to the point (`x`, `y`); ``CryptoError/Code/libraryUnavailable`` without libcrypto.
    public init(jsonObject object: JSONObject) throws(CryptoError) {
        guard try JSONWebKey.member("kty", of: object) == "EC", try JSONWebKey.member("crv", of: object) == "P-256"
        else {
            throw CryptoError(.invalidKey, "the private key is not an EC P-256 key")
        }
        let x = try JSONWebKey.component("x", of: object, maximumBytes: 32)
        let y = try JSONWebKey.component("y", of: object, maximumBytes: 32)
        let d = try JSONWebKey.component("d", of: object, maximumBytes: 32)
        guard x.count == 32, y.count == 32, d.count == 32 else {
            throw CryptoError(.invalidKey, "a component of the EC P-256 private key is not 32 bytes")
        }
        try self.init(CryptoKey.ellipticCurvePrivate(.p256, d: d, x: x, y: y))
    }

    /// The public key: `kty: EC`, `crv: P-256`, `x`, `y`, with `alg: ES256` and `use: sig` — what a DPoP proof's
    /// header carries as `jwk`.
    public var publicKey: JSONWebKey { signingKey.publicKey }

    /// The private JWK (RFC 7518 §6.2.2): the public members and `d`. Secret: store it 0600, never print it.
    /// - Throws: ``CryptoError`` with code ``CryptoError/Code/operationFailed`` when OpenSSL cannot export it.
    public func privateJSONWebKey() throws(CryptoError) -> JSONObject {
        var object = publicKey.jsonObject
        object["d"] = .string(Base64URL.encode(try signingKey.key.privateScalar()))
        return object
    }

    /// The ES256 signature of `message`: the 64 bytes r || s (RFC 7518 §3.4), as a JWS carries it.
    /// - Throws: ``CryptoError`` with code ``CryptoError/Code/operationFailed``.
    public func sign(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        try signingKey.sign(message)
    }

    /// The public key's JWK thumbprint (RFC 7638), base64url: DPoP's `jkt` (RFC 9449 §6.1).
    /// - Throws: ``CryptoError`` with code ``CryptoError/Code/libraryUnavailable`` without libcrypto.
    public func thumbprint() throws(CryptoError) -> String {
        try publicKey.thumbprint()
    }

    /// The public key, never `d`.
    public var description: String { "ECP256PrivateKey(\(publicKey))" }
}
