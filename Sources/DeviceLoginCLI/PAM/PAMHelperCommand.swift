import DeviceLogin
import DeviceLoginTerminal

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `device-login pam-helper --config FILE --user USER`: the sign-in behind `pam_device_login.so` (docs/ssh.md), run
/// by the module in a process of its own so that no Swift runtime ever lives inside sshd. Not listed in `--help`.
///
/// It writes JSON lines on stdout, the module's pipe: the flow's v1 events (``FlowEventEncoder``), one
/// `pam_prompt` line whose `text` is the prompt the module shows through `pam_conv` (the same words and sanitiser
/// as `login`'s prompt, a QR code by `qr` and ``PAMClientTerminal``), and last one `pam_decision` line (``PAMDecision``). The ID token
/// must verify (signature by the issuer's key set, `iss`, `aud`, `exp`) and its configured claim must be the user.
/// Nothing is stored. Its exit code says the decision too: 0 allow, 65 deny, 69 unavailable, 78 a bad configuration.
enum PAMHelperCommand {
    /// The command: its name, help, option table and exit codes (unlisted: ``CLI/unlistedCommands``).
    static let spec = CommandSpec(
        name: "pam-helper",
        summary: "The sign-in behind the PAM module pam_device_login.so (run by the module, not by people).",
        options: [
            .value("config", "FILE", "The module's configuration file."),
            .value("user", "USER", "The user PAM signs in."),
            .value("client-tty", "TTY", "PAM_TTY, for qr = auto."),
            .value("client-term", "TERM", "TERM in the PAM environment, for qr = auto."),
            .flag("client-remote", "PAM_RHOST is set, for qr = auto."),
        ],
        discussion: "Writes JSON lines for the module on stdout: v1 events, pam_prompt and pam_decision.",
        exitCodes: [.denied, .unavailable, .configuration],
        run: run
    )

    /// Loads the configuration, signs in, and writes the decision; the exit code says it too.
    @Sendable static func run(_ options: ParsedOptions, _ context: CLIContext) async throws -> ExitCode {
        guard let path = options.value("config"), let user = options.value("user"), !user.isEmpty else {
            throw UsageError("give --config FILE and --user USER", command: "pam-helper")
        }
        let configuration: PAMConfiguration
        do {
            configuration = try PAMConfiguration.load(path: path)
        } catch {
            try report(PAMDecision(verdict: .unavailable, reason: error.description), context: context)
            return .configuration
        }
        let terminal = PAMClientTerminal(
            tty: options.value("client-tty"), isRemote: options.flag("client-remote"),
            term: options.value("client-term"))
        let decision = await decide(configuration: configuration, user: user, terminal: terminal, context: context)
        try report(decision, context: context)
        switch decision.verdict {
        case .allow: return .success
        case .deny: return .denied
        case .unavailable: return .unavailable
        }
    }

    /// Runs the sign-in within the configured deadline and decides.
    static func decide(
        configuration: PAMConfiguration, user: String, terminal: PAMClientTerminal? = nil, context: CLIContext
    ) async -> PAMDecision {
        do {
            let deadline = Duration.seconds(configuration.deadline)
            let decision = try await SignIn.within(deadline, clock: context.clock) {
                try await signIn(configuration: configuration, user: user, terminal: terminal, context: context)
            }
            return decision ?? .deadlinePassed(seconds: configuration.deadline)
        } catch let error as PAMConfiguration.Problem {
            return PAMDecision(verdict: .unavailable, reason: error.description)
        } catch let error as DeviceLoginError {
            return decision(for: error)
        } catch is CancellationError {
            return .deny("the sign-in was cancelled")
        } catch {
            return PAMDecision(verdict: .unavailable, reason: "the sign-in failed")
        }
    }

    /// The decision on a failed sign-in: the server's or the network's trouble is `unavailable`, a refusal `deny`.
    static func decision(for error: DeviceLoginError) -> PAMDecision {
        let reason = TerminalText.clean(error.message)
        switch error.code {
        case .transport, .discovery, .invalidResponse, .configuration, .insecureEndpoint:
            return PAMDecision(verdict: .unavailable, reason: reason)
        case .oauth where ["server_error", "temporarily_unavailable"].contains(error.oauthError?.code.rawValue):
            return PAMDecision(verdict: .unavailable, reason: reason)
        default:
            return .deny(reason)
        }
    }

    /// Discovery, the device flow with its prompt and event lines, and the decision on the token response.
    private static func signIn(
        configuration: PAMConfiguration, user: String, terminal: PAMClientTerminal?, context: CLIContext
    ) async throws -> PAMDecision {
        let secret = try configuration.clientSecret()
        let map = try configuration.userMap()
        let client = ClientConfiguration(
            clientID: configuration.clientID,
            authentication: secret.map { .clientSecretBasic(secret: $0) } ?? .none,
            scopes: configuration.scopes
        )
        let transport = context.makeTransport(TransportOptions())
        let metadata = try await Discovery(transport: transport).metadata(issuer: configuration.issuer)
        let endpoints = try ServerEndpoints(metadata: metadata)
        try endpoints.check(allowInsecureHTTP: false)
        let flow = DeviceFlow(
            endpoints: endpoints, client: client, transport: transport, clock: context.clock, now: context.now)
        let authorization = try await flow.requestAuthorization()
        let encoder = FlowEventEncoder()
        let stdout = context.stdout
        let now = context.now
        if let line = encoder.line(for: .authorizationReceived(authorization), context: .init(at: now())) {
            try stdout.line(line)
        }
        try stdout.line(
            promptLine(authorization, configuration: configuration, terminal: terminal, context: context))
        // An event line that cannot be written (the module is gone) is dropped: the module kills this process.
        let response = try await flow.pollForToken(authorization) { event in
            if let line = encoder.line(for: event, context: .init(at: now())) { try? stdout.line(line) }
        }
        return await judge(
            response, endpoints: endpoints, client: client, user: user, configuration: configuration, map: map,
            transport: transport, context: context)
    }

    /// The decision on the token response: its ID token verified, then its claims against the user.
    private static func judge(
        _ response: TokenResponse, endpoints: ServerEndpoints, client: ClientConfiguration, user: String,
        configuration: PAMConfiguration, map: PAMUserMap?, transport: any HTTPTransport, context: CLIContext
    ) async -> PAMDecision {
        guard let idToken = response.idToken else { return .deny("the server sent no ID token") }
        let verifier = IDTokenVerifier(
            jwksURI: endpoints.jwks, keys: JSONWebKeySetCache(clock: context.clock),
            fetcher: JSONWebKeySetFetcher(transport: transport)
        )
        let expected = IDTokenVerifier.Expectations(
            issuer: endpoints.issuer ?? configuration.issuer, clientID: client.clientID,
            algorithms: endpoints.idTokenSigningAlgorithms
        )
        let verdict = await verifier.verify(idToken, expecting: expected, at: context.now())
        let problem = TerminalText.clean(verdict.problem ?? "")
        switch verdict.outcome {
        case .verified: break
        case .refused: return .deny("the ID token is refused: " + problem)
        case .undetermined:
            return PAMDecision(verdict: .unavailable, reason: "the ID token cannot be checked: " + problem)
        }
        guard let claims = try? IDTokenClaims(idToken: idToken) else {
            return .deny("the ID token's claims are malformed")
        }
        return PAMDecision.decide(claims: claims, user: user, configuration: configuration, map: map)
    }

    /// The `pam_prompt` line: the prompt as `login` words it, for the module to show as one `pam_conv` message.
    static func promptLine(
        _ authorization: DeviceAuthorization, configuration: PAMConfiguration, terminal: PAMClientTerminal? = nil,
        context: CLIContext, machineName: String? = MachineName.current()
    ) -> String {
        let shows = (terminal ?? PAMClientTerminal(tty: nil, isRemote: true, term: nil)).showsQRCode(configuration.qr)
        let settings = SignInSettings(
            capabilities: TerminalCapabilities(isTerminal: false, isUTF8: true, term: nil),
            qrMode: shows ? .always : .never, machineName: machineName
        )
        let secondsLeft = max(0, DateText.seconds(from: context.now(), to: authorization.expiresAt))
        let text = PromptRenderer(settings: settings).render(authorization, secondsLeft: secondsLeft)
        var json = JSONWriter()
        json.add("v", integer: FlowEventEncoder.version)
        json.add("event", .string("pam_prompt"))
        json.add("at", .string(DateText.rfc3339(context.now())))
        json.add("text", .string(text))
        json.add("deadline", integer: configuration.deadline)
        return json.object
    }

    /// Writes the `pam_decision` line.
    static func report(_ decision: PAMDecision, context: CLIContext) throws {
        var json = JSONWriter()
        json.add("v", integer: FlowEventEncoder.version)
        json.add("event", .string("pam_decision"))
        json.add("at", .string(DateText.rfc3339(context.now())))
        json.add("decision", .string(decision.verdict.rawValue))
        json.add("reason", .string(TerminalText.clean(decision.reason)))
        if let message = decision.message { json.add("message", .string(TerminalText.clean(message))) }
        try context.stdout.line(json.object)
    }
}
