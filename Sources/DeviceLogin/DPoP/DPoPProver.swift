#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A DPoP client (RFC 9449): one P-256 key that signs a fresh proof for every request, and the nonces servers
/// asked for.
///
/// Give one to ``ClientConfiguration/dpop`` and ``DeviceFlow`` sends a proof with the device authorization request
/// (as draft-parecki-oauth-dpop-device-flow proposes) and with every poll; ``TokenState`` with every refresh and
/// userinfo request. The tokens the server issues are then bound to the key (`token_type: DPoP`): a copy of them
/// is worth nothing without it.
///
/// **Nonces (RFC 9449 §8, §9).** A server may answer `use_dpop_nonce` with a `DPoP-Nonce` header: the request is
/// sent once more with a proof carrying that nonce (``send(_:accessToken:through:)``). The latest nonce each server
/// (scheme, host and port) sent, with an error or a success, is remembered for as long as this object lives, and
/// put in every later proof for that server.
///
/// Copies of a ``ClientConfiguration`` share the one prover, and so its nonces. The key is never shown:
/// ``description`` names only its thumbprint.
///
/// ```swift
/// let key = try ECP256PrivateKey.generate()            // keep it: the tokens are bound to it
/// var client = ClientConfiguration(clientID: "my-device-app")
/// client.dpop = try DPoPProver(key: key)
/// let token = try await DeviceFlow(endpoints: endpoints, client: client, transport: transport).run()
/// // token.tokenType == "DPoP"
/// ```
public final class DPoPProver: Sendable {
    /// The longest nonce taken from a server: 1024 bytes.
    public static let maximumNonceBytes = 1024
    /// How many servers' nonces are remembered; a new server past this many forgets the others.
    public static let maximumServers = 32

    /// The private key proofs are signed with.
    public let key: ECP256PrivateKey
    /// The public key's JWK thumbprint (RFC 7638): the `jkt` the server binds tokens to (RFC 9449 §6.1).
    public let thumbprint: String
    private let now: @Sendable () -> Date
    private let nonces = Locked<[String: String]>([:])

    /// Creates a prover.
    /// - Parameters:
    ///   - key: The private key; the same one for the sign-in and every later refresh.
    ///   - now: The wall clock for `iat`; ``SystemTime/now()`` by default.
    /// - Throws: ``CryptoError`` with code ``CryptoError/Code/libraryUnavailable`` without libcrypto.
    public init(key: ECP256PrivateKey, now: @escaping @Sendable () -> Date = SystemTime.now) throws(CryptoError) {
        self.key = key
        self.thumbprint = try key.thumbprint()
        self.now = now
    }

    /// A proof for one request, with a new `jti`, `iat` now, and the server's nonce when it sent one.
    /// - Parameters:
    ///   - method: The HTTP method (`GET`, `POST`).
    ///   - url: The request URL.
    ///   - accessToken: The access token the request carries, for `ath`; nil for the authorization server.
    ///   - nonce: A nonce to use instead of the one remembered for the server.
    /// - Returns: The compact JWS for the `DPoP` header.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/configuration`` when `url` is not an
    ///   absolute http(s) URL or the proof cannot be signed (no libcrypto).
    public func proof(
        method: String, url: URL, accessToken: String? = nil, nonce: String? = nil
    ) throws(DeviceLoginError) -> String {
        do {
            let claims = try DPoPProof(
                method: method, url: url, id: DPoPProof.newID(), issuedAt: now(),
                nonce: nonce ?? self.nonce(for: url), accessToken: accessToken
            )
            return try claims.signed(with: key)
        } catch {
            throw DeviceLoginError(
                .configuration, "a DPoP proof could not be made: \(error.message)",
                hint: error.code == .libraryUnavailable ? "install OpenSSL 3 (libcrypto)" : nil
            )
        }
    }

    /// `request` with a new proof in its `DPoP` header (replacing any there).
    /// - Parameters:
    ///   - request: The request.
    ///   - accessToken: The access token it carries, for `ath`.
    /// - Throws: As ``proof(method:url:accessToken:nonce:)``.
    public func signed(_ request: HTTPRequest, accessToken: String? = nil) throws(DeviceLoginError) -> HTTPRequest {
        var signed = request
        signed.headers.removeAll { $0.name.lowercased() == "dpop" }
        signed.headers.append(
            HTTPHeader("DPoP", try proof(method: request.method.rawValue, url: request.url, accessToken: accessToken))
        )
        return signed
    }

    /// Sends `request` with a proof; when the server asks for a nonce (``isNonceChallenge(_:)``) and sends one,
    /// sends it once more with a new proof carrying it (RFC 9449 §8, §9).
    /// - Parameters:
    ///   - request: The request, without a proof.
    ///   - accessToken: The access token it carries, for `ath`.
    ///   - transport: How it is sent.
    /// - Returns: The last response.
    /// - Throws: ``DeviceLoginError`` as ``proof(method:url:accessToken:nonce:)``; what `transport` throws.
    public func send(
        _ request: HTTPRequest, accessToken: String? = nil, through transport: any HTTPTransport
    ) async throws -> HTTPResponse {
        let response = try await transport.send(try signed(request, accessToken: accessToken))
        guard takeNonce(from: response, for: request.url) != nil, Self.isNonceChallenge(response) else {
            return response
        }
        let retried = try await transport.send(try signed(request, accessToken: accessToken))
        takeNonce(from: retried, for: request.url)
        return retried
    }

    /// The nonce the server of `url` sent last, if any.
    public func nonce(for url: URL) -> String? {
        guard let origin = Self.origin(of: url) else { return nil }
        return nonces.withLock { $0[origin] }
    }

    /// Remembers the `DPoP-Nonce` of a response from `url`'s server, when it has a well-formed one (RFC 9449 §8.1:
    /// visible ASCII without `"` and `\`, at most ``maximumNonceBytes``).
    /// - Returns: The nonce taken, or nil when the response has none.
    @discardableResult
    public func takeNonce(from response: HTTPResponse, for url: URL) -> String? {
        guard let nonce = response.header("DPoP-Nonce"), Self.isWellFormedNonce(nonce),
            let origin = Self.origin(of: url)
        else { return nil }
        nonces.withLock { nonces in
            if nonces[origin] == nil, nonces.count >= Self.maximumServers { nonces.removeAll() }
            nonces[origin] = nonce
        }
        return nonce
    }

    /// Whether `response` asks for a proof with a nonce: `use_dpop_nonce` from an authorization server (HTTP 400
    /// with an OAuth error, RFC 9449 §8) or from a resource server (HTTP 401 with `WWW-Authenticate: DPoP
    /// error="use_dpop_nonce"`, §9).
    public static func isNonceChallenge(_ response: HTTPResponse) -> Bool {
        if response.status == 401, let header = response.header("WWW-Authenticate"),
            BearerChallenge(header: header, scheme: "dpop")?.error == OAuthError.Code.useDPoPNonce.rawValue
        {
            return true
        }
        guard case .oauthError(let error) = ServerReply(response) else { return false }
        return error.code == .useDPoPNonce
    }

    /// Whether `nonce` has RFC 9449 §8.1's form (`1*NQCHAR`: visible ASCII but `"` and `\`) and at most
    /// ``maximumNonceBytes``.
    public static func isWellFormedNonce(_ nonce: String) -> Bool {
        !nonce.isEmpty && nonce.utf8.count <= maximumNonceBytes
            && nonce.utf8.allSatisfy { (0x21...0x7E).contains($0) && $0 != 0x22 && $0 != 0x5C }
    }

    /// The server a nonce belongs to: the target URI's scheme, host and port.
    static func origin(of url: URL) -> String? {
        DPoPProof.origin(of: url)
    }
}

extension DPoPProver: Hashable {
    /// Provers are equal when their keys are (their thumbprints are).
    public static func == (lhs: DPoPProver, rhs: DPoPProver) -> Bool {
        lhs.thumbprint == rhs.thumbprint
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(thumbprint) }
}

extension DPoPProver: CustomStringConvertible {
    /// The key's thumbprint, never the key.
    public var description: String { "DPoPProver(jkt: \(thumbprint))" }
}
