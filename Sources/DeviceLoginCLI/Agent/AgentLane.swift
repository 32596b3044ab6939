import DeviceLogin

/// The helpers' answers when `DEVICE_LOGIN_AGENT_SOCK` names an agent (docs/agent.md): `token`, `git-credential`,
/// `kubectl-credential`, `docker-credential`, `curl-config` and `exec` ask the agent, on the fast lane's thread,
/// and never read or write their own `DEVICE_LOGIN_HOME` — the host that uses an agent may hold no tokens at all.
///
/// Each answer is the command's own, from the agent's token: the same option table, the same input parsers and
/// answer formatters as its stored-token answer. What the agent cannot serve (an option such as `token --json`,
/// `git-credential erase`'s mark) is refused with a usage error, never handed to the full path, which would use the
/// local store. An agent that cannot be reached is the non-interactive contract's failure: one line, exit 77.
enum AgentLane {
    /// The answer to `arguments` through the agent at `socket`; nil for a command that is not a helper, or words
    /// the command's parser refuses (the full path then shows its usage error or help, touching no store).
    static func answer(to arguments: [String], socket: String, process: FastLane.Process) -> FastLane.Answer? {
        guard let name = arguments.first else { return nil }
        let lane = Lane(socket: socket, process: process)
        let rest = Array(arguments.dropFirst())
        switch name {
        case TokenCommand.spec.name: return lane.token(rest)
        case CurlConfigCommand.spec.name: return lane.curlConfig(rest)
        case KubectlCredentialCommand.name: return lane.kubectl(rest)
        case GitCredentialCommand.name: return lane.git(rest)
        case DockerCredentialCommand.name: return lane.docker(rest)
        case ExecCommand.spec.name: return lane.exec(rest)
        default: return nil
        }
    }

    /// One helper's call through the agent.
    struct Lane {
        let socket: String
        let process: FastLane.Process

        /// The options of `spec` in `arguments`; nil when its parser refuses them. The session options other than
        /// `--profile` (a client secret, `--ca-file`) are for refreshing, which the agent does: ignored here.
        func options(_ arguments: [String], for spec: CommandSpec) -> ParsedOptions? {
            FastLane.options(arguments, for: spec, allowing: spec.options.map(\.name), process: process)
        }

        /// The refusal of an option the agent cannot serve, or nil when `options` has none beyond `allowed`.
        func refusal(_ options: ParsedOptions, spec: CommandSpec, allowing allowed: [String]) -> FastLane.Answer? {
            let ignored = HelperSession.options.map(\.name)
            for option in spec.options
            where options.has(option.name) && !allowed.contains(option.name) && !ignored.contains(option.name) {
                return fail(
                    "--\(option.name) is not served through the agent (\(AgentSocket.variable) is set)", code: .usage)
            }
            return nil
        }

        /// Asks the agent; a failure is its answer already written to stderr.
        func ask(_ request: AgentRequest) -> Result<AgentReply.Token?, Refused> {
            switch AgentClient.ask(request, socket: socket) {
            case .failure(let failure):
                return .failure(
                    Refused(
                        fail(
                            "\(AgentSocket.variable)=\(socket): \(failure.message); start one with: device-login agent,"
                                + " or unset \(AgentSocket.variable)",
                            code: .notSignedIn)))
            case .success(.none): return .success(nil)
            case .success(.token(let token)): return .success(token)
            case .success(.failure(let failure)):
                var line = "the agent: " + failure.message
                let code: ExitCode
                switch failure.error {
                case AgentReply.Failure.signInNeeded:
                    line +=
                        "; sign in on the agent's host with: "
                        + CLIHints.loginCommand(profile: failure.profile ?? Profile.defaultName, saved: nil)
                    code = .notSignedIn
                case AgentReply.Failure.refused: code = .notSignedIn
                case AgentReply.Failure.configuration: code = .configuration
                case AgentReply.Failure.unavailable: code = .unavailable
                default: code = .failure
                }
                return .failure(Refused(fail(line, code: code)))
            }
        }

        /// An answer the agent did not give: the reason written to stderr, and `code`.
        struct Refused: Error {
            var answer: FastLane.Answer
            init(_ answer: FastLane.Answer) { self.answer = answer }
        }

        func fail(_ message: String, code: ExitCode) -> FastLane.Answer {
            process.stderr.line("device-login: " + TerminalText.clean(message))
            return FastLane.Answer(code: code)
        }

        /// The token of `profile` for a helper that names no URL: a missing answer is a refusal.
        func token(profile: String?, lifetime: Int) -> Result<AgentReply.Token, Refused> {
            ask(AgentRequest(profile: profile, url: nil, minimumLifetime: lifetime)).flatMap { token in
                guard let token else {
                    return .failure(Refused(fail("the agent answered no token", code: .protocolError)))
                }
                return .success(token)
            }
        }

        static let helperLifetime = Int(HelperSession.minimumLifetime.components.seconds)

        func token(_ arguments: [String]) -> FastLane.Answer? {
            let spec = TokenCommand.spec
            guard let options = options(arguments, for: spec) else { return nil }
            if let refused = refusal(options, spec: spec, allowing: ["profile", "min-ttl"]) { return refused }
            guard let lifetime = try? TokenCommand.minimumTTL(options) else { return nil }
            switch token(profile: options.value("profile"), lifetime: Int(lifetime.components.seconds)) {
            case .failure(let refused): return refused.answer
            case .success(let token): return FastLane.Answer(text: token.accessToken + "\n")
            }
        }

        func curlConfig(_ arguments: [String]) -> FastLane.Answer? {
            let spec = CurlConfigCommand.spec
            guard let options = options(arguments, for: spec) else { return nil }
            // --url and --method only matter to a DPoP profile, which the agent does not serve.
            if let refused = refusal(options, spec: spec, allowing: ["profile", "url", "method"]) { return refused }
            switch token(profile: options.value("profile"), lifetime: Self.helperLifetime) {
            case .failure(let refused): return refused.answer
            case .success(let token):
                guard let config = try? CurlConfig.authorization(bearer: token.accessToken) else {
                    return fail("the agent's token cannot go in a curl config", code: .protocolError)
                }
                return FastLane.Answer(text: config)
            }
        }

        func kubectl(_ arguments: [String]) -> FastLane.Answer? {
            let spec = KubectlCredentialCommand.spec
            guard let options = options(arguments, for: spec) else { return nil }
            if let refused = refusal(options, spec: spec, allowing: ["profile"]) { return refused }
            let request: ExecCredential.Request
            do {
                request = try ExecCredential.request(from: process.environment(ExecCredential.environmentVariable))
            } catch {
                return fail(String(describing: error), code: .configuration)
            }
            switch token(profile: options.value("profile"), lifetime: Self.helperLifetime) {
            case .failure(let refused): return refused.answer
            case .success(let token):
                guard
                    let answer = try? ExecCredential.answer(
                        request.apiVersion, token: token.accessToken, expiresAt: token.expiry)
                else { return fail("the agent's token cannot go in an ExecCredential", code: .protocolError) }
                return FastLane.Answer(text: answer + "\n")
            }
        }

        func git(_ arguments: [String]) -> FastLane.Answer? {
            let spec = GitCredentialCommand.spec
            guard let options = options(arguments, for: spec), let operation = options.positionals.first else {
                return nil
            }
            // store: nothing to keep; erase: the agent keeps the tokens, and a refused one is refreshed when it
            // expires; any other operation is ignored, as gitcredentials(7) asks.
            guard operation == "get" else { return FastLane.Answer() }
            guard
                let read = process.readInput(
                    limit: GitCredentialRequest.maximumLength, until: GitCredentialRequest.completeness()),
                read.ending != .tooLong,
                let request = try? GitCredentialRequest(parsing: read.bytes),
                let served = try? Optional.some(request.binding())
            else { return fail("git-credential: input is not git's credential request", code: .usage) }
            guard let url = served else { return FastLane.Answer() }
            switch ask(AgentRequest(profile: options.value("profile"), url: url, minimumLifetime: Self.helperLifetime))
            {
            case .failure(let refused):
                // As the full path: quit=1 when the URL's profile needs a sign-in, so git asks no one else.
                guard refused.answer.code == .notSignedIn else { return refused.answer }
                return FastLane.Answer(text: "quit=1\n", code: refused.answer.code)
            case .success(nil): return FastLane.Answer()
            case .success(let token?):
                guard
                    let username = GitCredentialCommand.answerUsername(
                        asked: request.username, username: token.username)
                else { return FastLane.Answer() }
                let answer = GitCredentialCommand.answer(
                    username: username, token: token.accessToken, expiresAt: token.expiry)
                return (try? GitCredentialRequest.encode(answer)).map { FastLane.Answer(text: $0) }
                    ?? fail("the agent's token cannot go in git's answer", code: .protocolError)
            }
        }

        func docker(_ arguments: [String]) -> FastLane.Answer? {
            let spec = DockerCredentialCommand.spec
            guard let options = options(arguments, for: spec), let operation = options.positionals.first else {
                return nil
            }
            guard operation == "get" else {
                return fail("docker-credential \(operation) is not served through the agent", code: .usage)
            }
            guard
                let read = process.readInput(limit: DockerCredentialProtocol.maximumURLLength, until: { _ in false }),
                read.ending != .tooLong,
                let serverURL = try? DockerCredentialProtocol.serverURL(parsing: read.bytes),
                let binding = try? DockerCredentialProtocol.binding(serverURL)
            else { return fail("docker-credential: input is not a registry's server URL", code: .usage) }
            switch ask(
                AgentRequest(profile: options.value("profile"), url: binding, minimumLifetime: Self.helperLifetime))
            {
            case .failure(let refused): return refused.answer
            case .success(nil): return FastLane.Answer(text: DockerCredentialProtocol.notFound + "\n", code: .failure)
            case .success(let token?):
                let answer = try? DockerCredentialProtocol.credentials(
                    serverURL: serverURL, username: token.username ?? Profile.defaultUsername,
                    secret: token.accessToken)
                return answer.map { FastLane.Answer(text: $0) }
                    ?? fail("the agent's token cannot go in Docker's answer", code: .protocolError)
            }
        }

        func exec(_ arguments: [String]) -> FastLane.Answer? {
            let spec = ExecCommand.spec
            guard let options = options(arguments, for: spec),
                let name = try? ExecCommand.variableName(options.value("env")),
                let command = try? ExecCommand.commandWords(options)
            else { return nil }
            if let refused = refusal(options, spec: spec, allowing: ["profile", "env"]) { return refused }
            switch token(profile: options.value("profile"), lifetime: Self.helperLifetime) {
            case .failure(let refused): return refused.answer
            case .success(let token):
                guard (try? BearerToken.check(token.accessToken, for: "an environment variable")) != nil else {
                    return fail("the agent's token cannot go in an environment variable", code: .protocolError)
                }
                return ExecCommand.runOnLane(command, variable: name, token: token.accessToken, process: process)
            }
        }
    }
}
