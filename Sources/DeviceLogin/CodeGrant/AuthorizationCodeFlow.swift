#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The authorization code grant with PKCE (RFC 6749 §4.1, RFC 7636), for a browser on this device (a loopback
/// redirect, RFC 8252 §7.3) or a code pasted back: the same shape as ``DeviceFlow`` — request, wait, token — with
/// the clock and transport injected. What follows the token response (token state, storage, ID-token verification,
/// events) is the device flow's.
///
/// ```swift
/// let flow = AuthorizationCodeFlow(endpoints: endpoints, authorizationEndpoint: authorize, client: client,
///                                  transport: DefaultTransport.make())
/// let listener = try LoopbackRedirectListener()
/// let request = try flow.makeRequest(redirectURI: listener.redirectURI)
/// print("Open \(flow.url(for: request))")
/// let response = try await flow.waitForRedirect(request, on: listener, timeout: .seconds(600))
/// let token = try await flow.redeem(response, for: request)
/// ```
public struct AuthorizationCodeFlow: Sendable {
    /// The endpoints: the token endpoint and the issuer are used.
    public let endpoints: ServerEndpoints
    /// The authorization endpoint (RFC 6749 §3.1).
    public let authorizationEndpoint: URL
    /// Whether the server advertises `iss` in its authorization responses (RFC 9207): then it must be there.
    public let issuerInResponse: Bool
    /// The client configuration used.
    public let client: ClientConfiguration
    private let transport: any HTTPTransport
    private let clock: FlowClock

    /// Creates a flow.
    /// - Parameters:
    ///   - endpoints: The token endpoint and issuer (from ``Discovery`` or by hand).
    ///   - authorizationEndpoint: Where the browser is sent.
    ///   - issuerInResponse: `authorization_response_iss_parameter_supported` from the metadata.
    ///   - client: The client configuration.
    ///   - transport: How requests are sent.
    ///   - clock: The clock of the local deadline; ``SystemTime/clock`` by default.
    public init(
        endpoints: ServerEndpoints,
        authorizationEndpoint: URL,
        issuerInResponse: Bool = false,
        client: ClientConfiguration,
        transport: any HTTPTransport,
        clock: any Clock<Duration> = SystemTime.clock
    ) {
        self.endpoints = endpoints
        self.authorizationEndpoint = authorizationEndpoint
        self.issuerInResponse = issuerInResponse
        self.client = client
        self.transport = transport
        self.clock = FlowClock(clock)
    }

    /// Creates a flow with the endpoints' own authorization endpoint (``ServerEndpoints/authorization``, which
    /// discovery keeps only when the metadata allows the grant) and RFC 9207 flag.
    /// - Throws: ``DeviceLoginError`` (``DeviceLoginError/Code/configuration``) when the endpoints have no
    ///   authorization endpoint.
    public init(
        endpoints: ServerEndpoints,
        client: ClientConfiguration,
        transport: any HTTPTransport,
        clock: any Clock<Duration> = SystemTime.clock
    ) throws {
        guard let authorization = endpoints.authorization else {
            throw DeviceLoginError(
                .configuration, "the code grant needs the server's authorization endpoint, which it does not name",
                hint: "give the authorization endpoint by hand, or use the device flow")
        }
        self.init(
            endpoints: endpoints, authorizationEndpoint: authorization,
            issuerInResponse: endpoints.issuerInAuthorizationResponse, client: client, transport: transport,
            clock: clock)
    }

    /// The authorization endpoint of a server's metadata, once the metadata says the grant can be used safely: an
    /// `authorization_endpoint` (or `override`), PKCE with S256 (``PKCE/check(methodsSupported:)``), and the
    /// `query` response mode when `response_modes_supported` lists modes (RFC 8414 §2; absent means `query` and
    /// `fragment`).
    /// - Throws: ``DeviceLoginError`` (``DeviceLoginError/Code/discovery``).
    public static func authorizationEndpoint(
        of metadata: AuthorizationServerMetadata, override: URL? = nil
    ) throws -> URL {
        guard let endpoint = override ?? metadata.authorizationEndpoint.flatMap({ URL(string: $0) }) else {
            throw DeviceLoginError(
                .discovery, "the server's metadata names no authorization_endpoint",
                hint: "give the authorization endpoint by hand, or use the device flow"
            )
        }
        try PKCE.check(methodsSupported: metadata.codeChallengeMethodsSupported)
        if let modes = metadata.responseModesSupported, !modes.isEmpty, !modes.contains("query") {
            throw DeviceLoginError(
                .discovery,
                "the server's response_modes_supported lists "
                    + Sanitizer.sanitize(modes.prefix(8).joined(separator: " "), maxLength: 120) + " but not query",
                hint: "this client reads the code from the redirect's query"
            )
        }
        return endpoint
    }

    /// The scopes asked for, as the device flow's (``ClientConfiguration/effectiveScopes(for:)``).
    public var scopes: [String] { client.effectiveScopes(for: endpoints) }

    /// A request with fresh PKCE, `state` and (for OpenID scopes) `nonce`.
    /// - Throws: ``DeviceLoginError`` (``DeviceLoginError/Code/insecureEndpoint``) when an endpoint fails the
    ///   HTTPS policy; a `CryptoError` when libcrypto cannot be loaded.
    public func makeRequest(redirectURI: String) throws -> AuthorizationRequest {
        try endpoints.check(allowInsecureHTTP: client.allowInsecureHTTP)
        do {
            try EndpointPolicy.check(authorizationEndpoint, allowInsecureHTTP: client.allowInsecureHTTP)
        } catch let error as TransportError {
            throw DeviceLoginError(.insecureEndpoint, error.message, transportError: error)
        }
        return try AuthorizationRequest.make(
            clientID: client.clientID, redirectURI: redirectURI, scopes: scopes, resources: client.resources,
            additionalParameters: client.additionalParameters
        )
    }

    /// The address the person opens.
    public func url(for request: AuthorizationRequest) -> URL { request.url(at: authorizationEndpoint) }

    /// What the answer to `request` is checked against.
    public func expectation(for request: AuthorizationRequest) -> AuthorizationResponse.Expectation {
        AuthorizationResponse.Expectation(
            state: request.state, issuer: endpoints.issuer, issuerRequired: issuerInResponse,
            redirectURI: request.redirectURI
        )
    }

    /// Reads a pasted code or redirect URL for `request`.
    /// - Throws: As ``AuthorizationResponse/parse(pasted:expecting:)``.
    public func response(pasted text: String, for request: AuthorizationRequest) throws -> AuthorizationResponse {
        try AuthorizationResponse.parse(pasted: text, expecting: expectation(for: request))
    }

    /// Waits for the browser's redirect on `listener`, at most `timeout` on the flow's clock; the listener is closed
    /// however the wait ends.
    /// - Throws: ``DeviceLoginError/Code/expired`` at the deadline; the listener's errors; `CancellationError`.
    public func waitForRedirect(
        _ request: AuthorizationRequest, on listener: LoopbackRedirectListener, timeout: Duration
    ) async throws -> AuthorizationResponse {
        defer { listener.close() }
        let expected = expectation(for: request)
        let clock = self.clock
        return try await withThrowingTaskGroup(of: AuthorizationResponse?.self) { group in
            group.addTask { try await listener.waitForRedirect(expecting: expected) }
            group.addTask {
                try await clock.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let response = first else {
                throw DeviceLoginError(
                    .expired, "no sign-in arrived from the browser in time",
                    hint: "start the sign-in again and finish it in the browser"
                )
            }
            return response
        }
    }

    /// Redeems the code at the token endpoint (RFC 6749 §4.1.3, RFC 7636 §4.5), with a DPoP proof when the client
    /// has a key (RFC 9449 §10: the code exchange binds the tokens to it), and checks the ID token's `nonce`
    /// (OpenID Connect Core §3.1.3.7 step 11; its signature and claims are checked where the device flow's are).
    /// - Throws: ``DeviceLoginError``: ``DeviceLoginError/Code/oauth`` for a refusal (`invalid_grant`: the code
    ///   was used, expired or does not fit the verifier), ``DeviceLoginError/Code/invalidIDToken`` for a wrong
    ///   nonce, ``DeviceLoginError/Code/transport``, ``DeviceLoginError/Code/invalidResponse``; `CancellationError`.
    public func redeem(
        _ response: AuthorizationResponse, for request: AuthorizationRequest
    ) async throws -> TokenResponse {
        let message = AuthorizationCodeTokenRequest(
            code: response.code, redirectURI: request.redirectURI, codeVerifier: request.pkce.verifier,
            resources: client.resources
        )
        let http = client.formRequest(to: endpoints.token, parameters: message.formParameters)
        let reply: HTTPResponse
        do {
            if let dpop = client.dpop {
                reply = try await dpop.send(http, through: transport)
            } else {
                reply = try await transport.send(http)
            }
        } catch let error as TransportError {
            throw DeviceLoginError.wrapping(error, while: "the code exchange")
        }
        let token = try Self.token(from: reply)
        if let refusal = token.tokenTypeRefusal(provenWithDPoP: client.dpop != nil) { throw refusal }
        try Self.checkNonce(of: token, expected: request.nonce)
        return token
    }

    /// The token response, or the error it is.
    static func token(from reply: HTTPResponse) throws -> TokenResponse {
        switch ServerReply(reply) {
        case .success(let object):
            return try TokenResponse(accepting: object)
        case .oauthError(let error):
            var failure = DeviceLoginError.server(error, while: "the code exchange")
            if error.code == .invalidGrant {
                failure.hint = "the code was used, expired or was not this sign-in's: start the sign-in again"
            }
            throw failure
        case .httpError(let status, _, _):
            throw DeviceLoginError(.transport, "the token endpoint answered HTTP \(status)", hint: "try again later")
        case .malformed(let status, let reason, _):
            throw DeviceLoginError(.invalidResponse, "the token endpoint answered HTTP \(status) but \(reason)")
        }
    }

    /// The ID token, when there is one and a nonce was sent, must carry that nonce.
    static func checkNonce(of token: TokenResponse, expected nonce: String?) throws {
        guard let nonce, let idToken = token.idToken else { return }
        let claims = try CompactJWT(idToken, maximumBytes: 64 * 1024).payload
        guard let received = claims.string("nonce"), RandomText.equal(received, nonce) else {
            throw DeviceLoginError(
                .invalidIDToken,
                "the ID token's nonce is not this sign-in's (OpenID Connect Core §3.1.3.7): it may be replayed"
            )
        }
    }
}
