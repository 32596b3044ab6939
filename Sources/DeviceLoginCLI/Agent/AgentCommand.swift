import DeviceLogin

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `device-login agent`: serves the profiles of its `DEVICE_LOGIN_HOME` from memory over a UNIX socket, so that the
/// helpers of this host — or of a host it is forwarded to with `ssh -R` — get fresh access tokens while the refresh
/// tokens stay in this process (docs/agent.md).
enum AgentCommand {
    static let spec = CommandSpec(
        name: "agent",
        summary: "Serve access tokens to the helpers over a UNIX socket (forwardable with ssh -R).",
        options: [
            .value(
                "socket", "PATH",
                "Listen here, as ssh-agent's -a (its folder must be yours and closed to others; made 0700 when"
                    + " missing). Default: a new private folder under $XDG_RUNTIME_DIR, else under /tmp. Read from the"
                    + " command line only: $\(AgentSocket.variable) is where the helpers find an agent, never where"
                    + " one listens."
            ).short("a").commandLineOnly(),
            .flag(
                "foreground",
                "Serve in this process until SIGINT or SIGTERM (systemd, tests); without it the agent goes on in the"
                    + " background, as ssh-agent does."),
            .value(
                "lifetime", "DURATION",
                "Forget every token after this long (such as 90s, 15m or 8h); the helpers are then told to sign in."),
            .flag(
                "confirm",
                "Ask on this terminal before each use of a token (y to give it); without one, the askpass program"
                    + " (DEVICE_LOGIN_ASKPASS, else SSH_ASKPASS); refused when nobody can answer."),
            .value(
                "confirm-command", "CMD",
                "Ask CMD instead (through /bin/sh -c; the request as a JSON line on its stdin): exit 0 gives the"
                    + " token. Implies --confirm."),
        ] + ClientSecretOption.options("The client secret, for profiles that do not store it.") + [
            .value("ca-file", "PEM", "Trust the CA certificates in this PEM file instead of the system's.")
        ],
        discussion: """
            Reads the profiles of its DEVICE_LOGIN_HOME once, at start, and keeps their tokens in memory;
            refreshes are single-flight, and a rotated refresh token is saved to its own home. It prints
              DEVICE_LOGIN_AGENT_SOCK=/run/user/1000/device-login-agent.XXXXXX/agent.sock; export DEVICE_LOGIN_AGENT_SOCK;
            on stdout and goes on in the background, as ssh-agent does: eval "$(device-login agent)". With
            --foreground it serves in this process until SIGINT or SIGTERM (systemd). With that variable set,
            token, git-credential, kubectl-credential, docker-credential, curl-config, exec and dpop-proof
            ask the agent and never read or write their own DEVICE_LOGIN_HOME: the refresh token is never
            written on a host that uses the agent. For a DPoP profile the agent makes each proof: the key
            never leaves it. Forward it into an SSH session
            with device-login ssh HOST, or by hand (then set the variable in the session; docs/agent.md):
              ssh -R /tmp/dl-agent.$RANDOM.sock:"$DEVICE_LOGIN_AGENT_SOCK" host
            Whoever can connect to a forwarded socket (the remote user, and root) can get access tokens while
            the session lasts, never the refresh token. Only processes of the same user, or root, may connect
            (SO_PEERCRED). A helper whose agent cannot be reached fails at once: exit 77, one line saying so.
            """,
        exitCodes: [.configuration, .ioError],
        run: run
    )

    /// The longest `--lifetime`: a year.
    static let lifetimeRange = 1...(86_400 * 365)

    @Sendable static func run(_ options: ParsedOptions, _ context: CLIContext) async throws -> ExitCode {
        let lifetime = try DurationOption.read(options, "lifetime", range: lifetimeRange, command: "agent")
        guard options.flag("foreground") else {
            if options.flag("confirm"), !options.has("confirm-command"),
                AgentConfirmation.askpass(context.environment) == nil
            {
                context.stderr.line(
                    "device-login agent: warning: --confirm in the background has no terminal to ask on and no askpass"
                        + " program (SSH_ASKPASS or DEVICE_LOGIN_ASKPASS): every token will be refused; use"
                        + " --confirm-command CMD, set SSH_ASKPASS, or run with --foreground at a terminal")
            }
            try context.stdout.write(try await background(options.arguments, environment: context.environment))
            return .success
        }
        let held = try await load(options, context: context)
        let place = try AgentPlace.make(options.value("socket"), environment: context.environment)
        defer { place.remove() }
        let listening = try place.listen()
        let listener = try AgentListener(listening: listening, owner: getuid())
        defer { close(listening) }
        try listener.start()
        let keeper = AgentKeeper(held)
        let confirmation =
            options.flag("confirm") || options.has("confirm-command")
            ? AgentConfirmation(
                command: options.value("confirm-command"), environment: context.environment, clock: context.clock)
            : nil
        try context.stdout.line(
            "\(AgentSocket.variable)=\(CLIHints.shellQuoted(place.socket)); export \(AgentSocket.variable);")
        try context.stdout.line("DEVICE_LOGIN_AGENT_PID=\(getpid()); export DEVICE_LOGIN_AGENT_PID;")
        context.stderr.line(
            "device-login agent: serving \(held.count) profile\(held.count == 1 ? "" : "s")"
                + (held.isEmpty ? "" : " (\(held.map { "'\($0.profile.name)'" }.joined(separator: ", ")))")
                + " on " + TerminalText.clean(place.socket))
        await withTaskCancellationHandler {
            await withDiscardingTaskGroup { group in
                if let lifetime {
                    group.addTask {
                        try? await context.clock.sleep(for: lifetime)
                        guard !Task.isCancelled else { return }
                        await keeper.forget()
                        context.stderr.line("device-login agent: lifetime over: every token forgotten")
                    }
                }
                for await job in listener.requests {
                    group.addTask {
                        listener.reply(await answer(job, keeper: keeper, confirmation: confirmation), to: job)
                    }
                }
                group.cancelAll()
            }
        } onCancel: {
            listener.stop()
        }
        return .success
    }

    /// Starts the agent in the background (``AgentDaemon``) on a thread of its own (it waits for the agent's
    /// lines), and gives what it printed.
    static func background(_ arguments: [String], environment: [String: String]) async throws -> String {
        let started: Result<String, DeviceLoginError> = await withCheckedContinuation { continuation in
            let running = DedicatedThread.start {
                continuation.resume(
                    returning: Result { () throws(DeviceLoginError) in
                        do { return try AgentDaemon.start(arguments, environment: environment) } catch let error
                            as DeviceLoginError
                        { throw error } catch { throw DeviceLoginError(.configuration, String(describing: error)) }
                    })
            }
            if !running {
                continuation.resume(
                    returning: .failure(DeviceLoginError(.configuration, "agent: no thread to start it")))
            }
        }
        return try started.get()
    }

    /// The reply to one request.
    static func answer(
        _ job: AgentListener.Job, keeper: AgentKeeper, confirmation: AgentConfirmation?
    ) async -> AgentReply {
        if case .list = job.request.operation { return await keeper.listing(job.request) }
        switch await keeper.profile(for: job.request) {
        case .failure(let failure): return .failure(failure)
        case .success(nil): return .none
        case .success(let held?):
            let name = held.profile.name
            // Only what gives a token is asked about: erase gives nothing.
            let givesToken: Bool
            if case .erase = job.request.operation { givesToken = false } else { givesToken = true }
            if givesToken, let confirmation, !(await confirmation.approves(profile: name, pid: job.peerPID)) {
                return .failure(
                    AgentReply.Failure(
                        AgentReply.Failure.refused, profile: name,
                        message: "the agent's host did not approve giving a token of profile '\(name)'"
                            + " (--confirm: refused, or nobody could answer)"))
            }
            return await AgentKeeper.answer(held, to: job.request)
        }
    }

    /// Every saved profile with its token state; a profile that cannot be read or opened is skipped with a warning.
    static func load(_ options: ParsedOptions, context: CLIContext) async throws -> [AgentKeeper.Held] {
        let secret = try await SessionContext.readSecret(options, command: "agent", context: context)
        let store = try context.tokenStore()
        var held: [AgentKeeper.Held] = []
        for name in try await store.profileNames().sorted() {
            do {
                guard let record = try await store.load(profile: name) else { continue }
                let session = try await SessionContext.open(
                    record, store: store, options: options, secret: secret, context: context)
                held.append(AgentKeeper.Held(profile: record.profile, state: session.state))
            } catch {
                context.stderr.line(HelperSession.unreadable(name, error))
            }
        }
        return held
    }
}
