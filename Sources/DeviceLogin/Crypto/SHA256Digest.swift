/// SHA-256 (FIPS 180-4) through libcrypto: for RFC 7638 thumbprints, DPoP's `ath` (RFC 9449 §4.2), and binding a
/// stored verdict to the exact ID token it is about.
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
}
