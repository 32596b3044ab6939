/// The refresh token request (RFC 6749 §6).
public struct RefreshTokenRequest: Sendable, Hashable {
    /// `refresh_token`.
    public var refreshToken: String
    /// `scope`, only to narrow the granted scope; omitted when nil.
    public var scopes: [String]?
    /// `resource` (RFC 8707 §2): asks for an access token restricted to these resources.
    public var resources: [String]

    /// Creates the request.
    public init(refreshToken: String, scopes: [String]? = nil, resources: [String] = []) {
        self.refreshToken = refreshToken
        self.scopes = scopes
        self.resources = resources
    }

    /// The form parameters in wire order, without client authentication.
    public var formParameters: [(String, String)] {
        var pairs = [("grant_type", "refresh_token"), ("refresh_token", refreshToken)]
        if let scopes, !scopes.isEmpty { pairs.append(("scope", scopes.joined(separator: " "))) }
        pairs.append(contentsOf: resources.map { ("resource", $0) })
        return pairs
    }
}
