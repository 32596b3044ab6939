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
        if settings.kiosk { try KioskSignIn.checkTerminal(context) }
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
        if settings.kiosk {
            let response = try await KioskSignIn(settings: settings, context: context).poll(
                flow: flow, first: authorization)
            return Result(endpoints: endpoints, response: response, receivedAt: context.now())
        }
        let presentation = settings.presentation
        // Who follows the flow: the prompt on stderr (unless --quiet), the event lines on stdout (--events), the
        // --notify-command hook. Each event is stamped on the polling task, when it happens: the lines' task may
        // run later.
        var observers = SignInObservers<(event: DeviceFlowEvent, at: Date)>()
        if !presentation.quiet {
            let presenter = LivePresenter(capabilities: context.terminal, qrMode: settings.qr, output: context.stderr)
            observers.follow({ $0.event }, with: { await presenter.run(events: $0) })
        }
        if presentation.events {
            // A write that fails (the program reading the events is gone) ends the sign-in, with exit 74.
            let lines = EventLines(context: context)
            observers.follow { try await lines.write($0) }
        }
        if let command = presentation.notifyCommand {
            observers.alongside { await notify(NotifyHook(command: command), of: authorization) }
        }
        let now = context.now
        let response = try await observers.run { report in
            report((.authorizationReceived(authorization), now()))
            return try await flow.pollForToken(authorization) { report(($0, now())) }
        }
        return Result(endpoints: endpoints, response: response, receivedAt: context.now())
    }

    /// Runs the `--notify-command` hook with the `authorization` event line on its stdin; says on stderr when it
    /// failed, which does not stop the sign-in.
    func notify(_ hook: NotifyHook, of authorization: DeviceAuthorization) async {
        let encoder = FlowEventEncoder()
        guard
            let line = encoder.line(
                for: .authorizationReceived(authorization), context: FlowEventContext(at: context.now()))
        else { return }
        let outcome = await hook.run(input: line + "\n", environment: context.environment)
        if let message = NotifyHook.report(outcome, limit: hook.limit) { context.stderr.line(message) }
    }
}
