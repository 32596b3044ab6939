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
    public var deviceAuthorization: URL
    /// The token endpoint (RFC 6749 §3.2).
    public var token: URL
    /// The revocation endpoint (RFC 7009), if any.
    public var revocation: URL?
    /// The userinfo endpoint (OpenID Connect Core §5.3), if any.
    public var userinfo: URL?
    /// Whether the server is an OpenID provider (decides the default scopes and ID-token handling).
    public var isOpenIDProvider: Bool
    /// `jwks_uri`: where the server publishes the keys its ID tokens are signed with (OpenID Connect Discovery 1.0
    /// §3), if known. Without it ID tokens cannot be verified.
    public var jwks: URL?
    /// `id_token_signing_alg_values_supported`: the algorithms the server signs ID tokens with, when its metadata
    /// lists them; nil for RS256 only, the OpenID Connect default.
    public var idTokenSigningAlgorithms: [String]?
    /// `scopes_supported`: the scopes the server's metadata lists (RFC 8414 §2), at most
    /// ``maximumScopesSupported`` of them; nil when it lists none. Decides whether the default scopes ask for
    /// `offline_access` (``ClientConfiguration/defaultScopes(isOpenIDProvider:scopesSupported:)``).
    public var scopesSupported: [String]?

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
        self.issuer = issuer
        self.deviceAuthorization = deviceAuthorization
        self.token = token
        self.revocation = revocation
        self.userinfo = userinfo
        self.isOpenIDProvider = isOpenIDProvider
        self.jwks = jwks
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
