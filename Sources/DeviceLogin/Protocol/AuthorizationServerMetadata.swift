/// Authorization server metadata (RFC 8414 §2, OpenID Connect Discovery 1.0 §3, RFC 8628 §4).
public struct AuthorizationServerMetadata: WireMapped, Hashable {
    /// `issuer`: must equal the issuer the document was fetched for (RFC 8414 §3.3).
    public var issuer: String
    /// `device_authorization_endpoint` (RFC 8628 §4); absent on some servers (django-oauth-toolkit).
    public var deviceAuthorizationEndpoint: String?
    /// `token_endpoint`.
    public var tokenEndpoint: String?
    /// `revocation_endpoint` (RFC 7009 via RFC 8414).
    public var revocationEndpoint: String?
    /// `userinfo_endpoint` (OpenID Connect).
    public var userinfoEndpoint: String?
    /// `jwks_uri`.
    public var jwksURI: String?
    /// `scopes_supported`.
    public var scopesSupported: [String]?
    /// `grant_types_supported`.
    public var grantTypesSupported: [String]?
    /// `token_endpoint_auth_methods_supported`.
    public var tokenEndpointAuthMethodsSupported: [String]?
    /// `authorization_endpoint` (RFC 6749 §3.1 via RFC 8414 §2): where the authorization code grant starts.
    public var authorizationEndpoint: String?
    /// `code_challenge_methods_supported` (RFC 8414 §2, RFC 7636): a list without `S256` is refused
    /// (``PKCE/check(methodsSupported:)``).
    public var codeChallengeMethodsSupported: [String]?
    /// `response_modes_supported` (RFC 8414 §2): this client uses `query`, the default when absent.
    public var responseModesSupported: [String]?
    /// `authorization_response_iss_parameter_supported` (RFC 9207 §3): the authorization response carries `iss`.
    public var authorizationResponseIssuerSupported: Bool?
    /// Every other field.
    public var additionalFields: JSONObject

    /// The fields (RFC 8414 §2, RFC 8628 §4, OpenID Connect Discovery 1.0 §3), in the order they are checked.
    /// ``WireMapped`` reads and writes the message by this table.
    static let wire = WireMapping<Self>(
        start: Self(issuer: ""), unknown: \.additionalFields, setUnknown: { $0.additionalFields = $1 },
        missing: { DeviceLoginError(.discovery, "the server metadata has no \($0)") },
        fields: [
            .required("issuer", \.issuer, .string) { $0.issuer = $1 },
            .optional("device_authorization_endpoint", \.deviceAuthorizationEndpoint, .string) {
                $0.deviceAuthorizationEndpoint = $1
            },
            .optional("token_endpoint", \.tokenEndpoint, .string) { $0.tokenEndpoint = $1 },
            .optional("revocation_endpoint", \.revocationEndpoint, .string) { $0.revocationEndpoint = $1 },
            .optional("userinfo_endpoint", \.userinfoEndpoint, .string) { $0.userinfoEndpoint = $1 },
            .optional("jwks_uri", \.jwksURI, .string) { $0.jwksURI = $1 },
            .optional("scopes_supported", \.scopesSupported, .stringList) { $0.scopesSupported = $1 },
            .optional("grant_types_supported", \.grantTypesSupported, .stringList) { $0.grantTypesSupported = $1 },
            .optional("token_endpoint_auth_methods_supported", \.tokenEndpointAuthMethodsSupported, .stringList) {
                $0.tokenEndpointAuthMethodsSupported = $1
            },
            .optional("authorization_endpoint", \.authorizationEndpoint, .string) { $0.authorizationEndpoint = $1 },
            .optional("code_challenge_methods_supported", \.codeChallengeMethodsSupported, .stringList) {
                $0.codeChallengeMethodsSupported = $1
            },
            .optional("response_modes_supported", \.responseModesSupported, .stringList) {
                $0.responseModesSupported = $1
            },
            .optional(
                "authorization_response_iss_parameter_supported", \.authorizationResponseIssuerSupported, .boolean
            ) { $0.authorizationResponseIssuerSupported = $1 },
        ]
    )

    /// Creates a metadata value.
    public init(
        issuer: String,
        deviceAuthorizationEndpoint: String? = nil,
        tokenEndpoint: String? = nil,
        revocationEndpoint: String? = nil,
        userinfoEndpoint: String? = nil,
        jwksURI: String? = nil,
        scopesSupported: [String]? = nil,
        grantTypesSupported: [String]? = nil,
        tokenEndpointAuthMethodsSupported: [String]? = nil,
        authorizationEndpoint: String? = nil,
        codeChallengeMethodsSupported: [String]? = nil,
        responseModesSupported: [String]? = nil,
        authorizationResponseIssuerSupported: Bool? = nil,
        additionalFields: JSONObject = [:]
    ) {
        self.issuer = issuer
        self.deviceAuthorizationEndpoint = deviceAuthorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.revocationEndpoint = revocationEndpoint
        self.userinfoEndpoint = userinfoEndpoint
        self.jwksURI = jwksURI
        self.scopesSupported = scopesSupported
        self.grantTypesSupported = grantTypesSupported
        self.tokenEndpointAuthMethodsSupported = tokenEndpointAuthMethodsSupported
        self.authorizationEndpoint = authorizationEndpoint
        self.codeChallengeMethodsSupported = codeChallengeMethodsSupported
        self.responseModesSupported = responseModesSupported
        self.authorizationResponseIssuerSupported = authorizationResponseIssuerSupported
        self.additionalFields = additionalFields
    }

    /// Whether the server presents itself as an OpenID provider (`openid` in `scopes_supported`, or a
    /// `userinfo_endpoint` or `id_token_signing_alg_values_supported`).
    public var isOpenIDProvider: Bool {
        scopesSupported?.contains("openid") == true || userinfoEndpoint != nil
            || additionalFields["id_token_signing_alg_values_supported"] != nil
    }
}
