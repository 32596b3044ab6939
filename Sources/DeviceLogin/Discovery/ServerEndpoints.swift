#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The endpoints a client talks to, from discovery or given by hand: the token endpoint always, the device
/// authorization endpoint for the device flow and the authorization endpoint for the code grant — a server may have
/// only one of the two.
public struct ServerEndpoints: Sendable, Hashable, Codable, StoredDecodable {
    /// The stored names, in the snake_case of the rest of a profile file (and of RFC 8414).
    enum CodingKeys: String, CodingKey {
        case issuer
        case deviceAuthorization = "device_authorization_endpoint"
        case authorization = "authorization_endpoint"
        case issuerInAuthorizationResponse = "authorization_response_iss_parameter_supported"
        case token = "token_endpoint"
        case revocation = "revocation_endpoint"
        case userinfo = "userinfo_endpoint"
        case isOpenIDProvider = "openid_provider"
        case jwks = "jwks_uri"
        case idTokenSigningAlgorithms = "id_token_signing_alg_values_supported"
        case scopesSupported = "scopes_supported"
    }

    /// The issuer identifier, when known.
    public var issuer: String? {
        get { stored.fields.issuer }
        set { stored.update { $0.issuer = newValue } }
    }
    /// The device authorization endpoint (RFC 8628 §3.1), if the server has one: the device flow needs it
    /// (``DeviceFlow`` fails without it, naming it).
    public var deviceAuthorization: URL? {
        get { stored.fields.deviceAuthorization?.url }
        set { stored.update { $0.deviceAuthorization = newValue.map(EndpointURL.init) } }
    }
    /// The authorization endpoint (RFC 6749 §3.1) the code grant may use, if any: from metadata that passed
    /// ``AuthorizationCodeFlow/authorizationEndpoint(of:override:)``, or given by hand.
    public var authorization: URL? {
        get { stored.fields.authorization?.url }
        set { stored.update { $0.authorization = newValue.map(EndpointURL.init) } }
    }
    /// `authorization_response_iss_parameter_supported` (RFC 9207): the server puts `iss` in its authorization
    /// responses, so a response without it is refused.
    public var issuerInAuthorizationResponse: Bool {
        get { stored.fields.issuerInAuthorizationResponse }
        set { stored.update { $0.issuerInAuthorizationResponse = newValue } }
    }
    /// The token endpoint (RFC 6749 §3.2).
    public var token: URL {
        get { stored.fields.token.url }
        set { stored.update { $0.token = EndpointURL(newValue) } }
    }
    /// The revocation endpoint (RFC 7009), if any.
    public var revocation: URL? {
        get { stored.fields.revocation?.url }
        set { stored.update { $0.revocation = newValue.map(EndpointURL.init) } }
    }
    /// The userinfo endpoint (OpenID Connect Core §5.3), if any.
    public var userinfo: URL? {
        get { stored.fields.userinfo?.url }
        set { stored.update { $0.userinfo = newValue.map(EndpointURL.init) } }
    }
    /// Whether the server is an OpenID provider (decides the default scopes and ID-token handling).
    public var isOpenIDProvider: Bool {
        get { stored.fields.isOpenIDProvider }
        set { stored.update { $0.isOpenIDProvider = newValue } }
    }
    /// `jwks_uri`: where the server publishes the keys its ID tokens are signed with (OpenID Connect Discovery 1.0
    /// §3), if known. Without it ID tokens cannot be verified.
    public var jwks: URL? {
        get { stored.fields.jwks?.url }
        set { stored.update { $0.jwks = newValue.map(EndpointURL.init) } }
    }
    /// `id_token_signing_alg_values_supported`: the algorithms the server signs ID tokens with, when its metadata
    /// lists them; nil for RS256 only, the OpenID Connect default.
    public var idTokenSigningAlgorithms: [String]? {
        get { stored.fields.idTokenSigningAlgorithms }
        set { stored.update { $0.idTokenSigningAlgorithms = newValue } }
    }
    /// `scopes_supported`: the scopes the server's metadata lists (RFC 8414 §2), at most
    /// ``maximumScopesSupported`` of them; nil when it lists none. Decides whether the default scopes ask for
    /// `offline_access` (``ClientConfiguration/defaultScopes(isOpenIDProvider:scopesSupported:)``).
    public var scopesSupported: [String]? {
        get { stored.fields.scopesSupported }
        set { stored.update { $0.scopesSupported = newValue } }
    }

    /// Every field, in one object that the copies of these endpoints share until one of them changes a field: a
    /// device flow, a token state and a session each keep a copy, and the fields take 184 bytes.
    private var stored: CopyOnWrite<Fields>

    /// The fields, the endpoints as given or as read from a profile's file: text made into a URL on use
    /// (``EndpointURL``).
    private struct Fields: Sendable, Hashable {
        var issuer: String?
        var deviceAuthorization: EndpointURL?
        var authorization: EndpointURL?
        var issuerInAuthorizationResponse: Bool
        var token: EndpointURL
        var revocation: EndpointURL?
        var userinfo: EndpointURL?
        var isOpenIDProvider: Bool
        var jwks: EndpointURL?
        var idTokenSigningAlgorithms: [String]?
        var scopesSupported: [String]?
    }

    /// The most entries of `scopes_supported` kept: a server that lists more is still heard on `offline_access`.
    public static let maximumScopesSupported = 256

    /// Creates endpoints by hand.
    public init(
        issuer: String? = nil,
        deviceAuthorization: URL? = nil,
        token: URL,
        authorization: URL? = nil,
        issuerInAuthorizationResponse: Bool = false,
        revocation: URL? = nil,
        userinfo: URL? = nil,
        isOpenIDProvider: Bool = false,
        jwks: URL? = nil,
        idTokenSigningAlgorithms: [String]? = nil,
        scopesSupported: [String]? = nil
    ) {
        self.init(
            issuer: issuer, stored: deviceAuthorization.map(EndpointURL.init), token: EndpointURL(token),
            authorization: authorization.map(EndpointURL.init),
            issuerInAuthorizationResponse: issuerInAuthorizationResponse, revocation: revocation.map(EndpointURL.init),
            userinfo: userinfo.map(EndpointURL.init),
            isOpenIDProvider: isOpenIDProvider, jwks: jwks.map(EndpointURL.init),
            idTokenSigningAlgorithms: idTokenSigningAlgorithms, scopesSupported: scopesSupported
        )
    }

    private init(
        issuer: String?, stored deviceAuthorization: EndpointURL?, token: EndpointURL, authorization: EndpointURL?,
        issuerInAuthorizationResponse: Bool, revocation: EndpointURL?, userinfo: EndpointURL?, isOpenIDProvider: Bool,
        jwks: EndpointURL?, idTokenSigningAlgorithms: [String]?,
        scopesSupported: [String]?
    ) {
        stored = CopyOnWrite(
            Fields(
                issuer: issuer, deviceAuthorization: deviceAuthorization, authorization: authorization,
                issuerInAuthorizationResponse: issuerInAuthorizationResponse, token: token, revocation: revocation,
                userinfo: userinfo, isOpenIDProvider: isOpenIDProvider, jwks: jwks,
                idTokenSigningAlgorithms: idTokenSigningAlgorithms, scopesSupported: scopesSupported.map(Self.bounded)
            ))
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
    /// - Parameters:
    ///   - metadata: The server's discovered metadata.
    ///   - overrideDevice: A device authorization endpoint given by hand, which wins over the metadata's.
    ///   - overrideToken: A token endpoint given by hand, which wins over the metadata's.
    ///   - authorization: The authorization endpoint the code grant may use: the metadata's (or one given by hand)
    ///     once `AuthorizationCodeFlow.authorizationEndpoint(of:override:)` accepted it; nil for none.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/discovery`` when the token endpoint is neither
    ///   in the metadata nor given, or when there is neither a device authorization endpoint nor `authorization`.
    public init(
        metadata: AuthorizationServerMetadata,
        deviceAuthorization overrideDevice: URL? = nil,
        token overrideToken: URL? = nil,
        authorization: URL? = nil
    ) throws {
        func url(_ text: String?) -> URL? { text.flatMap { URL(string: $0) } }
        let device = overrideDevice ?? url(metadata.deviceAuthorizationEndpoint)
        guard device != nil || authorization != nil else {
            throw Self.missingDeviceAuthorization("the server's metadata names no device_authorization_endpoint")
        }
        guard let token = overrideToken ?? url(metadata.tokenEndpoint) else {
            throw DeviceLoginError(
                .discovery, "the server's metadata names no token_endpoint",
                hint: "give the token endpoint by hand", reason: .missingEndpoint(.token)
            )
        }
        self.init(
            issuer: metadata.issuer, deviceAuthorization: device, token: token, authorization: authorization,
            issuerInAuthorizationResponse: metadata.authorizationResponseIssuerSupported == true,
            revocation: url(metadata.revocationEndpoint), userinfo: url(metadata.userinfoEndpoint),
            isOpenIDProvider: metadata.isOpenIDProvider, jwks: url(metadata.jwksURI),
            idTokenSigningAlgorithms: metadata.idTokenSigningAlgorithms, scopesSupported: metadata.scopesSupported
        )
    }

    /// The device authorization endpoint, for the device flow.
    /// - Throws: ``DeviceLoginError`` (``DeviceLoginError/Code/discovery``, reason
    ///   ``DeviceLoginError/Reason/missingEndpoint(_:)``) when the server has none: it offers the code grant only.
    public func requireDeviceAuthorization() throws -> URL {
        guard let deviceAuthorization else {
            throw Self.missingDeviceAuthorization(
                "the device flow needs the server's device_authorization_endpoint, which it does not name")
        }
        return deviceAuthorization
    }

    /// The server a device authorization is recorded as coming from (``DeviceAuthorization/issuer``): the issuer,
    /// else the device authorization endpoint (else the token endpoint).
    package var recordedServer: String { issuer ?? deviceAuthorization?.absoluteString ?? token.absoluteString }

    private static func missingDeviceAuthorization(_ message: String) -> DeviceLoginError {
        DeviceLoginError(
            .discovery, message,
            hint: "give the device authorization endpoint by hand, or use the authorization code grant",
            reason: .missingEndpoint(.deviceAuthorization))
    }

    /// Checks every endpoint against the HTTPS policy (``EndpointPolicy``).
    public func check(allowInsecureHTTP: Bool) throws {
        for url in [token] + [deviceAuthorization, authorization, revocation, userinfo, jwks].compactMap({ $0 }) {
            do {
                try EndpointPolicy.check(url, allowInsecureHTTP: allowInsecureHTTP)
            } catch let error as TransportError {
                throw DeviceLoginError(.insecureEndpoint, error.message, transportError: error)
            }
        }
    }
}

extension ServerEndpoints {

    /// Reads endpoints in the stored form: part of the one reader of a profile's file
    /// (``ProfileRecord/init(stored:)``). Each endpoint must be an absolute `http(s)` URI (``EndpointURL``); it is
    /// made into a `URL` when a request uses it, so reading a profile on the fast lane starts no URL parser.
    /// - Throws: ``DeviceLoginError`` naming the first field that cannot be read.
    package init(stored fields: JSONFields) throws {
        typealias Key = CodingKeys
        self.init(
            issuer: try fields.stringIfPresent(Key.issuer.rawValue),
            stored: try fields.stringIfPresent(Key.deviceAuthorization.rawValue, as: EndpointURL.init(stored:)),
            token: try fields.string(Key.token.rawValue, as: EndpointURL.init(stored:)),
            authorization: try fields.stringIfPresent(Key.authorization.rawValue, as: EndpointURL.init(stored:)),
            issuerInAuthorizationResponse: try fields.boolIfPresent(Key.issuerInAuthorizationResponse.rawValue)
                ?? false,
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
        let fields = stored.fields
        try container.encodeIfPresent(issuer, forKey: .issuer)
        try container.encodeIfPresent(fields.deviceAuthorization?.text, forKey: .deviceAuthorization)
        try container.encode(fields.token.text, forKey: .token)
        try container.encodeIfPresent(fields.authorization?.text, forKey: .authorization)
        if issuerInAuthorizationResponse { try container.encode(true, forKey: .issuerInAuthorizationResponse) }
        try container.encodeIfPresent(fields.revocation?.text, forKey: .revocation)
        try container.encodeIfPresent(fields.userinfo?.text, forKey: .userinfo)
        try container.encode(isOpenIDProvider, forKey: .isOpenIDProvider)
        try container.encodeIfPresent(fields.jwks?.text, forKey: .jwks)
        try container.encodeIfPresent(idTokenSigningAlgorithms, forKey: .idTokenSigningAlgorithms)
        try container.encodeIfPresent(scopesSupported, forKey: .scopesSupported)
    }
}
