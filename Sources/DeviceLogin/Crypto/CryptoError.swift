/// A failure of the crypto layer: libcrypto missing, a key that cannot be read or used, an operation that failed.
///
/// A struct over a private enum, so new codes never break callers; compare with the static members:
/// `error.code == .invalidKey`. Equality is on the code alone. A signature that simply does not verify is not an
/// error: the verifying call returns `false`. Messages never contain key material.
public struct CryptoError: Error, Sendable, Hashable {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String, Hashable, Sendable {
            case libraryUnavailable, invalidKey, unsupported, operationFailed
        }
        private let value: Value

        /// libcrypto (OpenSSL 3) could not be loaded, or this platform has no crypto layer.
        public static let libraryUnavailable = Code(value: .libraryUnavailable)
        /// A key is malformed: bad base64url, a wrong size, a point off its curve, a JWK or JWK set that breaks
        /// RFC 7517/7518, or more than the bounds allow.
        public static let invalidKey = Code(value: .invalidKey)
        /// A key type, curve or algorithm this library does not handle, or a key that does not suit the
        /// algorithm asked for.
        public static let unsupported = Code(value: .unsupported)
        /// OpenSSL failed an operation that should have worked (generating, signing, hashing).
        public static let operationFailed = Code(value: .operationFailed)

        public var description: String { value.rawValue }
    }

    /// The kind of failure.
    public var code: Code
    /// What happened, in words a person understands; never key material.
    public var message: String

    /// Creates an error.
    /// - Parameters:
    ///   - code: The kind of failure.
    ///   - message: What happened, without key material.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public static func == (lhs: CryptoError, rhs: CryptoError) -> Bool {
        lhs.code == rhs.code
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}

extension CryptoError: CustomStringConvertible {
    /// The message.
    public var description: String { message }
}
