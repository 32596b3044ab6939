#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The authorization request (RFC 6749 §4.1.1) with PKCE (RFC 7636 §4.3), `state` and, for OpenID scopes, `nonce`
/// (OpenID Connect Core §3.1.2.1): the address the person opens in a browser, and the secrets its answer is checked
/// against.
///
/// ```swift
/// let request = try AuthorizationRequest.make(
///     clientID: "my-app", redirectURI: "http://127.0.0.1:53682/callback", scopes: ["openid", "email"])
/// print(request.url(at: authorizationEndpoint))
/// ```
public struct AuthorizationRequest: Sendable, Hashable {
    /// `client_id`.
    public var clientID: String
    /// `redirect_uri`: where the browser is sent back, compared by the server exactly as registered.
    public var redirectURI: String
    /// `scope`, space-separated on the wire; omitted when empty.
    public var scopes: [String]
    /// `state` (RFC 6749 §10.12): binds the answer to this request; 256 random bits.
    public var state: String
    /// `nonce` (OpenID Connect Core §3.1.2.1), sent when `openid` is among the scopes; the ID token must carry it.
    public var nonce: String?
    /// The PKCE pair; `code_challenge` and `code_challenge_method=S256` are sent, the verifier kept for the token
    /// request.
    public var pkce: PKCE
    /// `resource` (RFC 8707 §2), once per value.
    public var resources: [String]
    /// Provider-specific parameters (Auth0's `audience`, Google's `access_type`), after the standard ones.
    public var additionalParameters: [FormParameter]

    /// Creates a request with given secrets (tests); ``make(clientID:redirectURI:scopes:resources:additionalParameters:)``
    /// draws fresh ones.
    public init(
        clientID: String, redirectURI: String, scopes: [String], state: String, nonce: String?, pkce: PKCE,
        resources: [String] = [], additionalParameters: [FormParameter] = []
    ) {
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.scopes = scopes
        self.state = state
        self.nonce = nonce
        self.pkce = pkce
        self.resources = resources
        self.additionalParameters = additionalParameters
    }

    /// A request with a fresh verifier, `state`, and a `nonce` when `scopes` contains `openid`; the verifier and
    /// nonce are remembered as the process's secrets (``KnownSecrets``).
    /// - Throws: A `CryptoError` when libcrypto cannot be loaded (the challenge is a SHA-256).
    public static func make(
        clientID: String, redirectURI: String, scopes: [String], resources: [String] = [],
        additionalParameters: [FormParameter] = []
    ) throws -> AuthorizationRequest {
        let pkce = try PKCE.generate()
        let nonce = scopes.contains("openid") ? RandomText.make(bytes: 32) : nil
        KnownSecrets.remember([pkce.verifier, nonce])
        return AuthorizationRequest(
            clientID: clientID, redirectURI: redirectURI, scopes: scopes, state: RandomText.make(bytes: 32),
            nonce: nonce, pkce: pkce, resources: resources, additionalParameters: additionalParameters
        )
    }

    /// The query parameters in wire order.
    public var queryParameters: [(String, String)] {
        var pairs = [("response_type", "code"), ("client_id", clientID), ("redirect_uri", redirectURI)]
        if !scopes.isEmpty { pairs.append(("scope", scopes.joined(separator: " "))) }
        pairs.append(("state", state))
        if let nonce { pairs.append(("nonce", nonce)) }
        pairs.append(("code_challenge", pkce.challenge))
        pairs.append(("code_challenge_method", PKCE.method))
        pairs.append(contentsOf: resources.map { ("resource", $0) })
        pairs.append(contentsOf: additionalParameters.map(\.pair))
        return pairs
    }

    /// The address to open: the endpoint with the parameters added to its query, which RFC 6749 §3.1 says must be
    /// kept; a fragment of the endpoint is dropped (§3.1: it "MUST NOT include a fragment component").
    public func url(at endpoint: URL) -> URL {
        var text = endpoint.absoluteString
        if let hash = text.firstIndex(of: "#") { text = String(text[..<hash]) }
        let separator = text.contains("?") ? (text.hasSuffix("?") || text.hasSuffix("&") ? "" : "&") : "?"
        return URL(string: text + separator + FormEncoding.encode(queryParameters)) ?? endpoint
    }

    /// Checks the `state` an answer carried against this request's, in time that does not depend on where they
    /// differ.
    public func matches(state received: String?) -> Bool {
        guard let received else { return false }
        return RandomText.equal(received, state)
    }
}
