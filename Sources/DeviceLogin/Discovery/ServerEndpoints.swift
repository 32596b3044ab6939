#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The endpoints a device-flow client talks to, from discovery or given by hand.
public struct ServerEndpoints: Sendable, Hashable, Codable {
    /// The stored names, in the snake_case of the rest of a profile file (and of RFC 8414).
    enum CodingKeys: String, CodingKey {
        case issuer
        case deviceAuthorization = "device_authorization_endpoint"
        case token = "token_endpoint"
        case revocation = "revocation_endpoint"
        case userinfo = "userinfo_endpoint"
        case isOpenIDProvider = "openid_provider"
        case jwks = "jwks_uri"
        case idTokenSigningAlgorithms = "id_token_signing_alg_values_supported"
        case scopesSupported = "scopes_supported"
    }

    /// The issuer identifier, when known.
    public var issuer: String?
    /// The device authorization endpoint (RFC 8628 §3.1).
    public var deviceAuthorization: URL {
        get { storedDeviceAuthorization.url }
        set { storedDeviceAuthorization = EndpointURL(newValue) }
    }
    /// The token endpoint (RFC 6749 §3.2).
    public var token: URL {
        get { storedToken.url }
        set { storedToken = EndpointURL(newValue) }
    }
    /// The revocation endpoint (RFC 7009), if any.
    public var revocation: URL? {
        get { storedRevocation?.url }
        set { storedRevocation = newValue.map(EndpointURL.init) }
    }
    /// The userinfo endpoint (OpenID Connect Core §5.3), if any.
    public var userinfo: URL? {
        get { storedUserinfo?.url }
        set { storedUserinfo = newValue.map(EndpointURL.init) }
    }
    /// Whether the server is an OpenID provider (decides the default scopes and ID-token handling).
    public var isOpenIDProvider: Bool
    /// `jwks_uri`: where the server publishes the keys its ID tokens are signed with (OpenID Connect Discovery 1.0
    /// §3), if known. Without it ID tokens cannot be verified.
    public var jwks: URL? {
        get { storedJWKS?.url }
        set { storedJWKS = newValue.map(EndpointURL.init) }
    }
    /// `id_token_signing_alg_values_supported`: the algorithms the server signs ID tokens with, when its metadata
    /// lists them; nil for RS256 only, the OpenID Connect default.
    public var idTokenSigningAlgorithms: [String]?
    /// `scopes_supported`: the scopes the server's metadata lists (RFC 8414 §2), at most
    /// ``maximumScopesSupported`` of them; nil when it lists none. Decides whether the default scopes ask for
    /// `offline_access` (``ClientConfiguration/defaultScopes(isOpenIDProvider:scopesSupported:)``).
    public var scopesSupported: [String]?

    // The endpoints as given, or as read from a profile's file: text made into a URL on use (``EndpointURL``).
    private var storedDeviceAuthorization: EndpointURL
    private var storedToken: EndpointURL
    private var storedRevocation: EndpointURL?
    private var storedUserinfo: EndpointURL?
    private var storedJWKS: EndpointURL?

    /// The most entries of `scopes_supported` kept: a server that lists more is still heard on `offline_access`.
    public static let maximumScopesSupported = 256

    /// Creates endpoints by hand.
    public init(
        issuer: String? = nil,
        deviceAuthorization: URL,
        token: URL,
        revocation: URL? = nil,
        userinfo: URL? = nil,
        isOpenIDProvider: Bool = false,
        jwks: URL? = nil,
        idTokenSigningAlgorithms: [String]? = nil,
        scopesSupported: [String]? = nil
    ) {
        self.init(
            issuer: issuer, stored: EndpointURL(deviceAuthorization), token: EndpointURL(token),
            revocation: revocation.map(EndpointURL.init), userinfo: userinfo.map(EndpointURL.init),
            isOpenIDProvider: isOpenIDProvider, jwks: jwks.map(EndpointURL.init),
            idTokenSigningAlgorithms: idTokenSigningAlgorithms, scopesSupported: scopesSupported
        )
    }

    private init(
        issuer: String?, stored deviceAuthorization: EndpointURL, token: EndpointURL, revocation: EndpointURL?,
        userinfo: EndpointURL?, isOpenIDProvider: Bool, jwks: EndpointURL?, idTokenSigningAlgorithms: [String]?,
        scopesSupported: [String]?
    ) {
        self.issuer = issuer
        self.storedDeviceAuthorization = deviceAuthorization
        self.storedToken = token
        self.storedRevocation = revocation
        self.storedUserinfo = userinfo
        self.isOpenIDProvider = isOpenIDProvider
        self.storedJWKS = jwks
        self.idTokenSigningAlgorithms = idTokenSigningAlgorithms
        self.scopesSupported = scopesSupported.map(Self.bounded)
    }

    /// `offline_access`: the OpenID scope that asks for a refresh token (OpenID Connect Core §11), kept when
    /// `scopes_supported` is cut to its bound: the default scopes ask for it only when the server lists it.
    static let offlineAccess = "offline_access"

    /// At most ``maximumScopesSupported`` scopes, `offline_access` kept when the list had it.
    static func bounded(_ scopes: [String]) -> [String] {
        guard scopes.count > maximumScopesSupported else { return scopes }
        var kept = Array(scopes.prefix(maximumScopesSupported))
        let offline = offlineAccess
        if !kept.contains(offline), scopes.contains(offline) { kept[kept.count - 1] = offline }
        return kept
    }

    /// Takes the endpoints from discovered metadata, letting endpoints given by hand fill or override them.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/discovery`` when the device authorization or
    ///   token endpoint is neither in the metadata nor given.
    public init(
        metadata: AuthorizationServerMetadata,
        deviceAuthorization overrideDevice: URL? = nil,
        token overrideToken: URL? = nil
    ) throws {
        func url(_ text: String?) -> URL? { text.flatMap { URL(string: $0) } }
        guard let device = overrideDevice ?? url(metadata.deviceAuthorizationEndpoint) else {
            throw DeviceLoginError(
                .discovery, "the server's metadata names no device_authorization_endpoint",
                hint: "give the device authorization endpoint by hand", reason: .missingEndpoint(.deviceAuthorization)
            )
        }
        guard let token = overrideToken ?? url(metadata.tokenEndpoint) else {
            throw DeviceLoginError(
                .discovery, "the server's metadata names no token_endpoint",
                hint: "give the token endpoint by hand", reason: .missingEndpoint(.token)
            )
        }
        self.init(
            issuer: metadata.issuer, deviceAuthorization: device, token: token,
            revocation: url(metadata.revocationEndpoint), userinfo: url(metadata.userinfoEndpoint),
            isOpenIDProvider: metadata.isOpenIDProvider, jwks: url(metadata.jwksURI),
            idTokenSigningAlgorithms: metadata.idTokenSigningAlgorithms, scopesSupported: metadata.scopesSupported
        )
    }

    /// Checks every endpoint against the HTTPS policy (``EndpointPolicy``).
    public func check(allowInsecureHTTP: Bool) throws {
        for url in [deviceAuthorization, token] + [revocation, userinfo, jwks].compactMap({ $0 }) {
            do {
                try EndpointPolicy.check(url, allowInsecureHTTP: allowInsecureHTTP)
            } catch let error as TransportError {
                throw DeviceLoginError(.insecureEndpoint, error.message, transportError: error)
            }
        }
    }
}

extension ServerEndpoints {
    /// Reads endpoints in the stored form (a profile's `endpoints`), as `init(stored:)` reads them; they are written
    /// by the compiler's `Encodable`, under `CodingKeys`.
    public init(from decoder: Decoder) throws {
        try self.init(stored: try JSONFields(decoding: decoder))
    }

    /// Reads endpoints in the stored form: part of the one reader of a profile's file
    /// (``ProfileRecord/init(stored:)``). Each endpoint must be an absolute `http(s)` URI (``EndpointURL``); it is
    /// made into a `URL` when a request uses it, so reading a profile on the fast lane starts no URL parser.
    /// - Throws: ``DeviceLoginError`` naming the first field that cannot be read.
    package init(stored fields: JSONFields) throws {
        typealias Key = CodingKeys
        self.init(
            issuer: try fields.stringIfPresent(Key.issuer.rawValue),
            stored: try fields.string(Key.deviceAuthorization.rawValue, as: EndpointURL.init(stored:)),
            token: try fields.string(Key.token.rawValue, as: EndpointURL.init(stored:)),
            revocation: try fields.stringIfPresent(Key.revocation.rawValue, as: EndpointURL.init(stored:)),
            userinfo: try fields.stringIfPresent(Key.userinfo.rawValue, as: EndpointURL.init(stored:)),
            isOpenIDProvider: try fields.bool(Key.isOpenIDProvider.rawValue),
            jwks: try fields.stringIfPresent(Key.jwks.rawValue, as: EndpointURL.init(stored:)),
            idTokenSigningAlgorithms: try fields.stringsIfPresent(Key.idTokenSigningAlgorithms.rawValue),
            scopesSupported: try fields.stringsIfPresent(Key.scopesSupported.rawValue)
        )
    }

    /// Writes the stored form: each endpoint as its text, under `CodingKeys` (what the compiler's `Encodable`
    /// wrote when the endpoints were `URL`s).
    public func encode(to encoder: any Encoder) throws {
        typealias Key = CodingKeys
        var container = encoder.container(keyedBy: Key.self)
        try container.encodeIfPresent(issuer, forKey: .issuer)
        try container.encode(storedDeviceAuthorization.text, forKey: .deviceAuthorization)
        try container.encode(storedToken.text, forKey: .token)
        try container.encodeIfPresent(storedRevocation?.text, forKey: .revocation)
        try container.encodeIfPresent(storedUserinfo?.text, forKey: .userinfo)
        try container.encode(isOpenIDProvider, forKey: .isOpenIDProvider)
        try container.encodeIfPresent(storedJWKS?.text, forKey: .jwks)
        try container.encodeIfPresent(idTokenSigningAlgorithms, forKey: .idTokenSigningAlgorithms)
        try container.encodeIfPresent(scopesSupported, forKey: .scopesSupported)
    }
}
