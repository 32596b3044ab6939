/// The device access token request (RFC 8628 §3.4).
public struct DeviceAccessTokenRequest: Sendable, Hashable {
    /// The `grant_type` value: `urn:ietf:params:oauth:grant-type:device_code`.
    public static let grantType = "urn:ietf:params:oauth:grant-type:device_code"

    /// `device_code` from the device authorization response.
    public var deviceCode: String
    /// `resource` (RFC 8707 §2), repeated once per value.
    public var resources: [String]

    /// Creates the request.
    public init(deviceCode: String, resources: [String] = []) {
        self.deviceCode = deviceCode
        self.resources = resources
    }

    /// The form parameters in wire order, without client authentication.
    public var formParameters: [(String, String)] {
        [("grant_type", Self.grantType), ("device_code", deviceCode)] + resources.map { ("resource", $0) }
    }
}

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
