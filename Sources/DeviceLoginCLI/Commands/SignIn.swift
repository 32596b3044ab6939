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
        // Who follows the flow: the prompt on stderr (unless --quiet), the event lines on stdout (--events).
        let presenter =
            presentation.quiet
            ? nil : LivePresenter(capabilities: context.terminal, qrMode: settings.qr, output: context.stderr)
        let lines = presentation.events ? EventLines(context: context) : nil
        let prompt = presenter.map { _ in AsyncStream.makeStream(of: DeviceFlowEvent.self) }
        let stream = lines.map { _ in AsyncStream.makeStream(of: (event: DeviceFlowEvent, at: Date).self) }
        let now = context.now
        let report: @Sendable (DeviceFlowEvent) -> Void = { event in
            prompt?.continuation.yield(event)
            // Stamped here, on the polling task, when it happens: the lines' task may run later.
            stream?.continuation.yield((event, now()))
        }
        let finish: @Sendable () -> Void = {
            prompt?.continuation.finish()
            stream?.continuation.finish()
        }
        // Polling's outcome comes back as a value, so that the prompt and the event lines get every event before
        // the error is thrown.
        let outcome = try await withThrowingTaskGroup(of: Swift.Result<TokenResponse, any Error>?.self) { group in
            defer { finish() }
            if let presenter, let prompt {
                group.addTask {
                    await presenter.run(events: prompt.stream)
                    return nil
                }
            }
            // A write that fails (the program reading the events is gone) ends the sign-in, with exit 74.
            if let lines, let stream {
                group.addTask {
                    try await lines.write(stream.stream)
                    return nil
                }
            }
            report(.authorizationReceived(authorization))
            if let command = presentation.notifyCommand {
                group.addTask {
                    await notify(NotifyHook(command: command), of: authorization)
                    return nil
                }
            }
            group.addTask {
                defer { finish() }
                do {
                    return .success(try await flow.pollForToken(authorization, onEvent: report))
                } catch {
                    return .failure(error)
                }
            }
            var outcome: Swift.Result<TokenResponse, any Error> = .failure(CancellationError())
            for try await result in group {
                if let result { outcome = result }
            }
            return outcome
        }
        let response = try outcome.get()
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
