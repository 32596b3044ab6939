#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The RFC 8628 device flow: request a device authorization, show the code, poll until a token or a final error.
///
/// ```swift
/// let flow = DeviceFlow(endpoints: endpoints, client: ClientConfiguration(clientID: "my-app"),
///                       transport: DefaultTransport.make())
/// let authorization = try await flow.requestAuthorization()
/// print("Open \(authorization.verificationURI) and enter \(authorization.userCode)")
/// let token = try await flow.pollForToken(authorization)
/// ```
///
/// Polling runs in the caller's task: one request at a time, never two in flight; cancelling the task stops the
/// flow at once and throws `CancellationError`. Time comes from the injected clock and `now` closure, so every
/// schedule can be tested in virtual time.
public struct DeviceFlow: Sendable {
    /// The endpoints used.
    public let endpoints: ServerEndpoints
    /// The client configuration used.
    public let client: ClientConfiguration
    /// Backoff caps.
    public let policy: PollingPolicy
    private let transport: any HTTPTransport
    private let clock: FlowClock
    private let now: @Sendable () -> Date

    /// Creates a flow.
    /// - Parameters:
    ///   - endpoints: The device authorization and token endpoints (from ``Discovery`` or by hand).
    ///   - client: The client configuration.
    ///   - transport: How requests are sent.
    ///   - clock: The clock for waits and the local deadline; ``SystemTime/clock`` by default.
    ///   - now: The wall clock for timestamps; ``SystemTime/now()`` by default.
    ///   - policy: Backoff caps.
    public init(
        endpoints: ServerEndpoints,
        client: ClientConfiguration,
        transport: any HTTPTransport,
        clock: any Clock<Duration> = SystemTime.clock,
        now: @escaping @Sendable () -> Date = SystemTime.now,
        policy: PollingPolicy = PollingPolicy()
    ) {
        self.endpoints = endpoints
        self.client = client
        self.transport = transport
        self.clock = FlowClock(clock)
        self.now = now
        self.policy = policy
    }

    /// The scopes this flow asks for (the configured ones, or the OpenID default for an OpenID provider).
    public var scopes: [String] { client.effectiveScopes(for: endpoints) }

    /// Sends the device authorization request (RFC 8628 §3.1).
    /// - Returns: The authorization to show the user and then poll with.
    /// - Throws: ``DeviceLoginError`` (``DeviceLoginError/Code/oauth``, ``DeviceLoginError/Code/transport``,
    ///   ``DeviceLoginError/Code/invalidResponse``, ``DeviceLoginError/Code/insecureEndpoint``);
    ///   `CancellationError`.
    public func requestAuthorization() async throws -> DeviceAuthorization {
        let request = try authorizationRequest()
        let response = try await send(request, while: "the device authorization request")
        return try authorization(from: response)
    }

    /// The device authorization request (RFC 8628 §3.1), once the endpoints are known to be allowed.
    ///
    /// Out of line for the frame size (as ``authorization(from:)`` and ``send(_:while:)``'s error): a flow's task
    /// keeps the allocator slabs its deepest moment needed, and that moment is this request.
    @inline(never)
    private func authorizationRequest() throws -> HTTPRequest {
        try endpoints.check(allowInsecureHTTP: client.allowInsecureHTTP)
        let message = DeviceAuthorizationRequest(
            scopes: scopes, resources: client.resources, additionalParameters: client.additionalParameters
        )
        return client.formRequest(
            to: try endpoints.requireDeviceAuthorization(), parameters: message.formParameters)
    }

    /// An authorization saved by another process (``PollingProgress``, ``PendingAuthorization``), ready to be polled
    /// by this flow: its times are placed on this flow's clock by the wall-clock time that has passed since it
    /// arrived, and ``pollForToken(_:onEvent:)`` starts where `progress` stood — the interval in force, the failures
    /// in a row, and no poll before ``PollingProgress/notBefore`` or sooner than one interval after the last poll
    /// (``PollScheduler/resume(_:lastContact:notBefore:now:)``). The deadline stays the device code's expiry.
    ///
    /// ```swift
    /// let pending = try await store.loadPending(profile: "work")!  // saved by an earlier process
    /// let authorization = flow.resuming(pending.authorization, progress: pending.progress)
    /// let token = try await flow.pollForToken(authorization)
    /// ```
    /// - Parameters:
    ///   - authorization: The authorization as it was received (``DeviceAuthorization/receivedAt`` is what counts).
    ///   - progress: Where its polling stood.
    /// - Returns: The authorization to give ``pollForToken(_:onEvent:)``.
    public func resuming(_ authorization: DeviceAuthorization, progress: PollingProgress) -> DeviceAuthorization {
        var resumed = authorization
        resumed.receivedAtElapsed = clock.elapsed() - Self.duration(from: authorization.receivedAt, to: now())
        resumed.progress = progress
        return resumed
    }

    /// The time from `start` to `end` as a duration, bounded to ±100 years (a NaN date counts as no time).
    static func duration(from start: Date, to end: Date) -> Duration {
        let seconds = end.timeIntervalSince(start)
        guard seconds.isFinite else { return .zero }
        return .seconds(min(max(seconds, -3.2e9), 3.2e9))
    }

    /// What a refused scope request asked for and what the server lists, for the error: both bounded, the
    /// server's words sanitised. `asked for openid profile; the server lists openid email` (or `lists no scopes`).
    static func scopeRefusalFacts(asked: [String], supported: [String]?) -> String {
        func list(_ scopes: [String]) -> String {
            Sanitizer.sanitize(scopes.joined(separator: " "), maxLength: maximumScopeListLength)
        }
        let askedText = asked.isEmpty ? "no scope" : list(asked)
        guard let supported else { return "asked for \(askedText); the server's metadata lists no scopes" }
        return "asked for \(askedText); the server lists \(supported.isEmpty ? "none" : list(supported))"
    }

    /// The longest list of scopes an error quotes, in Unicode scalars.
    static let maximumScopeListLength = 300

    /// Reads the device authorization response.
    @inline(never)
    private func authorization(from response: HTTPResponse) throws -> DeviceAuthorization {
        switch ServerReply(response) {
        case .success(let object):
            let parsed = try DeviceAuthorizationResponse(jsonObject: object)
            let authorization = DeviceAuthorization(
                response: parsed, receivedAt: now(), receivedAtElapsed: clock.elapsed(),
                issuer: endpoints.recordedServer
            )
            // A host longer than DNS allows is an attack or a broken server: no prompt, no polling.
            if let refusal = authorization.hostCheck.refusal {
                throw DeviceLoginError(
                    .invalidResponse, "the server sent a sign-in address that cannot be real: \(refusal)"
                )
            }
            return authorization
        case .oauthError(let error):
            var failure = DeviceLoginError.server(error, while: "the device authorization request")
            if error.code == .invalidClient {
                failure.hint = "check the client ID (and secret), and that the client may use the device flow"
            } else if error.code == .invalidScope {
                failure.message += "; " + Self.scopeRefusalFacts(asked: scopes, supported: endpoints.scopesSupported)
                failure.hint = "ask for scopes the server knows"
                failure.reason = .scopeRefused
            }
            throw failure.advisingOnKnownRefusal()
        case .httpError(let status, _, _):
            throw DeviceLoginError(
                .transport, "the device authorization endpoint answered HTTP \(status)",
                hint: status == 404 ? "check the device authorization endpoint URL" : "try again later"
            )
        case .malformed(let status, let reason, _):
            throw DeviceLoginError(
                .invalidResponse, "the device authorization endpoint answered HTTP \(status) but \(reason)"
            )
        }
    }

    // Frame sizes. A flow keeps the async frames of run → poll for as long as it polls, and the runtime hands them
    // out in slabs of 1,016 bytes that the task keeps until it ends, so a few bytes more in the deepest chain (the
    // polling loop and the sleep below it) can cost a whole slab per flow. Each out-of-line helper below
    // (`@inline(never)`) was measured with device-login-bench — 10,000 flows, release build — and is kept for the
    // figure named beside it; the loop itself is written plainly. The benchmark's heap-per-flow goal (CI's budget)
    // catches a change that bloats the frames.
    //
    // pollForToken: without @inline(never), run() takes it in: +10 MB, +1.0 kB per flow.
    /// Polls the token endpoint until the user approves, denies, or the code expires (RFC 8628 §3.4–3.5).
    ///
    /// Waits the interval before each poll; `slow_down` adds 5 s for this and every later poll; network failures,
    /// HTTP 5xx and 429 back off exponentially (capped, honouring `Retry-After`, never sooner than the interval)
    /// until the local deadline at `expires_in`. With a DPoP key (``ClientConfiguration/dpop``) every poll carries a
    /// new proof, a poll refused with `use_dpop_nonce` is sent again at once with the server's nonce (RFC 9449 §8),
    /// and a token that is not of type `DPoP` is refused (§5).
    /// - Parameters:
    ///   - authorization: The authorization from ``requestAuthorization()`` on this flow.
    ///   - onEvent: Called with each event, in order, on the polling task.
    /// - Returns: The token response.
    /// - Throws: ``DeviceLoginError`` with ``DeviceLoginError/Code/accessDenied``, ``DeviceLoginError/Code/expired``,
    ///   ``DeviceLoginError/Code/oauth``, ``DeviceLoginError/Code/invalidResponse`` or
    ///   ``DeviceLoginError/Code/transport``; `CancellationError` when the task is cancelled.
    @inline(never)
    public func pollForToken(
        _ authorization: DeviceAuthorization,
        onEvent: @Sendable (DeviceFlowEvent) -> Void = { _ in }
    ) async throws -> TokenResponse {
        try await poll(start(authorization), onEvent: onEvent)
    }

    /// Reports ``DeviceFlowEvent/failed(_:)`` for a ``DeviceLoginError`` and returns `error` to be rethrown
    /// (``DeviceFlowEvent/succeeded`` is reported by ``finish(_:onEvent:)``).
    ///
    /// Out of line for the frame size: the event and the cast stay on the thread's stack.
    @inline(never)
    private static func reportFailure(_ error: any Error, onEvent: @Sendable (DeviceFlowEvent) -> Void) -> any Error {
        if let error = error as? DeviceLoginError { onEvent(.failed(error)) }
        return error
    }

    /// Runs the whole flow: requests the authorization, reports it as
    /// ``DeviceFlowEvent/authorizationReceived(_:)``, then polls.
    /// - Parameter onEvent: Called with each event, in order.
    /// - Returns: The token response.
    /// - Throws: As ``requestAuthorization()`` and ``pollForToken(_:onEvent:)``.
    public func run(onEvent: @Sendable (DeviceFlowEvent) -> Void = { _ in }) async throws -> TokenResponse {
        try await poll(authorize(onEvent: onEvent), onEvent: onEvent)
    }

    /// Requests the authorization, reports it and returns where polling starts.
    ///
    /// The authorization itself lives only in ``started(by:onEvent:)``, out of line: in an async frame it would take
    /// a slot of some 200 bytes under the request's `await`, and a third allocator slab per flow (device-login-bench:
    /// 1 kB per flow), and its strings would stay alive while the flow waits, which needs only the poll's request.
    @inline(never)
    private func authorize(onEvent: @Sendable (DeviceFlowEvent) -> Void) async throws -> Polling {
        let response = try await send(try authorizationRequest(), while: "the device authorization request")
        return try started(by: response, onEvent: onEvent)
    }

    /// The authorization read from `response` (``authorization(from:)``), reported as
    /// ``DeviceFlowEvent/authorizationReceived(_:)``, and where polling it starts.
    @inline(never)
    private func started(by response: HTTPResponse, onEvent: @Sendable (DeviceFlowEvent) -> Void) throws -> Polling {
        let authorization = try authorization(from: response)
        onEvent(.authorizationReceived(authorization))
        return start(authorization)
    }

    /// The polling loop, a thin shell around ``PollScheduler``: sleep, send, decide; a ``DeviceLoginError`` that ends
    /// it is reported as ``DeviceFlowEvent/failed(_:)`` before it is thrown.
    ///
    /// Everything between the awaits is out of line (``finish(_:onEvent:)``, ``announcePoll(_:onEvent:)``,
    /// ``sendPoll(_:)``, ``decide(after:state:onEvent:)``): the frame keeps only the polling box (the device code,
    /// the state and the decision), for as long as the flow waits. The failure is reported here rather than in a
    /// wrapper: one frame fewer under every sleep.
    @inline(never)
    private func poll(
        _ polling: Polling, onEvent: @Sendable (DeviceFlowEvent) -> Void
    ) async throws -> TokenResponse {
        do {
            while true {
                let delay: Duration
                switch polling.decision {
                case .poll(let after):
                    delay = after
                case .expire(let after):
                    try await clock.sleep(for: after)
                    throw Self.expired()
                case .finish, .fail:
                    return try Self.finish(polling.decision, onEvent: onEvent)
                }
                try await clock.sleep(for: delay)
                try Task.checkCancellation()
                announcePoll(&polling.state, onEvent: onEvent)
                let reply = try await sendPoll(polling)
                try Task.checkCancellation()
                polling.decision = decide(after: reply, state: &polling.state, onEvent: onEvent)
            }
        } catch {
            throw Self.reportFailure(error, onEvent: onEvent)
        }
    }

    /// The token of a finished flow (``DeviceFlowEvent/succeeded`` reported), or its error thrown.
    @inline(never)
    private static func finish(
        _ decision: PollScheduler.Decision, onEvent: @Sendable (DeviceFlowEvent) -> Void
    ) throws -> TokenResponse {
        switch decision {
        case .finish(let token):
            onEvent(.succeeded)
            return token
        case .fail(let error):
            throw error
        case .poll, .expire:
            // Unreachable: poll(_:onEvent:) gives only .finish and .fail.
            preconditionFailure("finish(_:onEvent:) was given a decision that does not end the flow")
        }
    }

    /// Counts the poll about to be sent and reports it (``DeviceFlowEvent/polling(attempt:elapsed:)``).
    @inline(never)
    private func announcePoll(_ state: inout PollScheduler.State, onEvent: @Sendable (DeviceFlowEvent) -> Void) {
        state.attempts += 1
        onEvent(.polling(attempt: state.attempts, elapsed: clock.elapsed()))
    }

    /// Sends one poll with the device code of `polling` (``pollRequest(_:)``).
    /// - Returns: The response, or the transport's failure (the scheduler decides on it).
    /// - Throws: The proof's ``DeviceLoginError``; `CancellationError`.
    @inline(never)
    private func sendPoll(_ polling: Polling) async throws -> Result<HTTPResponse, TransportError> {
        do {
            return .success(try await transport.send(try pollRequest(polling.deviceCode)))
        } catch let error as TransportError {
            return .failure(error)
        }
    }

    /// The token request of one poll (RFC 8628 §3.4), with a new DPoP proof (a fresh `jti` and `iat`) when the client
    /// has a DPoP key.
    ///
    /// Made for each poll, not kept between polls: a waiting flow holds only its device code (device-login-bench: the
    /// request's form body took some 240 bytes per waiting flow, the code 90). Its secrets were remembered when
    /// polling started (``start(_:)``). Out of line for the frame size: the parameters and a signed copy stay on the
    /// thread's stack (+0.25 kB per flow when a signed copy was held across the poll's `await`). The `throws` is
    /// untyped so that the frame needs no slot of a `DeviceLoginError`'s size for it.
    @inline(never)
    private func pollRequest(_ deviceCode: String) throws -> HTTPRequest {
        let message = DeviceAccessTokenRequest(deviceCode: deviceCode, resources: client.resources)
        let request = client.formRequest(
            to: endpoints.token, parameters: message.formParameters, rememberingSecrets: false)
        guard let dpop = client.dpop else { return request }
        return try dpop.signed(request)
    }

    /// The error of a code that expired while the flow waited; out of line, as ``wrapped(_:while:)``.
    @inline(never)
    private static func expired() -> any Error {
        DeviceLoginError.codeExpired(oauthError: nil)
    }

    /// Where polling stands: the device code every poll sends (RFC 8628 §3.4), the state and the next step.
    ///
    /// A box that only the polling task holds, for the frame sizes: as a value (120 bytes) it took a slot in `run`'s
    /// frame, in the authorization's and in the loop's, and the chain of frames under a waiting flow's sleep needed
    /// a third allocator slab (device-login-bench: 1 kB per flow); boxed, each frame keeps one reference.
    final class Polling {
        let deviceCode: String
        var state: PollScheduler.State
        var decision: PollScheduler.Decision

        init(deviceCode: String, state: PollScheduler.State, decision: PollScheduler.Decision) {
            self.deviceCode = deviceCode
            self.state = state
            self.decision = decision
        }
    }

    /// The device code every poll sends (RFC 8628 §3.4), its secrets remembered (``KnownSecrets``), the first state
    /// and the first step: wait one interval.
    ///
    /// Out of line for the frame size: inline in ``poll(_:onEvent:)``, it costs +8.5 MB, +0.8 kB per flow in
    /// device-login-bench.
    @inline(never)
    private func start(_ authorization: DeviceAuthorization) -> Polling {
        let deviceCode = authorization.response.deviceCode
        client.rememberSecrets(
            ofFormWith: DeviceAccessTokenRequest(deviceCode: deviceCode, resources: client.resources).formParameters)
        guard let progress = authorization.progress else {
            let state = PollScheduler.State(
                interval: authorization.initialInterval, deadline: authorization.deadlineElapsed
            )
            return Polling(
                deviceCode: deviceCode, state: state, decision: PollScheduler.start(state, now: clock.elapsed()))
        }
        // Resumed: the saved interval (slow_down kept), failures and attempts; times placed by `receivedAt`.
        let received = authorization.receivedAtElapsed
        let state = PollScheduler.State(
            interval: max(progress.interval, .seconds(1)), deadline: authorization.deadlineElapsed,
            consecutiveFailures: progress.consecutiveFailures, attempts: progress.attempts
        )
        let lastContact =
            received
            + Self.duration(from: authorization.receivedAt, to: progress.lastPollAt ?? authorization.receivedAt)
        let notBefore = received + Self.duration(from: authorization.receivedAt, to: progress.notBefore)
        return Polling(
            deviceCode: deviceCode, state: state,
            decision: PollScheduler.resume(state, lastContact: lastContact, notBefore: notBefore, now: clock.elapsed())
        )
    }

    /// Classifies a poll's reply, decides what follows and reports it.
    ///
    /// Out of line for the frame size (the parsing's temporaries stay on the thread's stack): inline in
    /// ``poll(_:onEvent:)``, it costs +15 MB, +1.5 kB per flow in device-login-bench.
    @inline(never)
    private func decide(
        after reply: Result<HTTPResponse, TransportError>, state: inout PollScheduler.State,
        onEvent: @Sendable (DeviceFlowEvent) -> Void
    ) -> PollScheduler.Decision {
        var outcome: PollOutcome
        switch reply {
        case .success(let response):
            client.dpop?.takeNonce(from: response, for: endpoints.token)
            outcome = PollOutcome(response)
        case .failure(let error): outcome = PollOutcome(error)
        }
        if case .token(let token) = outcome, let refusal = token.tokenTypeRefusal(provenWithDPoP: client.dpop != nil) {
            outcome = .fatal(refusal)
        }
        let previousInterval = state.interval
        let decision = PollScheduler.decide(&state, outcome: outcome, now: clock.elapsed(), policy: policy)
        report(outcome, attempt: state.attempts, state: state, decision: decision, onEvent: onEvent)
        if state.interval != previousInterval {
            onEvent(.intervalChanged(from: previousInterval, to: state.interval))
        }
        return decision
    }

    private func report(
        _ outcome: PollOutcome, attempt: Int, state: PollScheduler.State, decision: PollScheduler.Decision,
        onEvent: @Sendable (DeviceFlowEvent) -> Void
    ) {
        switch outcome {
        case .pending:
            onEvent(.pending(attempt: attempt))
        case .slowDown:
            onEvent(.slowDown(attempt: attempt, newInterval: state.interval))
        case .transient(let reason, _):
            if case .poll(let delay) = decision { onEvent(.retrying(attempt: attempt, delay: delay, reason: reason)) }
        default:
            break
        }
    }

    /// Sends a one-off request: with a DPoP proof, and once more with the server's nonce if it asks for one
    /// (draft-parecki-oauth-dpop-device-flow: the device authorization request is proven with the key too).
    private func send(_ request: HTTPRequest, while action: String) async throws -> HTTPResponse {
        do {
            if let dpop = client.dpop { return try await dpop.send(request, through: transport) }
            return try await transport.send(request)
        } catch let error as TransportError {
            throw Self.wrapped(error, while: action)
        }
    }

    /// A transport's failure as the ``DeviceLoginError`` to throw; out of line, so that the error (248 bytes) takes no
    /// slot in the async frame of ``send(_:while:)``.
    @inline(never)
    private static func wrapped(_ error: TransportError, while action: String) -> any Error {
        DeviceLoginError.wrapping(error, while: action)
    }
}
