@testable import DeviceLogin

/// One private key per algorithm, made once per test process (RSA keys take a moment to generate) and shared by the
/// tests that sign.
enum TestSigningKeys {
    private static let keys: Result<[SignatureAlgorithm: PrivateSigningKey], CryptoError> = Result {
        () throws(CryptoError) in
        var keys: [SignatureAlgorithm: PrivateSigningKey] = [:]
        for algorithm in SignatureAlgorithm.all { keys[algorithm] = try PrivateSigningKey.generate(for: algorithm) }
        return keys
    }

    /// The key for `algorithm`.
    static func key(_ algorithm: SignatureAlgorithm) throws -> PrivateSigningKey {
        guard let key = try keys.get()[algorithm] else { throw CryptoError(.unsupported, "no key for \(algorithm)") }
        return key
    }
}
