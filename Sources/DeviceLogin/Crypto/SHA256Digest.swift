/// SHA-256 (FIPS 180-4) and HMAC-SHA-256 (RFC 2104) through libcrypto: for RFC 7638 thumbprints, DPoP's `ath`
/// (RFC 9449 §4.2), binding a stored verdict to the exact ID token it is about, and the testing kit's `HS256` ID
/// tokens.
package enum SHA256Digest {
    /// The 32-byte digest of `bytes`.
    /// - Throws: ``CryptoError`` with code ``CryptoError/Code/libraryUnavailable`` without libcrypto.
    package static func hash(_ bytes: [UInt8]) throws(CryptoError) -> [UInt8] {
        try CryptoKey.sha256(bytes)
    }

    /// The digest of `text`'s UTF-8, in base64url without padding.
    /// - Throws: As ``hash(_:)``.
    package static func base64URL(of text: String) throws(CryptoError) -> String {
        Base64URL.encode(try hash(Array(text.utf8)))
    }

    /// The 32-byte HMAC-SHA-256 of `message` under `key` (any length: a key longer than SHA-256's 64-byte block is
    /// hashed first, as RFC 2104 says).
    /// - Throws: As ``hash(_:)``.
    package static func hmac(key: [UInt8], message: [UInt8]) throws(CryptoError) -> [UInt8] {
        try CryptoKey.hmacSHA256(key: key, message: message)
    }
}
