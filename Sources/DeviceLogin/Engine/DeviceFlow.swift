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
    public var scopes: [String] { client.effectiveScopes(isOpenIDProvider: endpoints.isOpenIDProvider) }

    /// Sends the device authorization request (RFC 8628 §3.1).
    /// - Returns: The authorization to show the user and then poll with.
    /// - Throws: ``DeviceLoginError`` (``DeviceLoginError/Code/oauth``, ``DeviceLoginError/Code/transport``,
    ///   ``DeviceLoginError/Code/invalidResponse``, ``DeviceLoginError/Code/insecureEndpoint``);
    ///   `CancellationError`.
    public func requestAuthorization() async throws -> DeviceAuthorization {
        try endpoints.check(allowInsecureHTTP: client.allowInsecureHTTP)
        let message = DeviceAuthorizationRequest(
            scopes: scopes, resources: client.resources, additionalParameters: client.additionalParameters
        )
        let request = client.formRequest(to: endpoints.deviceAuthorization, parameters: message.formParameters)
        let response = try await send(request, while: "the device authorization request")
        switch ServerReply(response) {
        case .success(let object):
            let parsed = try DeviceAuthorizationResponse(jsonObject: object)
            return DeviceAuthorization(response: parsed, receivedAt: now(), receivedAtElapsed: clock.elapsed())
        case .oauthError(let error):
            var failure = DeviceLoginError.server(error, while: "the device authorization request")
            if error.code == .invalidClient || error.code == .unauthorizedClient {
                failure.hint = "check the client ID (and secret), and that the client may use the device flow"
            } else if error.code == .invalidScope {
                failure.hint = "ask for scopes the server knows (--scope)"
            }
            throw failure
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

    /// Polls the token endpoint until the user approves, denies, or the code expires (RFC 8628 §3.4–3.5).
    ///
    /// Waits the interval before each poll; `slow_down` adds 5 s for this and every later poll; network failures,
    /// HTTP 5xx and 429 back off exponentially (capped, honouring `Retry-After`, never sooner than the interval)
    /// until the local deadline at `expires_in`.
    /// - Parameters:
    ///   - authorization: The authorization from ``requestAuthorization()`` on this flow.
    ///   - onEvent: Called with each event, in order, on the polling task.
    /// - Returns: The token response.
    /// - Throws: ``DeviceLoginError`` with ``DeviceLoginError/Code/accessDenied``, ``DeviceLoginError/Code/expired``,
    ///   ``DeviceLoginError/Code/oauth``, ``DeviceLoginError/Code/invalidResponse`` or
    ///   ``DeviceLoginError/Code/transport``; `CancellationError` when the task is cancelled.
    public func pollForToken(
        _ authorization: DeviceAuthorization,
        onEvent: @Sendable (DeviceFlowEvent) -> Void = { _ in }
    ) async throws -> TokenResponse {
        do {
            let token = try await poll(authorization, onEvent: onEvent)
            onEvent(.succeeded)
            return token
        } catch let error as DeviceLoginError {
            onEvent(.failed(error))
            throw error
        }
    }

    /// Runs the whole flow: requests the authorization, reports it as
    /// ``DeviceFlowEvent/authorizationReceived(_:)``, then polls.
    /// - Parameter onEvent: Called with each event, in order.
    /// - Returns: The token response.
    /// - Throws: As ``requestAuthorization()`` and ``pollForToken(_:onEvent:)``.
    public func run(onEvent: @Sendable (DeviceFlowEvent) -> Void = { _ in }) async throws -> TokenResponse {
        let authorization = try await requestAuthorization()
        onEvent(.authorizationReceived(authorization))
        return try await pollForToken(authorization, onEvent: onEvent)
    }

    private func poll(
        _ authorization: DeviceAuthorization, onEvent: @Sendable (DeviceFlowEvent) -> Void
    ) async throws -> TokenResponse {
        let tokenRequest = DeviceAccessTokenRequest(
            deviceCode: authorization.response.deviceCode, resources: client.resources
        )
        let request = client.formRequest(to: endpoints.token, parameters: tokenRequest.formParameters)
        var state = PollScheduler.State(
            interval: authorization.initialInterval, deadline: authorization.deadlineElapsed
        )
        var decision = PollScheduler.start(state, now: clock.elapsed())
        while true {
            let previousInterval = state.interval
            switch decision {
            case .finish(let token):
                return token
            case .fail(let error):
                throw error
            case .expire(let delay):
                try await clock.sleepUntil(clock.elapsed() + delay)
                throw DeviceLoginError(
                    .expired, "the code expired before it was approved",
                    hint: "run the command again to get a new code"
                )
            case .poll(let delay):
                try await clock.sleepUntil(clock.elapsed() + delay)
                try Task.checkCancellation()
                state.attempts += 1
                let attempt = state.attempts
                onEvent(.polling(attempt: attempt, elapsed: clock.elapsed()))
                let outcome: PollOutcome
                do {
                    outcome = PollOutcome(try await transport.send(request))
                } catch let error as TransportError {
                    outcome = PollOutcome(error)
                }
                try Task.checkCancellation()
                decision = PollScheduler.decide(&state, outcome: outcome, now: clock.elapsed(), policy: policy)
                report(outcome, attempt: attempt, state: state, decision: decision, onEvent: onEvent)
                if state.interval != previousInterval {
                    onEvent(.intervalChanged(from: previousInterval, to: state.interval))
                }
            }
        }
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

    private func send(_ request: HTTPRequest, while action: String) async throws -> HTTPResponse {
        do {
            return try await transport.send(request)
        } catch let error as TransportError {
            throw DeviceLoginError.wrapping(error, while: action)
        }
    }
}
