import DeviceLogin

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An OAuth 2.0 authorization server for tests: one model of the device flow that enforces RFC 8628 itself,
/// follows a script, and records every request with its time.
///
/// It serves discovery, device authorization, the token endpoint (device code and refresh grants), revocation,
/// userinfo and an HTML approval page, under one issuer. Put it behind ``InProcessTransport`` for unit tests, or
/// behind ``LoopbackServer`` for a real socket.
///
/// ```swift
/// let clock = ManualClock()
/// let server = MockAuthorizationServer(
///     configuration: .init(defaultScript: .approve(afterPolls: 2)),
///     clock: clock
/// )
/// let flow = DeviceFlow(
///     endpoints: try server.endpoints(),
///     client: ClientConfiguration(clientID: MockAuthorizationServer.Configuration.defaultClientID),
///     transport: InProcessTransport(server: server),
///     clock: clock
/// )
/// let token = try await clock.withAutoAdvance { try await flow.run() }
///
/// let code = try #require(server.lastAuthorization).deviceCode
/// #expect(server.pollTimes(deviceCode: code) == [.seconds(5), .seconds(10), .seconds(15)])
/// #expect(server.rfcViolations == 0)
/// ```
///
/// What it enforces, whatever the script says:
/// - a poll sooner than the interval in force after the previous poll with the same device code gets `slow_down`,
///   and the interval grows by 5 seconds for that code (RFC 8628 §3.5);
/// - a device code answers `expired_token` once `expires_in` has passed, `invalid_grant` when unknown, and
///   `invalid_grant` after its one token was issued;
/// - clients authenticate exactly as registered; parameters are not repeated; scopes and resources are known;
/// - a rotated refresh token is dead (`invalid_grant`); revoking a refresh token revokes its access tokens;
///   userinfo refuses a bad, expired or revoked token with `WWW-Authenticate: Bearer error="invalid_token"`.
///
/// Client behaviour the RFC forbids is counted in ``violations``. Times are measured on the injected clock from
/// the moment the server is created.
public final class MockAuthorizationServer: Sendable {
    let state: Locked<MockServerState>
    private let elapsed: @Sendable () -> Duration
    private let sleep: @Sendable (Duration) async throws -> Void

    /// Creates a server.
    /// - Parameters:
    ///   - configuration: Where it lives, whom it knows, how it speaks; see ``Configuration``.
    ///   - clock: The clock for request times, expiry and delays: a ``ManualClock`` in unit tests,
    ///     `SystemTime.clock` (the default, a `ContinuousClock`) behind a listener.
    ///   - now: The wall clock for ID token `iat` and `exp`.
    public init<C: Clock>(
        configuration: Configuration = Configuration(),
        clock: C = SystemTime.clock,
        now: @escaping @Sendable () -> Date = SystemTime.now
    ) where C.Duration == Duration {
        state = Locked(MockServerState(configuration: configuration, wallClock: now))
        let clock = FlowClock(clock)
        elapsed = clock.elapsed
        sleep = clock.sleep(for:)
    }

    // MARK: - Serving

    /// Answers one request: the pure model both front doors serve.
    ///
    /// The answer is decided when the request arrives; a scripted or configured delay is then waited out on the
    /// server's clock (cut short if the task is cancelled; the caller checks for cancellation).
    /// - Parameter request: The request, with an absolute URL; only its path and query are routed on.
    /// - Returns: The response, or the instruction to drop the connection.
    public func handle(_ request: HTTPRequest) async -> MockResponse {
        await handle(request, fromOrigin: nil) ?? .dropConnection
    }

    /// Answers one request if `origin` is the issuer's origin (or nil); otherwise returns nil without recording
    /// it. One lock for the check and the answer keeps the in-process path cheap.
    func handle(_ request: HTTPRequest, fromOrigin origin: String?) async -> MockResponse? {
        // Read before the lock, which every request of every flow takes: the form and the media types depend on the
        // request alone. The time is read under the lock, so that requests are answered in the order of their times.
        var incoming = MockServerState.Incoming(request, at: .zero)
        let processed: Reply? = state.withLock { state in
            if let origin, origin != state.layout.origin { return nil }
            incoming.time = elapsed()
            return state.process(incoming)
        }
        guard let reply = processed else { return nil }
        guard reply.delay > .zero else { return reply.response }
        try? await sleep(reply.delay)
        if reply.pollNumber != nil, let deviceCode = reply.deviceCode {
            state.withLock { $0.finishPoll(deviceCode: deviceCode) }
        }
        return reply.response
    }

    /// The time since the server was created, on its clock.
    public var currentTime: Duration {
        elapsed()
    }

    // MARK: - Configuration

    /// The configuration in force.
    public var configuration: Configuration {
        state.withLock { $0.configuration }
    }

    /// Changes the configuration; what changed applies from the next request (a new default script applies to
    /// device codes issued later; a new issuer moves every endpoint).
    /// - Parameter change: Edits the configuration in place.
    public func configure(_ change: (inout Configuration) -> Void) {
        state.withLock { state in
            change(&state.configuration)
            state.layout = IssuerLayout(state.configuration.issuer)
        }
    }

    /// The issuer identifier, without a trailing slash.
    public var issuer: String {
        state.withLock { $0.layout.issuer }
    }

    /// The discovery document the server serves.
    public var metadata: AuthorizationServerMetadata {
        state.withLock { $0.metadata }
    }

    /// The endpoints a client should use, as discovery would give them.
    ///
    /// ```swift
    /// let flow = DeviceFlow(endpoints: try server.endpoints(), client: client, transport: transport, clock: clock)
    /// ```
    /// - Throws: `DeviceLoginError` `configuration` when the issuer is not an absolute URL.
    public func endpoints() throws -> ServerEndpoints {
        let (layout, paths) = state.withLock { ($0.layout, $0.configuration.paths) }
        func url(_ path: String) throws -> URL {
            guard let url = URL(string: layout.url(path)), url.host != nil else {
                throw DeviceLoginError(
                    .configuration, "the mock server's issuer \(layout.issuer) is not an absolute URL"
                )
            }
            return url
        }
        return ServerEndpoints(
            issuer: layout.issuer,
            deviceAuthorization: try url(paths.deviceAuthorization),
            token: try url(paths.token),
            revocation: try url(paths.revocation),
            userinfo: try url(paths.userinfo),
            isOpenIDProvider: metadata.isOpenIDProvider,
            jwks: try url(paths.jwks),
            idTokenSigningAlgorithms: metadata.idTokenSigningAlgorithms, scopesSupported: metadata.scopesSupported
        )
    }

    /// Moves the issuer to `origin` (scheme, host and port), keeping its path: used by ``LoopbackServer``.
    func rebase(onto origin: String) {
        state.withLock { state in
            state.layout = state.layout.rebased(onto: origin)
            state.configuration.issuer = state.layout.issuer
        }
    }

    // MARK: - Scripting

    /// Replaces the script of one device code.
    /// - Parameters:
    ///   - deviceCode: The device code.
    ///   - script: What the user does and what goes wrong; see ``Script``.
    public func script(deviceCode: String, _ script: Script) {
        state.withLock { $0.deviceCodes[deviceCode]?.script = script }
    }

    /// Approves a pending device code now: its next poll gets the token.
    /// - Returns: Whether a pending, unexpired code was found.
    @discardableResult
    public func approve(deviceCode: String) -> Bool {
        decide(.deviceCode(deviceCode), approve: true)
    }

    /// Denies a pending device code now: its next poll gets `access_denied`.
    /// - Returns: Whether a pending, unexpired code was found.
    @discardableResult
    public func deny(deviceCode: String) -> Bool {
        decide(.deviceCode(deviceCode), approve: false)
    }

    /// Approves the pending device code with this user code, as the approval page does. Case, dashes and spaces
    /// are ignored (RFC 8628 §6.1).
    /// - Returns: Whether a pending, unexpired code was found.
    @discardableResult
    public func approve(userCode: String) -> Bool {
        decide(.userCode(userCode), approve: true)
    }

    /// Denies the pending device code with this user code, as the approval page does.
    /// - Returns: Whether a pending, unexpired code was found.
    @discardableResult
    public func deny(userCode: String) -> Bool {
        decide(.userCode(userCode), approve: false)
    }

    /// Expires a device code now: its next poll gets `expired_token`.
    /// - Returns: Whether the code was found.
    @discardableResult
    public func expire(deviceCode: String) -> Bool {
        state.withLock { state in
            guard state.deviceCodes[deviceCode] != nil else { return false }
            state.deviceCodes[deviceCode]?.forcedExpiry = true
            return true
        }
    }

    private enum CodeReference {
        case deviceCode(String)
        case userCode(String)
    }

    private func decide(_ reference: CodeReference, approve: Bool) -> Bool {
        let outcome = state.withLock { state in
            switch reference {
            case .deviceCode(let code): return state.decide(deviceCode: code, approve: approve, at: elapsed())
            case .userCode(let code): return state.decide(userCode: code, approve: approve, at: elapsed())
            }
        }
        return outcome == (approve ? .approved : .denied)
    }

    // MARK: - Signing keys

    /// The key set the server serves at ``Paths/jwks``: the public half of each key it has signed with since the
    /// last rotation (and before, with `keepingPrevious`). Empty when ID tokens are not signed with a key.
    public var signingKeySet: JSONWebKeySet {
        state.withLock { state in
            _ = state.currentSigningKey()
            return JSONWebKeySet(keys: state.signingKeys.map(\.publicKey))
        }
    }

    /// Signs ID tokens with a new key from now on, as a provider rotating its keys does.
    ///
    /// ```swift
    /// let kid = try server.rotateSigningKey()   // the old key leaves the key set: its tokens no longer verify
    /// ```
    /// - Parameter keepingPrevious: Whether the key set keeps publishing the keys used before (a rotation with
    ///   overlap); default false.
    /// - Returns: The new key's `kid`.
    /// - Throws: `CryptoError` `unsupported` when ID tokens are not ``IDTokenSigning/signed(_:)``,
    ///   `operationFailed` when libcrypto cannot make a key.
    @discardableResult
    public func rotateSigningKey(keepingPrevious: Bool = false) throws -> String {
        guard case .signed(let algorithm) = configuration.idTokenSigning else {
            throw CryptoError(.unsupported, "the mock server does not sign its ID tokens with a key")
        }
        guard let key = MockSigningKey.generate(algorithm) else {
            throw CryptoError(.operationFailed, "the mock server could not make a \(algorithm) key")
        }
        state.withLock { state in
            if !keepingPrevious { state.signingKeys.removeAll() }
            state.signingKeys.append(key)
        }
        return key.keyID
    }

    /// An ID token the server did not issue, signed with its current key: for testing what a client refuses (another
    /// issuer or audience, an expired token) with a signature that verifies.
    ///
    /// ```swift
    /// let stale = try server.signIDToken(["iss": .string(server.issuer), "aud": .string("cli"), "exp": .number(1)])
    /// ```
    /// - Parameters:
    ///   - claims: The payload, exactly.
    ///   - header: Header members; `alg` is the key's, `kid` the key's unless given, `typ` is `JWT` unless given.
    /// - Returns: The compact JWS.
    /// - Throws: `CryptoError` as ``rotateSigningKey(keepingPrevious:)``.
    public func signIDToken(_ claims: JSONObject, header: JSONObject = [:]) throws -> String {
        guard let key = state.withLock({ $0.currentSigningKey() }) else {
            throw CryptoError(.unsupported, "the mock server does not sign its ID tokens with a key")
        }
        var header = header
        header["typ"] = header["typ"] ?? .string("JWT")
        return try key.sign(claims, header: header)
    }

    // MARK: - What happened

    /// Every recorded request, in arrival order.
    public var requests: [RecordedRequest] {
        state.withLock { $0.records }
    }

    /// The recorded requests to one endpoint, in arrival order.
    public func requests(to endpoint: Endpoint) -> [RecordedRequest] {
        state.withLock { $0.records.filter { $0.endpoint == endpoint } }
    }

    /// The recorded polls with one device code, in arrival order.
    public func polls(deviceCode: String) -> [RecordedRequest] {
        state.withLock { $0.records.filter { $0.pollNumber != nil && $0.deviceCode == deviceCode } }
    }

    /// When each poll with one device code arrived, on the server's clock.
    ///
    /// ```swift
    /// #expect(server.pollTimes(deviceCode: code) == [.seconds(5), .seconds(10), .seconds(20)])
    /// ```
    public func pollTimes(deviceCode: String) -> [Duration] {
        polls(deviceCode: deviceCode).map(\.time)
    }

    /// How many refresh requests arrived (recorded or not).
    public var refreshRequestCount: Int {
        state.withLock { $0.refreshRequestCount }
    }

    /// How many device authorization requests arrived (recorded or not).
    public var deviceAuthorizationRequestCount: Int {
        state.withLock { $0.deviceAuthorizationRequestCount }
    }

    /// How many requests were not recorded because ``Configuration/maximumRecords`` was reached.
    public var droppedRecordCount: Int {
        state.withLock { $0.droppedRecordCount }
    }

    /// Every RFC 8628 rule a client broke, in order.
    public var violations: [Violation] {
        state.withLock { $0.violations }
    }

    /// How many RFC 8628 rules clients broke: polls sooner than the interval in force, polls after expiry, polls
    /// overlapping another poll with the same device code. A well-behaved client keeps it at 0.
    public var rfcViolations: Int {
        state.withLock { $0.violations.count }
    }

    /// Every revocation request, in order.
    public var revocations: [Revocation] {
        state.withLock { $0.revocations }
    }

    /// Every device code issued, in order, as it stands now.
    public var authorizations: [Authorization] {
        state.withLock { state in
            let time = elapsed()
            return state.issueOrder.compactMap { state.authorization($0, at: time) }
        }
    }

    /// The device code issued last, as it stands now.
    public var lastAuthorization: Authorization? {
        state.withLock { state in state.issueOrder.last.flatMap { state.authorization($0, at: elapsed()) } }
    }

    /// One device code as it stands now.
    public func authorization(deviceCode: String) -> Authorization? {
        state.withLock { $0.authorization(deviceCode, at: elapsed()) }
    }

    /// The device code with this user code (case, dashes and spaces ignored), as it stands now.
    public func authorization(userCode: String) -> Authorization? {
        state.withLock { state in
            state.userCodes[MockServerState.normalise(userCode)].flatMap { state.authorization($0, at: elapsed()) }
        }
    }

    /// Whether an access token is valid now: issued, not expired, not revoked.
    public func isValid(accessToken: String) -> Bool {
        state.withLock { state in state.accessTokens[accessToken].map { elapsed() < $0.expiresAt } ?? false }
    }

    /// Whether a refresh token is valid now: issued, not rotated away, not revoked.
    public func isValid(refreshToken: String) -> Bool {
        state.withLock { $0.refreshTokens[refreshToken] != nil }
    }
}
