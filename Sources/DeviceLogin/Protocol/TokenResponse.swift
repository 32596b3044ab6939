/// A successful access token response (RFC 6749 §5.1), from the device grant or a refresh.
public struct TokenResponse: JSONObjectMessage, Hashable {
    /// The wire names (RFC 6749 §5.1, OpenID Connect Core §3.1.3.3).
    public enum CodingKeys: String, CodingKey, CaseIterable {
        case accessToken = "access_token"
        case tokenType = "token_type"
        case expiresIn = "expires_in"
        case refreshToken = "refresh_token"
        case scope
        case idToken = "id_token"
    }

    /// `access_token`.
    public var accessToken: String
    /// `token_type`, as sent. Compare with ``isBearer`` (case-insensitive, RFC 6749 §5.1).
    public var tokenType: String
    /// `expires_in`: seconds the access token lives, if sent.
    public var expiresIn: Int?
    /// `refresh_token`, if sent.
    public var refreshToken: String?
    /// `scope`, if sent (space-separated on the wire).
    public var scope: String?
    /// `id_token` (OpenID Connect), if sent.
    public var idToken: String?
    /// Fields not defined by RFC 6749 or OpenID Connect.
    public var additionalFields: JSONObject

    /// Creates a response value.
    public init(
        accessToken: String,
        tokenType: String = "Bearer",
        expiresIn: Int? = nil,
        refreshToken: String? = nil,
        scope: String? = nil,
        idToken: String? = nil,
        additionalFields: JSONObject = [:]
    ) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresIn = expiresIn
        self.refreshToken = refreshToken
        self.scope = scope
        self.idToken = idToken
        self.additionalFields = additionalFields
    }

    /// Reads the response leniently: `expires_in` as a string is accepted; a missing `token_type` is read as
    /// `Bearer` (some providers omit it on refresh).
    public init(jsonObject object: JSONObject) throws {
        guard let token = object.string(CodingKeys.accessToken.rawValue) else {
            throw DeviceLoginError(.invalidResponse, "the token response has no access_token")
        }
        accessToken = token
        tokenType = object.string(CodingKeys.tokenType.rawValue) ?? "Bearer"
        expiresIn = object.integer(CodingKeys.expiresIn.rawValue)
        refreshToken = object.string(CodingKeys.refreshToken.rawValue)
        scope = object.string(CodingKeys.scope.rawValue)
        idToken = object.string(CodingKeys.idToken.rawValue)
        additionalFields = object.excluding(CodingKeys.allCases.map(\.rawValue))
    }

    /// The wire form.
    public var jsonObject: JSONObject {
        var object = additionalFields
        object[CodingKeys.accessToken.rawValue] = .string(accessToken)
        object[CodingKeys.tokenType.rawValue] = .string(tokenType)
        if let expiresIn { object[CodingKeys.expiresIn.rawValue] = .number(Double(expiresIn)) }
        if let refreshToken { object[CodingKeys.refreshToken.rawValue] = .string(refreshToken) }
        if let scope { object[CodingKeys.scope.rawValue] = .string(scope) }
        if let idToken { object[CodingKeys.idToken.rawValue] = .string(idToken) }
        return object
    }

    /// Whether `token_type` is `Bearer`, in any case (RFC 6749 §5.1: "The value is case insensitive").
    public var isBearer: Bool { tokenType.lowercased() == "bearer" }

    /// The granted scopes as a list.
    public var scopes: [String] { scope?.split(separator: " ").map(String.init) ?? [] }
}

extension TokenResponse: CustomStringConvertible {
    /// A summary that never shows a token.
    public var description: String {
        "TokenResponse(tokenType: \(tokenType), expiresIn: \(expiresIn.map(String.init) ?? "nil"), "
            + "refreshToken: \(refreshToken == nil ? "no" : "yes"), idToken: \(idToken == nil ? "no" : "yes"), "
            + "scope: \(scope ?? "nil"))"
    }
}
