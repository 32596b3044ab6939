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
        start: Self(accessToken: ""), unknown: \.additionalFields, setUnknown: { $0.additionalFields = $1 },
        missing: { DeviceLoginError(.invalidResponse, "the token response has no \($0)") },
        fields: [
            .required("access_token", \.accessToken, .string) { $0.accessToken = $1 },
            // Quirk: a missing `token_type` reads as `Bearer` (some providers omit it on refresh).
            .defaulted("token_type", \.tokenType, .string, absent: "Bearer") { $0.tokenType = $1 },
            // Negative reads as 0 (expired: refreshed before use), more than 10 years as 10 years.
            .optional("expires_in", \.expiresIn, .integer.clamped(to: 0...TokenResponse.maximumLifetime)) {
                $0.expiresIn = $1
            },
            .optional("refresh_token", \.refreshToken, .string) { $0.refreshToken = $1 },
            .optional("scope", \.scope, .string) { $0.scope = $1 },
            .optional("id_token", \.idToken, .string) { $0.idToken = $1 },
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

    /// The longest access-token lifetime taken from a server: 10 years, in seconds. A longer `expires_in` is read
    /// as this, so that no expiry date overflows or prints as nonsense.
    public static let maximumLifetime = 315_360_000

    /// The token types this client can use: `Bearer` (RFC 6750) and `DPoP` (RFC 9449), in any case.
    public static let supportedTokenTypes: Set<String> = ["bearer", "dpop"]

    /// Reads a token response the client is about to accept: as `init(jsonObject:)`, then ``checkUsable()``.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/invalidResponse``.
    public init(accepting object: JSONObject) throws {
        try self.init(jsonObject: object)
        try checkUsable()
    }

    /// Refuses a response the client could not use: a token type it cannot send (it would go out as Bearer), or a
    /// token or refresh token with characters that cannot go in a header or a form (CR, LF, NUL, spaces, non-ASCII).
    ///
    /// Reading a response accepts any of these, as the wire has them; the engine and the token state call this
    /// before they accept a token, so that a bad one fails at once with a clear error instead of at its first use.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/invalidResponse``.
    public func checkUsable() throws {
        guard Self.supportedTokenTypes.contains(tokenType.lowercased()) else {
            throw DeviceLoginError(
                .invalidResponse,
                "the server issued a token of type '\(tokenType.prefix(40))', which this client cannot use"
                    + " (only Bearer and DPoP)"
            )
        }
        guard accessToken.isHeaderSafeCredential else {
            throw DeviceLoginError(
                .invalidResponse, "the server's access token contains characters that cannot be sent in a header"
            )
        }
        if let refreshToken, !refreshToken.isHeaderSafeCredential {
            throw DeviceLoginError(.invalidResponse, "the server's refresh token contains characters it cannot have")
        }
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
