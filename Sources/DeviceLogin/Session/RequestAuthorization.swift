#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What one request to a resource server carries to be authorized: a fresh access token in the scheme its type
/// asks for and, for a DPoP-bound token, a proof made for exactly this request (RFC 9449 §7.1).
///
/// Made by ``TokenState/authorization(method:url:minimumTTL:nonce:)``. A proof is good for one request — the method
/// and URL it was made for, once (its `jti`), and only shortly (servers accept an `iat` within a minute or so) — so
/// make a new authorization for every request.
///
/// ```swift
/// let authorization = try await state.authorization(method: "GET", url: url)
/// var request = HTTPRequest(method: .get, url: url, headers: authorization.headers)
/// ```
public struct RequestAuthorization: Sendable, Hashable {
    /// The access token.
    public var accessToken: String
    /// The scheme of the `Authorization` header: `Bearer` (RFC 6750) or `DPoP` (RFC 9449 §7.1).
    public var scheme: String
    /// The DPoP proof for the request (with `ath` for ``accessToken``), when the token is DPoP-bound.
    public var proof: String?
    /// When the access token expires, if known.
    public var expiresAt: Date?

    /// Creates an authorization.
    public init(accessToken: String, scheme: String, proof: String? = nil, expiresAt: Date? = nil) {
        self.accessToken = accessToken
        self.scheme = scheme
        self.proof = proof
        self.expiresAt = expiresAt
    }

    /// The headers to send: `Authorization: <scheme> <token>`, and `DPoP: <proof>` when there is a proof.
    public var headers: [HTTPHeader] {
        [HTTPHeader("Authorization", "\(scheme) \(accessToken)")] + (proof.map { [HTTPHeader("DPoP", $0)] } ?? [])
    }
}

extension RequestAuthorization: CustomStringConvertible {
    /// The scheme and whether there is a proof; never the token or the proof.
    public var description: String {
        "RequestAuthorization(scheme: \(scheme), proof: \(proof == nil ? "no" : "yes"))"
    }
}
