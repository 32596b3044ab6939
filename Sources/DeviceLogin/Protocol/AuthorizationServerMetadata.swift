/// Authorization server metadata (RFC 8414 §2, OpenID Connect Discovery 1.0 §3, RFC 8628 §4).
public struct AuthorizationServerMetadata: JSONObjectMessage, Hashable {
    /// The wire names.
    public enum CodingKeys: String, CodingKey, CaseIterable {
        case issuer
        case deviceAuthorizationEndpoint = "device_authorization_endpoint"
        case tokenEndpoint = "token_endpoint"
        case revocationEndpoint = "revocation_endpoint"
        case userinfoEndpoint = "userinfo_endpoint"
        case jwksURI = "jwks_uri"
        case scopesSupported = "scopes_supported"
        case grantTypesSupported = "grant_types_supported"
        case tokenEndpointAuthMethodsSupported = "token_endpoint_auth_methods_supported"
    }

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
    /// Every other field.
    public var additionalFields: JSONObject

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
        self.additionalFields = additionalFields
    }

    /// Reads the document; only `issuer` is required.
    public init(jsonObject object: JSONObject) throws {
        guard let issuer = object.string(CodingKeys.issuer.rawValue) else {
            throw DeviceLoginError(.discovery, "the server metadata has no issuer")
        }
        self.issuer = issuer
        deviceAuthorizationEndpoint = object.string(CodingKeys.deviceAuthorizationEndpoint.rawValue)
        tokenEndpoint = object.string(CodingKeys.tokenEndpoint.rawValue)
        revocationEndpoint = object.string(CodingKeys.revocationEndpoint.rawValue)
        userinfoEndpoint = object.string(CodingKeys.userinfoEndpoint.rawValue)
        jwksURI = object.string(CodingKeys.jwksURI.rawValue)
        scopesSupported = object[CodingKeys.scopesSupported.rawValue]?.stringListValue
        grantTypesSupported = object[CodingKeys.grantTypesSupported.rawValue]?.stringListValue
        tokenEndpointAuthMethodsSupported =
            object[CodingKeys.tokenEndpointAuthMethodsSupported.rawValue]?.stringListValue
        additionalFields = object.excluding(CodingKeys.allCases.map(\.rawValue))
    }

    /// The wire form.
    public var jsonObject: JSONObject {
        var object = additionalFields
        object[CodingKeys.issuer.rawValue] = .string(issuer)
        let optionals: [(CodingKeys, String?)] = [
            (.deviceAuthorizationEndpoint, deviceAuthorizationEndpoint), (.tokenEndpoint, tokenEndpoint),
            (.revocationEndpoint, revocationEndpoint), (.userinfoEndpoint, userinfoEndpoint), (.jwksURI, jwksURI),
        ]
        for (key, value) in optionals {
            if let value { object[key.rawValue] = .string(value) }
        }
        let lists: [(CodingKeys, [String]?)] = [
            (.scopesSupported, scopesSupported), (.grantTypesSupported, grantTypesSupported),
            (.tokenEndpointAuthMethodsSupported, tokenEndpointAuthMethodsSupported),
        ]
        for (key, value) in lists {
            if let value { object[key.rawValue] = .array(value.map(JSONValue.string)) }
        }
        return object
    }

    /// Whether the server presents itself as an OpenID provider (`openid` in `scopes_supported`, or a
    /// `userinfo_endpoint` or `id_token_signing_alg_values_supported`).
    public var isOpenIDProvider: Bool {
        scopesSupported?.contains("openid") == true || userinfoEndpoint != nil
            || additionalFields["id_token_signing_alg_values_supported"] != nil
    }
}
