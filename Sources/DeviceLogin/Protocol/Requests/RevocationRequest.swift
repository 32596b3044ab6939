/// The token revocation request (RFC 7009 §2.1).
public struct RevocationRequest: Sendable, Hashable {
    /// `token_type_hint` values (RFC 7009 §2.1).
    public enum TokenTypeHint: String, Sendable, Hashable {
        case refreshToken = "refresh_token"
        case accessToken = "access_token"
    }

    /// `token`: the token to revoke.
    public var token: String
    /// `token_type_hint`.
    public var tokenTypeHint: TokenTypeHint?

    /// Creates the request.
    public init(token: String, tokenTypeHint: TokenTypeHint?) {
        self.token = token
        self.tokenTypeHint = tokenTypeHint
    }

    /// The form parameters in wire order, without client authentication.
    public var formParameters: [(String, String)] {
        var pairs = [("token", token)]
        if let tokenTypeHint { pairs.append(("token_type_hint", tokenTypeHint.rawValue)) }
        return pairs
    }
}
