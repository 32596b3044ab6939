import DeviceLogin
import DeviceLoginTerminal

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `login --detach` and `login --resume`: a sign-in that survives the process, for agents and plugins whose process
/// lives for one turn while a person approves on a phone.
///
/// `--detach` requests the code, saves the pending sign-in with the profile (``PendingAuthorization``), shows the
/// code once and exits. `--resume` continues polling it with the RFC 8628 rules intact across processes (the
/// interval in force, `slow_down`, backoff, the deadline; never a poll sooner than one interval after the last),
/// saving where polling stands after every poll, and finishes exactly as `login` would have
/// (``LoginCommand/finish(_:settings:transport:context:)``). One process polls a pending sign-in at a time
/// (``FileTokenStore/withPendingPolling(profile:_:)``): another `--resume` exits 75 at once.
///
/// With `--events`, `--detach` writes the `authorization` event as its one line on stdout and `--resume --events`
/// the rest (polling, pending, …, then succeeded or failed), so a program drives a sign-in across processes as it
/// drives `login --events`; `--quiet` leaves out the lines for people, and `--detach --notify-command` runs the hook.
enum DetachedSignIn {
    /// The two options, for `login`'s table.
    static let options: [OptionSpec] = [
        .flag(
            "detach",
            "Show the code, save the pending sign-in with the profile and exit 0 at once; finish it with --resume."),
        .flag(
            "resume",
            "Continue the profile's pending sign-in (from --detach): poll until it is approved, denied or expired,"
                + " then save and print as login does. Takes only --profile, --json or --events, --quiet, --timeout,"
                + " --ca-file and the client secret."),
    ]

    /// The options `--resume` takes; every other setting comes from the pending sign-in.
    static let resumeOptions: Set<String> = [
        "resume", "profile", "json", "events", "quiet", "timeout", "ca-file", "client-secret", "client-secret-file",
        "verbose",
    ]

    /// Refuses what cannot go with `--detach`.
    /// - Throws: ``UsageError`` naming the option.
    static func checkDetach(_ options: ParsedOptions, command: String) throws {
        guard options.flag("detach") else { return }
        let refusals: [(String, String)] = [
            ("no-store", "--detach saves the pending sign-in with the profile; it cannot go with --no-store"),
            ("timeout", "--detach does not wait; give --timeout to --resume"),
            ("json", "--detach prints no result; give --json to --resume"),
        ]
        for (name, message) in refusals where options.has(name) && !options.isFromEnvironment(name) {
            throw UsageError(message, command: command)
        }
    }

    /// The command that finishes the pending sign-in of profile `name`.
    static func resumeCommand(profile name: String) -> String {
        "device-login login --resume"
            + (name == Profile.defaultName ? "" : " --profile " + CLIHints.shellQuoted(name))
    }

    // MARK: - Detaching

    /// Requests the code, saves the pending sign-in, shows the code once on stderr and returns 0. `settings` are
    /// ready as `login` makes them (the DPoP key made, the store checked).
    static func detach(
        _ settings: LoginSettings, transport: any HTTPTransport, context: CLIContext
    ) async throws -> ExitCode {
        let store = try context.tokenStore()
        let endpoints = try await settings.resolveEndpoints(transport: transport)
        let flow = DeviceFlow(
            endpoints: endpoints, client: settings.client, transport: transport, clock: context.clock,
            now: context.now
        )
        // The bindings and user name as given: `--resume` merges them with the saved profile as login does.
        let profile = try Profile(
            name: settings.profile, issuer: settings.issuer, endpoints: endpoints, client: settings.client,
            storingSecret: settings.storeSecret, bindings: settings.bindings, username: settings.username,
            provider: settings.provider?.preset
        )
        return try await busyAsExitCode(context: context) {
            try await store.withPendingPolling(profile: settings.profile) {
                let authorization = try await flow.requestAuthorization()
                var pending = try PendingAuthorization(
                    profile: profile, authorization: authorization,
                    additionalHeaders: settings.client.additionalHeaders, dpopKey: settings.client.dpop?.key,
                    caFile: settings.caFile
                )
                // `--resume` saves where `login --detach --store` said.
                pending.storeRequest = settings.tokenStore?.word
                // Saved before the code is shown: nobody is asked to approve a sign-in that could not be kept.
                try await store.savePending(pending)
                let presentation = settings.presentation
                // With --events, the authorization event is the one line on stdout: a program shows the code, then
                // runs `login --resume --events` for the rest.
                if presentation.events { try EventLines(context: context).write(.authorizationReceived(authorization)) }
                if !presentation.quiet {
                    // Once, without a live status line: nothing polls in this process.
                    let prompt = PromptRenderer(capabilities: context.terminal, qrMode: settings.qr)
                    context.stderr.write(prompt.render(authorization, secondsLeft: authorization.response.expiresIn))
                    context.stderr.line(
                        "The sign-in is pending (\(try store.pendingPath(profile: settings.profile))); "
                            + "finish it with: \(resumeCommand(profile: settings.profile))")
                }
                if let command = presentation.notifyCommand {
                    await SignIn(settings: settings, context: context).notify(
                        NotifyHook(command: command), of: authorization)
                }
                return .success
            }
        }
    }

    // MARK: - Resuming

    /// `login --resume`: polls the pending sign-in of `--profile` and finishes it.
    static func resume(_ options: ParsedOptions, context: CLIContext) async throws -> ExitCode {
        for (name, given) in options.values.sorted(by: { $0.key < $1.key })
        where !given.isEmpty && !resumeOptions.contains(name) && !options.isFromEnvironment(name) {
            throw UsageError(
                "--resume finishes the pending sign-in with the settings it was started with; --\(name) cannot be"
                    + " given with it", command: "login")
        }
        let presentation = try LoginPresentation(options, command: "login")
        guard presentation.events else { return try await resumeReporting(options, context: context) }
        do {
            return try await resumeReporting(options, context: context)
        } catch {
            // As `login --events` does: the error still reaches stderr and the exit code.
            if let line = EventLines(context: context).failedLine(for: error) { try? context.stdout.line(line) }
            throw error
        }
    }

    /// `login --resume` without the `failed` event line: reports another poller and an expiry itself.
    private static func resumeReporting(_ options: ParsedOptions, context: CLIContext) async throws -> ExitCode {
        let name = options.value("profile") ?? Profile.defaultName
        try Profile.validate(name: name)
        let timeout = try DurationOption.read(options, "timeout", range: 1...86_400, command: "login")
        let secret = try await ClientSecretOption.read(options, command: "login")
        let store = try context.tokenStore()
        do {
            return try await busyAsExitCode(context: context) {
                try await store.withPendingPolling(profile: name) {
                    try await resume(
                        profile: name, store: store, options: options, timeout: timeout, secret: secret?.value,
                        context: context)
                }
            }
        } catch let error as DeviceLoginError where error.code == .expired {
            // Not CLIHints' "run the command again to get a new code": --resume gets no new code. Each of its
            // expiries carries its own hint (start again, or: still pending).
            context.report(error.message, hint: error.hint)
            return .expired
        }
    }

    /// Reports another process that polls the same pending sign-in and returns ``ExitCode/busy``.
    static func busyAsExitCode(
        context: CLIContext, _ body: () async throws -> ExitCode
    ) async throws -> ExitCode {
        do {
            return try await body()
        } catch let error as DeviceLoginError where error.reason?.kind == .pendingSignInBusy {
            let pid = error.reason?.processID.map { " (pid \($0))" } ?? ""
            context.stderr.line("device-login: another device-login is already waiting for this sign-in\(pid)")
            context.stderr.line("hint: wait for it to finish (`device-login status` shows the pending sign-in)")
            return .busy
        }
    }

    /// The resume itself, holding the pending sign-in's polling lock.
    private static func resume(
        profile name: String, store: FileTokenStore, options: ParsedOptions, timeout: Duration?, secret: String?,
        context: CLIContext
    ) async throws -> ExitCode {
        guard let pending = try await store.loadPending(profile: name) else {
            throw DeviceLoginError(
                .noSession, "there is no pending sign-in for profile '\(name)'",
                hint: "start one with `device-login login --detach`, or sign in with `device-login login`")
        }
        if pending.isExpired(at: context.now()) {
            try await store.removePending(profile: name)
            throw DeviceLoginError(
                .expired,
                "the pending sign-in of profile '\(name)' expired at \(TokenOutput.timestamp(pending.expiresAt))"
                    + " before it was approved; it was removed",
                hint: "start a new one with `device-login login`")
        }
        let settings = try settings(for: pending, options: options, timeout: timeout, secret: secret, context: context)
        try await store.checkReady(profile: name)
        let transport = context.makeTransport(TransportOptions(caFile: settings.caFile))
        let flow = DeviceFlow(
            endpoints: pending.profile.endpoints, client: settings.client, transport: transport,
            clock: context.clock, now: context.now
        )
        let authorization = pending.authorization
        let left = TokenOutput.duration(seconds: pending.secondsLeft(at: context.now()))
        if !settings.presentation.quiet {
            // The prompt's verdict and warnings, as it showed them when the code was requested: the file is not
            // trusted, and a reader (a person, or a program) may see the code for the first time here.
            let check = authorization.hostCheck
            let renderer = PromptRenderer(capabilities: context.terminal, machineName: nil)
            for warning in check.warnings { context.stderr.line(renderer.warningLine(warning)) }
            let page = check.shownVerificationURI?.string ?? "an address that is refused"
            context.stderr.line(
                "Waiting for the sign-in with code \(TerminalText.clean(authorization.userCode)) to be approved at "
                    + "\(page) (\(left) left).")
        }
        let lines = settings.presentation.events ? EventLines(context: context) : nil
        let poll: @Sendable () async throws -> TokenResponse = {
            try await Self.poll(pending, flow: flow, store: store, lines: lines, context: context)
        }
        let response: TokenResponse
        if let timeout {
            guard let answer = try await SignIn.within(timeout, clock: context.clock, poll) else {
                var error = SignIn.gaveUp(after: timeout)
                error.hint = "the sign-in is still pending: `\(resumeCommand(profile: name))` waits again"
                throw error
            }
            response = answer
        } else {
            response = try await poll()
        }
        let result = SignIn.Result(endpoints: pending.profile.endpoints, response: response, receivedAt: context.now())
        return try await LoginCommand.finish(result, settings: settings, transport: transport, context: context)
    }

    /// The settings `login` had when it detached, rebuilt from the pending sign-in, with `--resume`'s own options.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/configuration`` when the client needs a
    ///   secret that is neither stored nor given, or the DPoP key cannot be used.
    static func settings(
        for pending: PendingAuthorization, options: ParsedOptions, timeout: Duration?, secret: String?,
        context: CLIContext
    ) throws -> LoginSettings {
        let profile = pending.profile
        var client = try profile.clientConfiguration(secret: secret)
        client.additionalHeaders = pending.additionalHeaders
        if let key = try pending.dpopKey() {
            do {
                client.dpop = try DPoPProver(key: key, now: context.now)
            } catch {
                throw DeviceLoginError(
                    .configuration, "the pending sign-in's DPoP key cannot be used: \(error.message)")
            }
        }
        var presentation = LoginPresentation()
        presentation.events = options.flag("events")
        presentation.quiet = options.flag("quiet")
        var settings = LoginSettings(
            issuer: profile.issuer, client: client, json: options.flag("json"),
            caFile: options.value("ca-file") ?? pending.caFile, storeSecret: profile.clientSecret != nil,
            profile: profile.name, bindings: profile.bindings, username: profile.username, timeout: timeout,
            dpop: client.dpop != nil, presentation: presentation, savedEndpoints: profile.endpoints,
            resumedProvider: profile.provider
        )
        settings.tokenStore = pending.storeRequest.flatMap(TokenStoreRequest.init)
        return settings
    }

    /// Polls from where the pending sign-in stands, saving the progress after every poll and answer so that a later
    /// `--resume` never polls early; removes the pending sign-in once it is spent (a token) or over (denied,
    /// expired).
    private static func poll(
        _ pending: PendingAuthorization, flow: DeviceFlow, store: FileTokenStore, lines: EventLines?,
        context: CLIContext
    ) async throws -> TokenResponse {
        let authorization = flow.resuming(pending.authorization, progress: pending.progress)
        // Who follows the polling: the --events lines, and the progress saved after every poll and answer. Each
        // event is stamped on the polling task, when it happens: the followers may run later.
        var observers = SignInObservers<(event: DeviceFlowEvent, at: Date)>()
        if let lines {
            observers.follow { events in
                // A reader that has gone stops the lines, not the polling: the last line (`login`'s result) then
                // fails with 74, and the progress is saved all the same.
                for await (event, time) in events {
                    do throws(ResultSink.WriteError) {
                        try lines.write(event, at: time)
                    } catch {
                        return
                    }
                }
            }
        }
        observers.follow { events in
            var saved = pending
            var warned = false
            for await (event, time) in events {
                saved.progress.record(event, at: time)
                switch event {
                case .polling, .pending, .slowDown, .retrying:
                    do {
                        try await store.savePending(saved)
                    } catch let error as DeviceLoginError where !warned {
                        warned = true
                        context.stderr.line("device-login: warning: the progress was not saved: " + error.message)
                    } catch {}
                default:
                    break
                }
            }
        }
        let outcome: Result<TokenResponse, any Error>
        do {
            outcome = .success(
                try await observers.run { report in
                    try await flow.pollForToken(authorization) { report(($0, context.now())) }
                })
        } catch {
            outcome = .failure(error)
        }
        switch outcome {
        case .success:
            break
        case .failure(let error as DeviceLoginError) where error.code == .accessDenied || error.code == .expired:
            break
        case .failure:
            // Cancelled, timed out, or a failure that may pass: the sign-in stays pending for another --resume.
            return try outcome.get()
        }
        do {
            try await store.removePending(profile: pending.name)
        } catch let error as DeviceLoginError {
            context.stderr.line("device-login: warning: the pending sign-in was not removed: " + error.message)
        }
        return try outcome.get()
    }
}
