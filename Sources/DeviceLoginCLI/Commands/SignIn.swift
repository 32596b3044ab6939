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
        let clock = context.clock
        return try await withThrowingTaskGroup(of: Result?.self) { group in
            group.addTask { try await runFlow(transport: transport) }
            group.addTask {
                try await clock.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let result = first else {
                let waited = TokenOutput.duration(seconds: Int(clamping: timeout.components.seconds))
                throw DeviceLoginError(.expired, "gave up: the sign-in was not approved within \(waited) (--timeout)")
            }
            return result
        }
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
