import DeviceLogin

/// A private key the mock server signs ID tokens with, and the `kid` it publishes the public half under: the first
/// 16 characters of the key's RFC 7638 thumbprint, as many providers derive theirs.
struct MockSigningKey: Sendable {
    let key: PrivateSigningKey
    let keyID: String

    /// The public half, as the key set serves it: `kty`, its components, `kid`, `alg`, `use: sig`.
    var publicKey: JSONWebKey { key.publicKey(keyID: keyID) }

    /// A new key for `algorithm`; nil when libcrypto cannot make one.
    static func generate(_ algorithm: SignatureAlgorithm) -> MockSigningKey? {
        guard let key = try? PrivateSigningKey.generate(for: algorithm),
            let thumbprint = try? key.publicKey.thumbprint()
        else { return nil }
        return MockSigningKey(key: key, keyID: String(thumbprint.prefix(16)))
    }

    /// Keys made once per process, one per algorithm, that every server starts with: an RSA key takes a moment to
    /// generate, and a test suite starts hundreds of servers.
    private static let standardKeys = Locked<[SignatureAlgorithm: MockSigningKey]>([:])

    /// The process's key for `algorithm`, made on first use; nil when libcrypto cannot make one.
    static func standard(for algorithm: SignatureAlgorithm) -> MockSigningKey? {
        standardKeys.withLock { keys in
            if let key = keys[algorithm] { return key }
            let made = generate(algorithm)
            keys[algorithm] = made
            return made
        }
    }

    /// A compact JWS of `claims` under this key, the header naming its `kid`.
    func sign(_ claims: JSONObject, header: JSONObject = ["typ": .string("JWT")]) throws -> String {
        var header = header
        header["kid"] = header["kid"] ?? .string(keyID)
        return try key.compactJWS(header: header, claims: claims)
    }
}
