#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A private key for one signature algorithm, and the compact JWS it signs (RFC 7515 §7.1).
///
/// For the package's own signers: the testing kit's mock server signs ID tokens with one in every algorithm, and
/// ``ECP256PrivateKey`` (DPoP) is one for ES256. Never shown: ``description`` names only the algorithm and key type.
package struct PrivateSigningKey: Sendable, CustomStringConvertible {
    /// The algorithm the key signs with.
    package let algorithm: SignatureAlgorithm
    let key: CryptoKey
    /// The public half, with `alg` set and no `kid`.
    package let publicKey: JSONWebKey

    /// Wraps an OpenSSL private key that suits `algorithm`.
    init(_ key: CryptoKey, algorithm: SignatureAlgorithm) throws(CryptoError) {
        guard key.isPrivate, key.kind == algorithm.keyKind else {
            throw CryptoError(.unsupported, "the key cannot sign \(algorithm)")
        }
        self.key = key
        self.algorithm = algorithm
        self.publicKey = try JSONWebKey(
            material: try JSONWebKey.material(of: key), algorithm: algorithm.name, use: "sig"
        )
    }

    /// A new key for `algorithm`.
    /// - Parameters:
    ///   - algorithm: What it will sign.
    ///   - rsaBits: The modulus size for RS256 and PS256; default 2048.
    /// - Throws: ``CryptoError``: ``CryptoError/Code/libraryUnavailable`` without libcrypto,
    ///   ``CryptoError/Code/operationFailed`` when OpenSSL cannot generate it.
    package static func generate(for algorithm: SignatureAlgorithm, rsaBits: Int = 2048) throws(CryptoError)
        -> PrivateSigningKey
    {
        try PrivateSigningKey(CryptoKey.generate(algorithm.keyKind, rsaBits: rsaBits), algorithm: algorithm)
    }

    /// The public half with `kid` set.
    package func publicKey(keyID: String?) -> JSONWebKey {
        var key = publicKey
        key.keyID = keyID
        return key
    }

    /// The signature of `message`, in the JWS form (raw r || s for ECDSA).
    /// - Throws: ``CryptoError`` with code ``CryptoError/Code/operationFailed``.
    package func sign(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        try key.sign(algorithm, message: message)
    }

    /// A compact JWS: `header` (with `alg` set to this key's algorithm) and `claims`, each as JSON with sorted keys
    /// in base64url, and the signature of the two.
    /// - Throws: ``CryptoError`` with code ``CryptoError/Code/operationFailed``.
    package func compactJWS(header: JSONObject, claims: JSONObject) throws(CryptoError) -> String {
        var header = header
        header["alg"] = .string(algorithm.name)
        let encodedHeader: Data
        let encodedClaims: Data
        do {
            encodedHeader = try JSONValue.encode(header)
            encodedClaims = try JSONValue.encode(claims)
        } catch {
            throw CryptoError(.operationFailed, "the JWS could not be encoded as JSON")
        }
        let signingInput = Base64URL.encode(encodedHeader) + "." + Base64URL.encode(encodedClaims)
        return signingInput + "." + Base64URL.encode(try sign(Array(signingInput.utf8)))
    }

    /// The algorithm and key type, never the key.
    package var description: String {
        "PrivateSigningKey(\(algorithm), \(publicKey.typeDescription))"
    }
}
