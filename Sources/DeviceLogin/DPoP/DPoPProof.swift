#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The claims of one DPoP proof (RFC 9449 §4.2): a JWT the client signs for one HTTP request, proving that it holds
/// the private key its access and refresh tokens are bound to.
///
/// A plain value: ``signed(with:)`` makes the compact JWS, with the header RFC 9449 §4.2 asks for (`typ:
/// dpop+jwt`, `alg: ES256`, the public key as `jwk`). ``DPoPProver`` fills in a fresh `jti`, the time and the
/// server's nonce for each request.
///
/// ```swift
/// let proof = try DPoPProof(method: "POST", url: tokenEndpoint, id: DPoPProof.newID(), issuedAt: now())
/// request.headers.append(HTTPHeader("DPoP", try proof.signed(with: key)))
/// ```
public struct DPoPProof: Sendable, Hashable {
    /// `jti`: unique for every proof, so a server can refuse one sent twice.
    public var id: String
    /// `htm`: the request's method (`POST`).
    public var method: String
    /// `htu`: the request's URI without query and fragment (``targetURI(of:)``).
    public var targetURI: String
    /// `iat`: when the proof was made, in whole seconds since 1970.
    public var issuedAt: Int64
    /// `nonce`: the last `DPoP-Nonce` the server sent (RFC 9449 §8, §9), if it sent one.
    public var nonce: String?
    /// `ath`: base64url of the SHA-256 of the access token, for a request that carries one (RFC 9449 §4.2).
    public var accessTokenHash: String?

    /// The random bytes in a new ``id``: 16 (128 bits; RFC 9449 §11.1 asks for at least 96).
    public static let idBytes = 16

    /// Creates a proof's claims for a request.
    /// - Parameters:
    ///   - method: The HTTP method, as sent.
    ///   - url: The request URL; the query and fragment are left out (``targetURI(of:)``).
    ///   - id: `jti`; ``newID()`` makes one.
    ///   - issuedAt: When the proof is made; `iat` is its whole seconds.
    ///   - nonce: The server's nonce, if it sent one.
    ///   - accessToken: The access token sent with the request, for `ath`; nil for requests to the token
    ///     endpoint.
    /// - Throws: ``CryptoError`` with code ``CryptoError/Code/unsupported`` when `url` is not an absolute http(s)
    ///   URL, ``CryptoError/Code/libraryUnavailable`` when `ath` cannot be hashed without libcrypto.
    public init(
        method: String, url: URL, id: String, issuedAt: Date, nonce: String? = nil, accessToken: String? = nil
    ) throws(CryptoError) {
        guard let targetURI = Self.targetURI(of: url) else {
            throw CryptoError(.unsupported, "a DPoP proof is only made for an absolute http(s) URL")
        }
        self.id = id
        self.method = method
        self.targetURI = targetURI
        self.issuedAt = Self.seconds(issuedAt)
        self.nonce = nonce
        if let accessToken { self.accessTokenHash = try Self.accessTokenHash(accessToken) }
    }

    /// The claims as JSON: `jti`, `htm`, `htu`, `iat`, and `nonce` and `ath` when set.
    public var claims: JSONObject {
        var claims: JSONObject = [
            "jti": .string(id), "htm": .string(method), "htu": .string(targetURI), "iat": .number(Double(issuedAt)),
        ]
        if let nonce { claims["nonce"] = .string(nonce) }
        if let accessTokenHash { claims["ath"] = .string(accessTokenHash) }
        return claims
    }

    /// The JOSE header for a proof made with `key` (RFC 9449 §4.2): `typ: dpop+jwt` and the public key as `jwk`,
    /// its required members only (RFC 7638 §3.2); `alg` is the signer's.
    public static func header(for key: JSONWebKey) -> JSONObject {
        var publicKey = key
        publicKey.keyID = nil
        publicKey.algorithm = nil
        publicKey.use = nil
        publicKey.operations = nil
        return ["typ": .string("dpop+jwt"), "jwk": .object(publicKey.jsonObject)]
    }

    /// The proof as a compact JWS signed with `key`: what the `DPoP` header carries.
    /// - Throws: ``CryptoError`` with code ``CryptoError/Code/operationFailed`` when signing fails.
    public func signed(with key: ECP256PrivateKey) throws(CryptoError) -> String {
        try key.signingKey.compactJWS(header: Self.header(for: key.publicKey), claims: claims)
    }

    /// A new `jti`: ``idBytes`` random bytes from the system's generator, in base64url.
    public static func newID() -> String {
        var generator = SystemRandomNumberGenerator()
        return Base64URL.encode((0..<idBytes).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    /// `ath` for `accessToken`: base64url of the SHA-256 of its ASCII (RFC 9449 §4.2).
    /// - Throws: ``CryptoError`` with code ``CryptoError/Code/libraryUnavailable`` without libcrypto.
    public static func accessTokenHash(_ accessToken: String) throws(CryptoError) -> String {
        try SHA256Digest.base64URL(of: accessToken)
    }

    /// `htu` for `url` (RFC 9449 §4.2, §4.3): the URI without query and fragment, normalised as RFC 3986 §6.2.2 and
    /// §6.2.3 say a server compares it — scheme and host in lower case, the default port left out, an empty path
    /// written `/` — and without user information.
    /// - Returns: The target URI, or nil when `url` is not an absolute `http` or `https` URL with a host.
    public static func targetURI(of url: URL) -> String? {
        guard let (origin, path) = parts(of: url) else { return nil }
        return origin + (path.isEmpty ? "/" : path)
    }

    /// The longest request URL a proof is made for: 8 KiB.
    package static let maximumRequestURLBytes = 8192
    /// The longest request method a proof is made for: 32 characters.
    package static let maximumMethodLength = 32

    /// `text` as the URL of a request to prove, when it is an absolute `http` or `https` URL with a host
    /// (``targetURI(of:)``), at most ``maximumRequestURLBytes``, without spaces or control characters: the one check
    /// of the CLI's `--url` and the agent's `htu`.
    package static func requestURL(_ text: String) -> URL? {
        guard text.utf8.count <= maximumRequestURLBytes,
            !text.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F }),
            let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
            targetURI(of: url) != nil
        else { return nil }
        return url
    }

    /// `text` upper-cased as the method of a request to prove, when it is an HTTP method token (RFC 9110 §9.1, §5.6.2)
    /// of 1 to ``maximumMethodLength`` characters: the one check of the CLI's `--method` and the agent's `htm`.
    package static func requestMethod(_ text: String) -> String? {
        let method = text.uppercased()
        let symbols = "!#$%&'*+-.^_`|~".unicodeScalars
        guard (1...maximumMethodLength).contains(method.unicodeScalars.count),
            method.unicodeScalars.allSatisfy({
                ("A"..."Z").contains($0) || ("0"..."9").contains($0) || symbols.contains($0)
            })
        else { return nil }
        return method
    }

    /// The scheme, host and port of ``targetURI(of:)``: the server a nonce belongs to.
    static func origin(of url: URL) -> String? {
        parts(of: url)?.origin
    }

    private static func parts(of url: URL) -> (origin: String, path: String)? {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let scheme = components.scheme?.lowercased(), scheme == "https" || scheme == "http",
            let host = components.percentEncodedHost, !host.isEmpty
        else { return nil }
        var origin = scheme + "://" + host.lowercased()
        if let port = components.port, port != (scheme == "https" ? 443 : 80) { origin += ":\(port)" }
        return (origin, components.percentEncodedPath)
    }

    /// Whole seconds since 1970 of `date`, held to 1970 through 9999 (the times RFC 3339 writes,
    /// as a token file's ``TokenSet/storedTimes``).
    static func seconds(_ date: Date) -> Int64 {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        guard seconds.isFinite else { return 0 }
        return Int64(min(max(seconds, 0), DateText.latest.timeIntervalSince1970))
    }
}
