import DeviceLogin
import DeviceLoginTerminal

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The sign-in both `login` and `demo` run: discovery, the prompt on stderr, polling, and the result.
struct SignIn: Sendable {
    /// The settings of the sign-in.
    let settings: LoginSettings
    /// The command's context.
    let context: CLIContext

    /// What a successful sign-in produced.
    struct Result: Sendable {
        var endpoints: ServerEndpoints
        var response: TokenResponse
        var receivedAt: Date
    }

    /// Runs the flow with the live prompt, within ``LoginSettings/timeout`` when there is one. Cancelling the task
    /// (Ctrl-C) stops polling at once and leaves the terminal clean.
    /// - Throws: The flow's errors; ``DeviceLoginError`` with code ``DeviceLoginError/Code/expired`` (exit 66) when
    ///   the timeout passed first.
    func run(transport: any HTTPTransport) async throws -> Result {
        guard let timeout = settings.timeout else { return try await runFlow(transport: transport) }
        guard
            let result = try await Self.within(
                timeout, clock: context.clock, { try await runFlow(transport: transport) })
        else { throw Self.gaveUp(after: timeout) }
        return result
    }

    /// Runs `body`, cancelled when `timeout` has passed on `clock` first. Shared with `login --resume`.
    /// - Returns: What `body` returned, or nil when the timeout passed first.
    static func within<Value: Sendable>(
        _ timeout: Duration, clock: any Clock<Duration>, _ body: @escaping @Sendable () async throws -> Value
    ) async throws -> Value? {
        try await withThrowingTaskGroup(of: Value?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await clock.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
    }

    /// The error of a sign-in not approved within `--timeout` (exit 66).
    static func gaveUp(after timeout: Duration) -> DeviceLoginError {
        let waited = TokenOutput.duration(seconds: Int(clamping: timeout.components.seconds))
        return DeviceLoginError(.expired, "gave up: the sign-in was not approved within \(waited) (--timeout)")
    }

    private func runFlow(transport: any HTTPTransport) async throws -> Result {
        let endpoints = try await settings.resolveEndpoints(transport: transport)
        let flow = DeviceFlow(
            endpoints: endpoints, client: settings.client, transport: transport, clock: context.clock,
            now: context.now
        )
        let authorization = try await flow.requestAuthorization()
        let presenter = LivePresenter(
            capabilities: context.terminal, qrMode: settings.qr, output: context.stderr
        )
        let (events, sink) = AsyncStream.makeStream(of: DeviceFlowEvent.self)
        let response = try await withThrowingTaskGroup(of: TokenResponse?.self) { group in
            group.addTask {
                await presenter.run(events: events)
                return nil
            }
            sink.yield(.authorizationReceived(authorization))
            defer { sink.finish() }
            let response = try await flow.pollForToken(authorization) { sink.yield($0) }
            sink.finish()
            try await group.waitForAll()
            return response
        }
        return Result(endpoints: endpoints, response: response, receivedAt: context.now())
    }
}
