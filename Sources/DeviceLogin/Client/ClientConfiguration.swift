#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Everything that identifies a client and shapes its requests. A `Sendable` value with documented defaults.
///
/// ```swift
/// let client = ClientConfiguration(clientID: "my-device-app", scopes: ["openid", "offline_access"])
/// ```
public struct ClientConfiguration: Sendable, Hashable {
    /// The scopes asked for by default from an OpenID provider: `openid profile offline_access`.
    public static let defaultOpenIDScopes = ["openid", "profile", "offline_access"]

    /// The client identifier issued by the authorization server.
    public var clientID: String {
        get { stored.fields.clientID }
        set { stored.update { $0.clientID = newValue } }
    }
    /// How the client authenticates. Default ``ClientAuthentication/none``.
    public var authentication: ClientAuthentication {
        get { stored.fields.authentication }
        set { stored.update { $0.authentication = newValue } }
    }
    /// The scopes to ask for. `nil` means: ``defaultOpenIDScopes`` when the server is an OpenID provider (without
    /// `offline_access` when its `scopes_supported` leaves it out), none otherwise (see
    /// ``defaultScopes(isOpenIDProvider:scopesSupported:)``).
    public var scopes: [String]? {
        get { stored.fields.scopes }
        set { stored.update { $0.scopes = newValue } }
    }
    /// RFC 8707 resource indicators (absolute URIs) sent with the device authorization and token requests.
    public var resources: [String] {
        get { stored.fields.resources }
        set { stored.update { $0.resources = newValue } }
    }
    /// Extra form parameters sent with the device authorization request (e.g. Auth0's `audience`).
    public var additionalParameters: [FormParameter] {
        get { stored.fields.additionalParameters }
        set { stored.update { $0.additionalParameters = newValue } }
    }
    /// Extra headers sent with every request to the authorization server.
    public var additionalHeaders: [HTTPHeader] {
        get { stored.fields.additionalHeaders }
        set { stored.update { $0.additionalHeaders = newValue } }
    }
    /// Whether plain `http://` endpoints are allowed for hosts that are not loopback. Default false.
    public var allowInsecureHTTP: Bool {
        get { stored.fields.allowInsecureHTTP }
        set { stored.update { $0.allowInsecureHTTP = newValue } }
    }
    /// The DPoP key (RFC 9449) that proves every request to the authorization server, binding the tokens to it;
    /// nil (the default) for Bearer tokens. See ``DPoPProver``.
    public var dpop: DPoPProver? {
        get { stored.fields.dpop }
        set { stored.update { $0.dpop = newValue } }
    }

    /// Creates a configuration.
    /// - Parameters:
    ///   - clientID: The client identifier.
    ///   - authentication: Client authentication; default none (a public client).
    ///   - scopes: Scopes; nil for the default described at ``scopes``.
    ///   - resources: RFC 8707 resource indicators.
    ///   - additionalParameters: Extra device authorization request parameters.
    ///   - additionalHeaders: Extra headers.
    ///   - allowInsecureHTTP: Allow plain HTTP to hosts that are not loopback.
    ///   - dpop: The DPoP key to prove requests with; nil for Bearer tokens.
    public init(
        clientID: String,
        authentication: ClientAuthentication = .none,
        scopes: [String]? = nil,
        resources: [String] = [],
        additionalParameters: [FormParameter] = [],
        additionalHeaders: [HTTPHeader] = [],
        allowInsecureHTTP: Bool = false,
        dpop: DPoPProver? = nil
    ) {
        stored = CopyOnWrite(
            Fields(
                clientID: clientID, authentication: authentication, scopes: scopes, resources: resources,
                additionalParameters: additionalParameters, additionalHeaders: additionalHeaders,
                allowInsecureHTTP: allowInsecureHTTP, dpop: dpop
            ))
    }

    /// Every field, in one object that the copies of this configuration share until one of them changes a field:
    /// every device flow keeps a copy, and the fields take 88 bytes.
    private var stored: CopyOnWrite<Fields>

    /// The fields.
    private struct Fields: Sendable, Hashable {
        var clientID: String
        var authentication: ClientAuthentication
        var scopes: [String]?
        var resources: [String]
        var additionalParameters: [FormParameter]
        var additionalHeaders: [HTTPHeader]
        var allowInsecureHTTP: Bool
        var dpop: DPoPProver?
    }

    /// The scopes to send to the server at `endpoints`: the configured ones, else
    /// ``defaultScopes(isOpenIDProvider:scopesSupported:)`` for what its metadata says.
    public func effectiveScopes(for endpoints: ServerEndpoints) -> [String] {
        scopes
            ?? Self.defaultScopes(
                isOpenIDProvider: endpoints.isOpenIDProvider, scopesSupported: endpoints.scopesSupported)
    }

    /// The scopes to send when the server's scope list is not known: the configured ones, else the OpenID default
    /// for an OpenID provider, else none.
    public func effectiveScopes(isOpenIDProvider: Bool) -> [String] {
        scopes ?? Self.defaultScopes(isOpenIDProvider: isOpenIDProvider, scopesSupported: nil)
    }

    /// The scopes asked for when none are configured: none from a server that is not an OpenID provider; else
    /// ``defaultOpenIDScopes``, without `offline_access` when the server lists the scopes it supports
    /// (`scopes_supported`, RFC 8414 §2) and that list leaves it out. Such a server refuses a scope it does not
    /// know with `invalid_scope` (RFC 6749 §5.2), and many (Authlib's defaults, for one) issue a refresh token
    /// without it. A server that lists nothing gets the full default: `offline_access` is the OpenID way to ask
    /// for a refresh token (OpenID Connect Core §11).
    /// - Parameters:
    ///   - isOpenIDProvider: Whether the server is an OpenID provider.
    ///   - scopesSupported: The server's `scopes_supported`, or nil when its metadata has none.
    public static func defaultScopes(isOpenIDProvider: Bool, scopesSupported: [String]?) -> [String] {
        guard isOpenIDProvider else { return [] }
        guard let scopesSupported else { return defaultOpenIDScopes }
        return defaultOpenIDScopes.filter { $0 != offlineAccess || scopesSupported.contains(offlineAccess) }
    }

    /// `offline_access`: the OpenID scope that asks for a refresh token (``ServerEndpoints/offlineAccess``).
    static let offlineAccess = ServerEndpoints.offlineAccess
}

extension ClientConfiguration: CustomStringConvertible {
    /// A summary without the secret.
    public var description: String {
        "ClientConfiguration(clientID: \(clientID), authentication: \(authentication), "
            + "scopes: \(scopes.map { $0.joined(separator: " ") } ?? "default"), resources: \(resources)"
            + (dpop.map { ", dpop: \($0.thumbprint)" } ?? "") + ")"
    }
}

extension ClientConfiguration {
    /// The headers of every form POST: one array that requests share until one adds a header (a waiting device flow
    /// keeps its poll's request, and 10,000 flows kept 10,000 copies of these two).
    private static let formHeaders = [
        HTTPHeader("Content-Type", "application/x-www-form-urlencoded"),
        HTTPHeader("Accept", "application/json"),
    ]

    /// Builds a form POST to a token-style endpoint with this client's authentication (RFC 6749 §2.3.1).
    ///
    /// Sends `Accept: application/json` always (GitHub answers form-encoded otherwise).
    /// - Parameters:
    ///   - endpoint: The endpoint URL.
    ///   - parameters: The form parameters, in order, without client authentication.
    /// - Returns: The request, with `client_id` (and `client_secret` for `client_secret_post`) appended.
    public func formRequest(to endpoint: URL, parameters: [(String, String)]) -> HTTPRequest {
        formRequest(to: endpoint, parameters: parameters, rememberingSecrets: true)
    }

    /// ``formRequest(to:parameters:)``, remembering its secrets (``KnownSecrets``) only when `rememberingSecrets`: a
    /// device flow remembers them once (``rememberSecrets(ofFormWith:)``) and builds its poll again for every poll.
    func formRequest(to endpoint: URL, parameters: [(String, String)], rememberingSecrets: Bool) -> HTTPRequest {
        let (pairs, headers) = authenticatedForm(parameters)
        if rememberingSecrets { rememberSecrets(of: pairs, headers: headers) }
        return HTTPRequest(method: .post, url: endpoint, headers: headers, body: FormEncoding.encodedData(pairs))
    }

    /// Remembers the secrets that ``formRequest(to:parameters:)`` would remember for `parameters`, without building
    /// the request.
    func rememberSecrets(ofFormWith parameters: [(String, String)]) {
        let (pairs, headers) = authenticatedForm(parameters)
        rememberSecrets(of: pairs, headers: headers)
    }

    /// `parameters` with this client's authentication: `client_id` (and `client_secret`) appended, or an HTTP Basic
    /// header; the headers of every form POST first.
    private func authenticatedForm(
        _ parameters: [(String, String)]
    ) -> (pairs: [(String, String)], headers: [HTTPHeader]) {
        var pairs = parameters
        var headers = Self.formHeaders
        switch authentication {
        case .none:
            pairs.append(("client_id", clientID))
        case .clientSecretPost(let secret):
            pairs.append(("client_id", clientID))
            pairs.append(("client_secret", secret))
        case .clientSecretBasic(let secret):
            let credentials = "\(FormEncoding.escape(clientID)):\(FormEncoding.escape(secret))"
            headers.append(HTTPHeader("Authorization", "Basic \(Data(credentials.utf8).base64EncodedString())"))
        }
        if !additionalHeaders.isEmpty { headers.append(contentsOf: additionalHeaders) }
        return (pairs, headers)
    }
}

extension ClientConfiguration {
    /// Remembers every secret a token-style request carries (``KnownSecrets``): the values of secret form fields
    /// (``Redaction/secretFields``: `client_secret`, `device_code`, `refresh_token`, `token`, …), as sent and
    /// form-encoded, and the credentials of secret headers (HTTP Basic's), so that no error or event can repeat them.
    private func rememberSecrets(of pairs: [(String, String)], headers: [HTTPHeader]) {
        for (name, value) in pairs where Redaction.secretFields.contains(name) {
            KnownSecrets.remember([value, FormEncoding.escape(value)])
        }
        for header in headers where Redaction.secretHeaders.contains(header.name.lowercased()) {
            let credential = header.value.split(separator: " ", maxSplits: 1).last.map(String.init)
            KnownSecrets.remember([header.value, credential])
        }
        KnownSecrets.remember(authentication.secret)
    }
}
