/// The access token request of the authorization code grant (RFC 6749 §4.1.3), with the PKCE verifier
/// (RFC 7636 §4.5).
public struct AuthorizationCodeTokenRequest: Sendable, Hashable {
    /// `code` from the authorization response.
    public var code: String
    /// `redirect_uri`: the same value the authorization request sent (RFC 6749 §4.1.3: "their values MUST be
    /// identical").
    public var redirectURI: String
    /// `code_verifier` (RFC 7636 §4.5).
    public var codeVerifier: String
    /// `resource` (RFC 8707 §2), repeated once per value.
    public var resources: [String]

    /// Creates the request.
    public init(code: String, redirectURI: String, codeVerifier: String, resources: [String] = []) {
        self.code = code
        self.redirectURI = redirectURI
        self.codeVerifier = codeVerifier
        self.resources = resources
    }

    /// The form parameters in wire order, without client authentication.
    public var formParameters: [(String, String)] {
        [
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI),
            ("code_verifier", codeVerifier),
        ] + resources.map { ("resource", $0) }
    }
}

extension AuthorizationCodeTokenRequest: CustomStringConvertible {
    /// The redirect URI only: the code and verifier are secrets.
    public var description: String { "AuthorizationCodeTokenRequest(redirectURI: \(redirectURI))" }
}
