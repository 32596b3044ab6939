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
        let (endpoints, metadata) = try await settings.resolveServer(transport: transport)
        let choice = try chooseFlow(endpoints: endpoints, metadata: metadata)
        if let choice, choice.flow != .device {
            return try await codeGrant(choice, endpoints: endpoints, transport: transport)
        }
        if let choice { try announce(choice) }
        let flow = DeviceFlow(
            endpoints: endpoints, client: settings.client, transport: transport, clock: context.clock,
            now: context.now
        )
        let authorization: DeviceAuthorization
        do {
            authorization = try await flow.requestAuthorization()
        } catch let error as DeviceLoginError {
            // auto offers the next flow when the device flow is refused as blocked; --flow device fails with advice.
            guard let choice,
                let next = FlowChoice.fallback(
                    after: error, decision: choice, preference: settings.flow,
                    server: FlowChoice.Server(endpoints: endpoints), session: session)
            else { throw error }
            return try await codeGrant(next, endpoints: endpoints, transport: transport)
        }
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
            // Only what the prompt shows: `.polling`, before every poll, would wake it for nothing.
            observers.follow({ presenter.shows($0.event) ? $0.event : nil }, with: { await presenter.run(events: $0) })
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

    /// Where the command runs, for `--flow auto`.
    private var session: FlowChoice.Session { FlowChoice.Session.current(environment: context.environment) }

    /// The flow to run (nil: the device flow, with nothing to say — asked for, or the only one the server has):
    /// `--flow`'s choice from the server's endpoints, unless `--kiosk` is given (the kiosk is device-flow only).
    /// - Throws: ``DeviceLoginError`` (``DeviceLoginError/Code/configuration`` or
    ///   ``DeviceLoginError/Code/discovery``) when the flow asked for needs an endpoint the server does not have
    ///   or may not be used: the metadata's own refusal (no S256, no `query` response mode) when it was discovered.
    private func chooseFlow(
        endpoints: ServerEndpoints, metadata: AuthorizationServerMetadata?
    ) throws -> FlowChoice.Decision? {
        guard !settings.kiosk else { return nil }
        if let metadata, settings.flow == .browser || settings.flow == .paste, endpoints.authorization == nil {
            _ = try AuthorizationCodeFlow.authorizationEndpoint(of: metadata, override: settings.authorizationEndpoint)
        }
        let server = FlowChoice.Server(endpoints: endpoints)
        let decision = try FlowChoice.choose(server: server, session: session, preference: settings.flow)
        guard decision.flow != .device || (settings.flow == .auto && server.hasAuthorizationEndpoint) else {
            return nil
        }
        return decision
    }

    /// Says which flow runs and why: one line on stderr (not with `--quiet`), and the `flow` event (`--events`).
    private func announce(_ decision: FlowChoice.Decision) throws {
        if !settings.presentation.quiet { context.stderr.line("device-login: signing in with \(decision.reason)") }
        if settings.presentation.events { try EventLines(context: context).writeFlow(decision) }
    }

    /// Says which flow runs and why, then runs the code grant.
    private func codeGrant(
        _ decision: FlowChoice.Decision, endpoints: ServerEndpoints, transport: any HTTPTransport
    ) async throws -> Result {
        try announce(decision)
        let response = try await CodeGrantSignIn(settings: settings, context: context).run(
            decision.flow, endpoints: endpoints, transport: transport)
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
