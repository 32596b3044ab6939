#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A provider preset with its settings filled in (``ProviderPreset/resolve(_:)``): what is known before any
/// request, and the provider's advice on scopes, parameters and the client secret.
///
/// Endpoints given explicitly by the user always win over these: they are defaults, not rules.
public struct ResolvedProvider: Sendable, Hashable {
    /// The preset's name: `github`.
    public var preset: String
    /// The provider's name for people (``ProviderPreset/title``).
    public var title: String
    /// The issuer to discover the remaining endpoints from; nil when the provider has no discovery (GitHub) or the
    /// issuer cannot be known beforehand (Microsoft's multi-tenant `organizations`).
    public var issuer: String?
    /// The device authorization endpoint, when known without discovery (GitLab's discovery omits it).
    public var deviceAuthorizationEndpoint: URL?
    /// The token endpoint, when known without discovery.
    public var tokenEndpoint: URL?
    /// The authorization endpoint of the code grant, when known without discovery (GitHub has no discovery).
    public var authorizationEndpoint: URL? = nil
    /// The loopback port the provider needs in the redirect URI, when its registrations match the port exactly;
    /// nil for any port (RFC 8252 §7.3).
    public var redirectPort: Int? = nil
    /// The revocation endpoint, when known without discovery.
    public var revocationEndpoint: URL?
    /// The userinfo endpoint, when known without discovery.
    public var userinfoEndpoint: URL?
    /// The scopes to ask for when none are given; nil for the library's default.
    public var defaultScopes: [String]?
    /// The only scopes the provider's device flow accepts; nil for no such limit.
    public var allowedScopes: [String]?
    /// The device authorization parameters the usual use needs, each with why (Auth0's `audience`).
    public var expectedParameters: [String: String]
    /// Whether the token endpoint requires the client secret (Google).
    public var requiresClientSecret: Bool
    /// How to send the client secret when none is chosen (Google: `client_secret_post`); nil for HTTP Basic.
    public var clientAuthentication: ClientAuthentication.Method?

    /// The metadata URLs discovery tries for ``issuer``, in order (``Discovery/metadataURLs(for:)``); empty
    /// without an issuer.
    public var discoveryURLs: [URL] {
        guard let issuer, let url = URL(string: issuer) else { return [] }
        return Discovery.metadataURLs(for: url)
    }

    /// The endpoints, when every one a flow needs is known without discovery (no issuer, the token endpoint and a
    /// device authorization or authorization endpoint known); nil otherwise.
    public var endpointsWithoutDiscovery: ServerEndpoints? {
        guard issuer == nil, let tokenEndpoint, deviceAuthorizationEndpoint != nil || authorizationEndpoint != nil
        else { return nil }
        return ServerEndpoints(
            deviceAuthorization: deviceAuthorizationEndpoint, token: tokenEndpoint,
            authorization: authorizationEndpoint, revocation: revocationEndpoint, userinfo: userinfoEndpoint)
    }

    /// The scopes among `scopes` that the provider's device flow does not accept (``allowedScopes``), in order.
    public func unsupportedScopes(_ scopes: [String]) -> [String] {
        guard let allowedScopes else { return [] }
        return scopes.filter { !allowedScopes.contains($0) }
    }

    /// The ``expectedParameters`` missing from `names` (the device authorization parameters given), in order of
    /// name.
    public func missingParameters(_ names: [String]) -> [String] {
        expectedParameters.keys.sorted().filter { !names.contains($0) }
    }
}
