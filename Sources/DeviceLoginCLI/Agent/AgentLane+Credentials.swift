import DeviceLogin

/// git's and Docker's credential helpers through the agent: each operation as the local path answers it, from the
/// agent's tokens (`get`), its `erase` request (git's refused password) and its `list` of profiles (Docker's `list`,
/// and the profile that serves a URL for `store` and `erase`).
extension AgentLane.Lane {
    func git(_ options: ParsedOptions) throws -> FastLane.Answer {
        let operation = try GitCredentialCommand.operation(options)
        // Any other operation is ignored, as gitcredentials(7) asks.
        guard ["get", "store", "erase"].contains(operation) else { return FastLane.Answer() }
        guard
            let read = process.readInput(
                limit: GitCredentialRequest.maximumLength, until: GitCredentialRequest.completeness()),
            let request = try? GitCredentialRequest.request(from: read),
            let served = try? Optional.some(request.binding())
        else { return fail("git-credential: input is not git's credential request", code: .usage) }
        // store: nothing to keep, the tokens are the agent's.
        guard operation != "store", let url = served else { return FastLane.Answer() }
        if operation == "erase" { return gitErase(request, url: url, options: options) }
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

    /// git's `erase`: the server refused the password; the agent marks it expired if it is the token it holds
    /// for the URL's profile, so the next `get` refreshes it (as the local path marks its stored token).
    func gitErase(_ request: GitCredentialRequest, url: URLBinding, options: ParsedOptions) -> FastLane.Answer {
        guard let password = request.password, !password.isEmpty else { return FastLane.Answer() }
        let erase = AgentRequest(
            profile: options.value("profile"), url: url, minimumLifetime: 0,
            operation: .erase(accessToken: password))
        switch exchange(erase) {
        case .failure(let refused): return refused.answer
        case .success(.erased), .success(.none): return FastLane.Answer()
        case .success: return fail("the agent answered something else", code: .protocolError)
        }
    }

    func docker(_ options: ParsedOptions) throws -> FastLane.Answer {
        let operation = try DockerCredentialCommand.operation(options)
        switch operation {
        case "list": return dockerList(options)
        case "store": return dockerStore(options)
        case "erase": return dockerErase(options)
        default: break
        }
        guard let (serverURL, binding) = readServerURL() else {
            return fail("docker-credential: input is not a registry's server URL", code: .usage)
        }
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

    /// The server URL Docker wrote on stdin (`get`, `erase`), and its binding; nil for anything else.
    func readServerURL() -> (text: String, binding: URLBinding)? {
        guard
            let read = process.readInput(limit: DockerCredentialProtocol.maximumURLLength, until: { _ in false }),
            read.ending != .tooLong,
            let serverURL = try? DockerCredentialProtocol.serverURL(parsing: read.bytes),
            let binding = try? DockerCredentialProtocol.binding(serverURL)
        else { return nil }
        return (serverURL, binding)
    }

    /// The profiles the agent holds (only `--profile`'s when given): no token, so `--confirm` is not asked.
    func listed(_ options: ParsedOptions) -> Result<[AgentReply.Listed], Refused> {
        let list = AgentRequest(profile: options.value("profile"), url: nil, minimumLifetime: 0, operation: .list)
        return exchange(list).flatMap { reply in
            guard case .profiles(let profiles) = reply else {
                return .failure(Refused(fail("the agent answered something else", code: .protocolError)))
            }
            return .success(profiles)
        }
    }

    /// Docker's `list`, from the agent's profiles: the local answer's rule (``DockerCredentialCommand/entries(_:warn:)``).
    func dockerList(_ options: ParsedOptions) -> FastLane.Answer {
        switch listed(options) {
        case .failure(let refused): return refused.answer
        case .success(let profiles):
            let entries = DockerCredentialCommand.entries(
                profiles.map { ($0.name, $0.username ?? Profile.defaultUsername, $0.bindings) },
                warn: { process.stderr.line(TerminalText.clean($0)) })
            return (try? DockerCredentialProtocol.list(entries)).map { FastLane.Answer(text: $0) }
                ?? fail("the agent's profiles cannot go in Docker's list", code: .protocolError)
        }
    }

    /// The agent's profile that serves `binding`, chosen by the agent's own rule over its list; nil for none.
    func servingProfile(_ binding: URLBinding, options: ParsedOptions) -> Result<String?, Refused> {
        listed(options).flatMap { profiles in
            let held = profiles.map {
                (
                    name: $0.name, bindings: $0.bindings.compactMap { try? URLBinding($0) },
                    allowInsecureHTTP: $0.allowInsecureHTTP
                )
            }
            switch AgentRequest(profile: options.value("profile"), url: binding, minimumLifetime: 0).choice(
                among: held)
            {
            case .profile(let name): return .success(name)
            case .none: return .success(nil)
            case .missing(let name):
                return .failure(
                    Refused(
                        fail(
                            "the agent holds no profile '\(name)'; sign in on the agent's host with: "
                                + CLIHints.loginCommand(profile: name, saved: nil), code: .notSignedIn)))
            case .plainHTTP(let name):
                return .failure(
                    Refused(
                        fail(
                            "refusing to send profile '\(name)''s token over plain HTTP to \(binding.host)",
                            code: .configuration)))
            case .tie(let names, let shared):
                return .failure(
                    Refused(
                        fail(
                            "profiles \(names.map { "'\($0)'" }.joined(separator: " and ")) both serve \(shared)",
                            code: .configuration)))
            }
        }
    }

    /// Docker's `store` (docker login): accepted, and kept nowhere, for a URL a profile of the agent serves;
    /// refused for any other, as the local path does.
    func dockerStore(_ options: ParsedOptions) -> FastLane.Answer {
        guard
            let read = process.readInput(
                limit: DockerCredentialProtocol.maximumCredentialsLength, until: { _ in false }),
            read.ending != .tooLong,
            let credentials = try? DockerCredentialProtocol.credentials(parsing: read.bytes),
            let binding = try? DockerCredentialProtocol.binding(credentials.serverURL)
        else { return fail("docker-credential store: input is not Docker's credentials", code: .usage) }
        switch servingProfile(binding, options: options) {
        case .failure(let refused): return refused.answer
        case .success(nil):
            let refusal = DockerCredentialCommand.notServed(binding)
            process.stderr.line("device-login: " + TerminalText.clean(refusal.message))
            process.stderr.line("hint: " + TerminalText.clean(refusal.hint))
            return FastLane.Answer(code: .configuration)
        case .success(let name?):
            trace("store for \(binding): the agent's profile '\(name)' serves it; nothing kept")
            return FastLane.Answer()
        }
    }

    /// Docker's `erase` (docker logout): signs nothing out, and says so for the profile that serves the URL.
    func dockerErase(_ options: ParsedOptions) -> FastLane.Answer {
        guard let (_, binding) = readServerURL() else {
            return fail("docker-credential erase: input is not a registry's server URL", code: .usage)
        }
        switch servingProfile(binding, options: options) {
        case .failure(let refused): return refused.answer
        case .success(nil): return FastLane.Answer()
        case .success(let name?):
            process.stderr.line(TerminalText.clean(DockerCredentialCommand.logoutNotice(profile: name)))
            return FastLane.Answer()
        }
    }
}
