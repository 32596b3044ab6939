import DeviceLogin

/// The helpers' answers when `DEVICE_LOGIN_AGENT_SOCK` names an agent (docs/agent.md): `token`, `git-credential`,
/// `kubectl-credential`, `docker-credential`, `curl-config`, `exec` and `dpop-proof` ask the agent (for a DPoP
/// profile, a token with a proof the agent makes), and never read or write their own `DEVICE_LOGIN_HOME` — the host
/// that uses an agent may hold no tokens at all.
///
/// One decision (``AgentSocket/named(in:)``) and one implementation (``Lane``) for both paths: the fast lane asks on its thread
/// (``answer(to:socket:process:)``); the full path — when the lane did not run (the process hardening failed,
/// stdout was closed) or left the words to it — asks on a thread of its own (``run(_:options:socket:context:)``).
/// Each answer is the command's own, from the agent's token: the same option table, the same input parsers and
/// answer formatters as its stored-token answer. What the agent cannot serve (an option such as `token --json`) is
/// refused with a usage error, never answered from the local store. An agent that cannot be reached is the
/// non-interactive contract's failure: one line, exit 77.
enum AgentLane {
    /// The spec of the helper `name`, when it answers through the agent; nil for any other command.
    static func helper(_ name: String) -> CommandSpec? {
        switch name {
        case TokenCommand.spec.name: return TokenCommand.spec
        case CurlConfigCommand.spec.name: return CurlConfigCommand.spec
        case KubectlCredentialCommand.name: return KubectlCredentialCommand.spec
        case GitCredentialCommand.name: return GitCredentialCommand.spec
        case DockerCredentialCommand.name: return DockerCredentialCommand.spec
        case ExecCommand.spec.name: return ExecCommand.spec
        case DPoPProofCommand.spec.name: return DPoPProofCommand.spec
        default: return nil
        }
    }

    /// The fast lane's answer to `arguments` through the agent at `socket`; nil for a command that is not a helper,
    /// or words its parser refuses (the full path then shows its usage error or help, and touches no store either:
    /// it answers through the agent too).
    static func answer(to arguments: [String], socket: String, process: FastLane.Process) -> FastLane.Answer? {
        guard let name = arguments.first, let spec = helper(name),
            let options = FastLane.options(
                Array(arguments.dropFirst()), for: spec, allowing: spec.options.map(\.name), process: process),
            !options.flag("help")
        else { return nil }
        let trace: (String) -> Void =
            options.flag("verbose")
            ? { process.stderr.line("device-login: agent: " + TerminalText.clean($0)) } : { _ in }
        let lane = Lane(socket: socket, process: process, trace: trace)
        switch Result(catching: { try lane.outcome(of: spec.name, options) }) {
        case .failure: return nil
        case .success(.answer(let answer)): return answer
        case .success(.run(let command, let variables)):
            return ExecCommand.runOnLane(command, variables: variables, process: process)
        }
    }

    /// The full path's answer to the helper `spec` with `options` through the agent at `socket`: the lane's
    /// ``Lane`` on a thread of its own (its socket and reads block), then the answer written, or `exec`'s command
    /// run by the full path's launcher.
    /// - Throws: The command's ``UsageError``s; ``ResultSink/WriteError`` when the answer cannot be written.
    static func run(_ spec: CommandSpec, options: ParsedOptions, socket: String, context: CLIContext) async throws
        -> ExitCode
    {
        let outcome = await AgentClient.onThread {
            let process = FastLane.Process(
                environment: { context.environment[$0] }, stdin: context.stdin, stdout: context.stdout,
                now: context.now(), wholeEnvironment: { context.environment }, stderr: context.stderr)
            let lane = Lane(socket: socket, process: process, trace: { context.trace("agent", $0) })
            return Result { try lane.outcome(of: spec.name, options) }
        }
        switch try outcome.get() {
        case .answer(let answer):
            try context.stdout.write(answer.text)
            return answer.code
        case .run(let command, let variables):
            var environment = ChildEnvironment.forChild(context.environment)
            environment.merge(variables) { $1 }
            return try await ExecCommand.launch(command, environment: environment, context: context)
        }
    }

    /// What a helper's call through the agent comes to: an answer for stdout and the exit code, or for `exec`, its
    /// command with the variables to add to its environment (the token, and a proof when asked).
    enum Outcome: Sendable {
        case answer(FastLane.Answer)
        case run([String], variables: [String: String])
    }

    /// One helper's call through the agent.
    struct Lane {
        let socket: String
        let process: FastLane.Process
        /// Writes a line of the `--verbose` trace (nothing without it).
        let trace: (String) -> Void

        /// The outcome of the helper `name` with `options`.
        /// - Throws: The command's ``UsageError`` for words only its parser's neighbours refuse (a bad `--min-ttl`,
        ///   `exec` without a command, no operation).
        func outcome(of name: String, _ options: ParsedOptions) throws -> Outcome {
            switch name {
            case TokenCommand.spec.name: return .answer(try token(options))
            case CurlConfigCommand.spec.name: return .answer(try curlConfig(options))
            case KubectlCredentialCommand.name: return .answer(kubectl(options))
            case GitCredentialCommand.name: return .answer(try git(options))
            case DockerCredentialCommand.name: return .answer(try docker(options))
            case ExecCommand.spec.name: return try exec(options)
            case DPoPProofCommand.spec.name: return .answer(try dpopProof(options))
            default: throw UsageError("\(name) is not served through the agent", command: name)
            }
        }

        /// The refusal of an option the agent cannot serve, or nil when `options` has none beyond `allowed`.
        func refusal(_ options: ParsedOptions, spec: CommandSpec, allowing allowed: [String]) -> FastLane.Answer? {
            let ignored = HelperSession.options.map(\.name) + ["verbose", "help"]
            for option in spec.options
            where options.has(option.name) && !allowed.contains(option.name) && !ignored.contains(option.name) {
                return fail(
                    "--\(option.name) is not served through the agent (\(AgentSocket.variable) is set)", code: .usage)
            }
            return nil
        }

        /// Asks the agent for a token; a failure is its answer already written to stderr.
        func ask(_ request: AgentRequest) -> Result<AgentReply.Token?, Refused> {
            exchange(request).flatMap { reply in
                switch reply {
                case .none: return .success(nil)
                case .token(let token): return .success(token)
                default: return .failure(Refused(fail("the agent answered something else", code: .protocolError)))
                }
            }
        }

        /// Sends `request` and reads the agent's reply; a failure is its answer already written to stderr.
        func exchange(_ request: AgentRequest) -> Result<AgentReply, Refused> {
            trace("asking \(socket): " + Self.describe(request))
            let reply = AgentClient.ask(request, socket: socket)
            if case .success(let answer) = reply { trace("answered: " + Self.describe(answer)) }
            switch reply {
            case .failure(let failure):
                return .failure(
                    Refused(
                        fail(
                            "\(AgentSocket.variable)=\(socket): \(failure.message); start one with: device-login agent,"
                                + " or unset \(AgentSocket.variable)",
                            code: .notSignedIn)))
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
            case .success(let answer): return .success(answer)
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

        /// The token of `profile` for a helper that names no URL (with a proof when `operation` asks for one): a
        /// missing answer is a refusal.
        func token(profile: String?, lifetime: Int, operation: AgentRequest.Operation = .token)
            -> Result<AgentReply.Token, Refused>
        {
            ask(AgentRequest(profile: profile, url: nil, minimumLifetime: lifetime, operation: operation)).flatMap {
                token in
                guard let token else {
                    return .failure(Refused(fail("the agent answered no token", code: .protocolError)))
                }
                return .success(token)
            }
        }

        static let helperLifetime = Int(HelperSession.minimumLifetime.components.seconds)

        func token(_ options: ParsedOptions) throws -> FastLane.Answer {
            if let refused = refusal(options, spec: TokenCommand.spec, allowing: ["profile", "min-ttl"]) {
                return refused
            }
            let lifetime = try TokenCommand.minimumTTL(options)
            switch token(profile: options.value("profile"), lifetime: Int(lifetime.components.seconds)) {
            case .failure(let refused): return refused.answer
            case .success(let token): return FastLane.Answer(text: token.accessToken + "\n")
            }
        }

        func curlConfig(_ options: ParsedOptions) throws -> FastLane.Answer {
            if let refused = refusal(options, spec: CurlConfigCommand.spec, allowing: ["profile", "url", "method"]) {
                return refused
            }
            let target = try RequestTarget.read(options, command: CurlConfigCommand.spec.name)
            // With --url, the agent makes the proof a DPoP profile needs (and a Bearer profile ignores it).
            let operation = target.map { AgentRequest.Operation.proof(method: $0.method, url: $0.url, nonce: nil) }
            switch token(
                profile: options.value("profile"), lifetime: Self.helperLifetime, operation: operation ?? .token)
            {
            case .failure(let refused): return refused.answer
            case .success(let token):
                if token.tokenType.lowercased() == "dpop", token.proof == nil {
                    throw CurlConfigCommand.targetNeeded(profile: token.profile)
                }
                let config =
                    token.proof.map {
                        try? CurlConfig.authorization(
                            RequestAuthorization(accessToken: token.accessToken, scheme: "DPoP", proof: $0))
                    } ?? (try? CurlConfig.authorization(bearer: token.accessToken))
                guard let config else {
                    return fail("the agent's token cannot go in a curl config", code: .protocolError)
                }
                return FastLane.Answer(text: config)
            }
        }

        func dpopProof(_ options: ParsedOptions) throws -> FastLane.Answer {
            let (target, nonce) = try DPoPProofCommand.request(options)
            let operation = AgentRequest.Operation.proof(method: target.method, url: target.url, nonce: nonce)
            switch token(profile: options.value("profile"), lifetime: Self.helperLifetime, operation: operation) {
            case .failure(let refused): return refused.answer
            case .success(let token):
                guard let proof = token.proof else { return notDPoP(token.profile, for: "a DPoP proof") }
                return FastLane.Answer(text: proof + "\n")
            }
        }

        /// The refusal of a proof for a profile that does not use DPoP, as ``HelperSession/requireDPoP(for:)``'s.
        func notDPoP(_ profile: String, for what: String) -> FastLane.Answer {
            let error = HelperSession.notDPoP(profile: profile, for: what)
            return fail(error.message, code: ExitCode(error))
        }

        func kubectl(_ options: ParsedOptions) -> FastLane.Answer {
            if let refused = refusal(options, spec: KubectlCredentialCommand.spec, allowing: ["profile"]) {
                return refused
            }
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

        func exec(_ options: ParsedOptions) throws -> Outcome {
            let name = try ExecCommand.variableName(options.value("env"))
            let command = try ExecCommand.commandWords(options)
            let target = try ExecCommand.proofTarget(options, variable: name)
            let allowed = ["profile", "env", "dpop-url", "dpop-method"]
            if let refused = refusal(options, spec: ExecCommand.spec, allowing: allowed) { return .answer(refused) }
            let operation = target.map { AgentRequest.Operation.proof(method: $0.method, url: $0.url, nonce: nil) }
            switch token(
                profile: options.value("profile"), lifetime: Self.helperLifetime, operation: operation ?? .token)
            {
            case .failure(let refused): return .answer(refused.answer)
            case .success(let token):
                guard (try? BearerToken.check(token.accessToken, for: "an environment variable")) != nil else {
                    return .answer(fail("the agent's token cannot go in an environment variable", code: .protocolError))
                }
                var variables = [name: token.accessToken]
                if target != nil {
                    guard let proof = token.proof else { return .answer(notDPoP(token.profile, for: "--dpop-url")) }
                    variables[ExecCommand.proofVariable] = proof
                }
                trace("running \(command[0]) with the access token in \(name)")
                return .run(command, variables: variables)
            }
        }

        /// A request, for the trace: what it asks, never a token.
        static func describe(_ request: AgentRequest) -> String {
            var words = ["profile " + (request.profile.map { "'\($0)'" } ?? "(any)")]
            if let url = request.url { words.append("for \(url)") }
            words.append("min_ttl \(request.minimumLifetime) s")
            if case .proof(let method, let url, let nonce) = request.operation {
                words.append(
                    "a DPoP proof for \(method) \(DPoPProof.targetURI(of: url) ?? "")"
                        + (nonce == nil ? "" : " with a nonce"))
            }
            return request.operation.name + ": " + words.joined(separator: ", ")
        }

        /// A reply, for the trace: its kind and profile, never the token.
        static func describe(_ reply: AgentReply) -> String {
            switch reply {
            case .token(let token):
                return "a \(token.tokenType) token of profile '\(token.profile)'"
                    + (token.expiresAt.map { ", expiring at \($0) (Unix seconds)" } ?? "")
                    + (token.proof == nil ? "" : ", with a DPoP proof")
            case .none: return "no profile serves the URL"
            case .erased(let erased): return erased ? "the refused token is marked expired" : "not the token held"
            case .profiles(let profiles): return "\(profiles.count) profile\(profiles.count == 1 ? "" : "s")"
            case .failure(let failure): return "refused: \(failure.error)"
            }
        }
    }
}
