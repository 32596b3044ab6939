/// Proof Key for Code Exchange (RFC 7636): a one-time `code_verifier` and its S256 `code_challenge`.
///
/// Only S256 is ever sent: RFC 9700 §2.1.1 says clients must not use `plain` when they can use S256, and every
/// server that lists methods lists S256 or is refused (``check(methodsSupported:)``).
public struct PKCE: Sendable, Hashable {
    /// `code_verifier` (RFC 7636 §4.1): 43–128 characters of ALPHA / DIGIT / "-" / "." / "_" / "~".
    public let verifier: String
    /// `code_challenge` (RFC 7636 §4.2): BASE64URL-ENCODE(SHA256(ASCII(code_verifier))).
    public let challenge: String
    /// `code_challenge_method`: always `S256`.
    public static let method = "S256"

    /// The verifier's bounds, RFC 7636 §4.1.
    public static let verifierLength = 43...128

    /// Makes a pair from a given verifier (tests, and RFC 7636 Appendix B's example).
    /// - Throws: ``DeviceLoginError`` (``DeviceLoginError/Code/configuration``) when the verifier is not 43–128
    ///   unreserved characters; a `CryptoError` when libcrypto cannot be loaded.
    public init(verifier: String) throws {
        guard Self.verifierLength.contains(verifier.utf8.count), verifier.utf8.allSatisfy(Self.isUnreserved) else {
            throw DeviceLoginError(
                .configuration, "a PKCE code_verifier must be 43 to 128 of the characters A-Z a-z 0-9 - . _ ~"
            )
        }
        self.verifier = verifier
        self.challenge = Base64URL.encode(try SHA256Digest.hash(Array(verifier.utf8)))
    }

    /// A fresh pair: 32 random bytes (256 bits, RFC 7636 §7.1), base64url-encoded to a 43-character verifier.
    /// - Throws: A `CryptoError` when libcrypto cannot be loaded.
    public static func generate() throws -> PKCE {
        try PKCE(verifier: RandomText.make(bytes: 32))
    }

    /// Checks a server's `code_challenge_methods_supported` (RFC 8414 §2): a server that lists methods but not
    /// S256 is refused, since the only other method, `plain`, would send the verifier's secret in the clear
    /// (RFC 9700 §2.1.1). A server that lists none (absent or empty) is tried: many support PKCE without saying so.
    /// - Throws: ``DeviceLoginError`` (``DeviceLoginError/Code/discovery``).
    public static func check(methodsSupported: [String]?) throws {
        guard let methods = methodsSupported, !methods.isEmpty, !methods.contains(method) else { return }
        let listed = Sanitizer.sanitize(methods.prefix(8).joined(separator: " "), maxLength: 120)
        throw DeviceLoginError(
            .discovery, "the server's code_challenge_methods_supported lists \(listed) but not S256",
            hint: "the server must support PKCE with S256 (RFC 7636) for the authorization code flow"
        )
    }

    /// RFC 3986's unreserved characters, which RFC 7636 §4.1 allows in a verifier.
    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }
}

extension PKCE: CustomStringConvertible {
    /// The method and challenge; never the verifier.
    public var description: String { "PKCE(S256, challenge: \(challenge))" }
}
