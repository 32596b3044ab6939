/// A successful access token response (RFC 6749 §5.1), from the device grant or a refresh.
///
/// Read leniently, on purpose: `expires_in` as a string (Microsoft's v1 endpoint, GitHub's form-encoded answers); a
/// missing `token_type` as `Bearer` (some providers omit it on refresh).
public struct TokenResponse: WireMapped, Hashable {
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

    /// The fields (RFC 6749 §5.1, OpenID Connect Core §3.1.3.3), in the order they are checked.
    /// ``WireMapped`` reads and writes the message by this table.
    static let wire = WireMapping<Self>(
        start: Self(accessToken: ""), unknown: \.additionalFields,
        missing: { DeviceLoginError(.invalidResponse, "the token response has no \($0)") },
        fields: [
            .required("access_token", \.accessToken, .string),
            // Quirk: a missing `token_type` reads as `Bearer` (some providers omit it on refresh).
            .defaulted("token_type", \.tokenType, .string, absent: "Bearer"),
            .optional("expires_in", \.expiresIn, .integer),
            .optional("refresh_token", \.refreshToken, .string),
            .optional("scope", \.scope, .string),
            .optional("id_token", \.idToken, .string),
        ]
    )

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
