import DeviceLogin

/// `device-login docker-credential get|store|erase|list`, also run as `docker-credential-device-login` (a link to
/// the binary; ``CLI/arguments(program:_:)``): Docker's credential helper (``DockerCredentialProtocol``).
///
/// - `get`: for the profile that serves the server URL, `{"ServerURL","Username","Secret"}` with a fresh access
///   token; for a URL no profile serves, the protocol's "credentials not found" answer (stdout, exit 1), so Docker
///   goes on without credentials.
/// - `list`: `{URL: user name}` for every binding of every profile (of the `--profile` one when given).
/// - `store`: `docker login` hands over what it was typed; the tokens are ours, so it is accepted (and dropped)
///   for a URL a profile serves, and refused for any other, rather than lost without a word.
/// - `erase` (`docker logout`): signs nothing out, since other tools share the sign-in; says so on stderr.
enum DockerCredentialCommand {
    static let name = "docker-credential"

    static let spec = CommandSpec(
        name: name,
        summary: "Docker's credential helper: a fresh access token as the secret.",
        positionalSynopsis: "get|store|erase|list",
        maximumPositionals: 1,
        options: HelperSession.options,
        discussion: """
            Set up: link the binary as docker-credential-device-login on PATH, and name it in
            ~/.docker/config.json: {"credHelpers": {"registry.example.com": "device-login"}}
              ln -s "$(command -v device-login)" ~/.local/bin/docker-credential-device-login
            get reads a server URL on stdin and answers {"ServerURL","Username","Secret"} with an access token
            valid for at least 60 s, for the profile bound to it (login --for URL); for a URL no profile serves
            it prints "credentials not found in native keychain" and exits 1. list answers {URL: user name}
            for every binding. store accepts credentials only for a URL a profile serves, and keeps nothing;
            erase (docker logout) signs nothing out. It never signs in: exit 77 when the profile needs a
            sign-in. Input that is not Docker's: exit 64, nothing on stdout.
            """,
        exitCodes: ExitCode.session,
        exitMeanings: [.failure: "credentials not found: no profile serves the URL (get), or another failure"],
        run: run
    )

    @Sendable static func run(_ options: ParsedOptions, _ context: CLIContext) async throws -> ExitCode {
        let operation = try operation(options)
        do {
            switch operation {
            case "get": return try await get(options, context)
            case "list": return try await list(options, context)
            case "store": return try await store(options, context)
            case "erase": return try await erase(options, context)
            default: throw UsageError("unknown operation '\(operation)': give get, store, erase or list", command: name)
            }
        } catch let error as CredentialInputError {
            context.report("\(name) \(operation): " + error.message)
            return .usage
        }
    }

    /// The operation Docker gave.
    /// - Throws: ``UsageError`` when there is none, or it is not one of get, store, erase and list.
    static func operation(_ options: ParsedOptions) throws -> String {
        guard let operation = options.positionals.first else {
            throw UsageError("give the operation: get, store, erase or list", command: name)
        }
        guard ["get", "store", "erase", "list"].contains(operation) else {
            throw UsageError("unknown operation '\(operation)': give get, store, erase or list", command: name)
        }
        return operation
    }

    /// Reads the server URL of `get` or `erase`.
    private static func readServerURL(_ context: CLIContext) async throws -> (text: String, binding: URLBinding) {
        let bytes = try await DockerCredentialProtocol.readAll(
            context, limit: DockerCredentialProtocol.maximumURLLength, what: "the server URL")
        let text = try DockerCredentialProtocol.serverURL(parsing: bytes)
        return (text, try DockerCredentialProtocol.binding(text))
    }

    private static func get(_ options: ParsedOptions, _ context: CLIContext) async throws -> ExitCode {
        let url = try await readServerURL(context)
        guard let helper = try await HelperSession.open(options, serving: url.binding, command: name, context: context)
        else {
            try context.stdout.line(DockerCredentialProtocol.notFound)
            return .failure
        }
        let (token, _) = try await helper.freshToken()
        try context.stdout.write(
            try DockerCredentialProtocol.credentials(
                serverURL: url.text, username: helper.profile.effectiveUsername, secret: token))
        return .success
    }

    /// The answer of `get` from the stored token, for ``FastLane``: `--profile` only, a server URL that reads.
    static func fastAnswer(_ arguments: [String], process: FastLane.Process) -> FastLane.Answer? {
        guard let options = FastLane.options(arguments, for: spec, allowing: ["profile"], process: process),
            options.positionals == ["get"],
            let read = process.readInput(limit: DockerCredentialProtocol.maximumURLLength, until: { _ in false }),
            read.ending != .tooLong,
            let serverURL = try? DockerCredentialProtocol.serverURL(parsing: read.bytes),
            let binding = try? DockerCredentialProtocol.binding(serverURL),
            let found = FastLane.profile(options, serving: binding, process: process)
        else { return nil }
        guard let glance = found else {
            return FastLane.Answer(text: DockerCredentialProtocol.notFound + "\n", code: .failure)
        }
        guard let (token, _) = FastLane.storedToken(glance, lifetime: HelperSession.minimumLifetime, process: process),
            let answer = try? DockerCredentialProtocol.credentials(
                serverURL: serverURL, username: glance.profile.effectiveUsername, secret: token)
        else { return nil }
        return FastLane.Answer(text: answer)
    }

    private static func list(_ options: ParsedOptions, _ context: CLIContext) async throws -> ExitCode {
        // Docker writes "unused" on stdin: it is not read.
        let records: [ProfileRecord]
        if options.has("profile") {
            records = [try await HelperSession.open(options, command: name, context: context).session.record]
        } else {
            let store = try context.tokenStore()
            records = try await HelperSession.boundProfiles(in: store, context: context)
        }
        let profiles = records.map {
            (name: $0.name, username: $0.profile.effectiveUsername, bindings: $0.profile.bindings.map(\.description))
        }
        try context.stdout.write(try DockerCredentialProtocol.list(entries(profiles, warn: context.stderr.line)))
        return .success
    }

    /// `list`'s entries, `{URL: user name}`, for every binding of `profiles` (in order); a URL two profiles serve is
    /// listed for the first, with a warning. The one rule of the local answer and the agent's.
    static func entries(
        _ profiles: [(name: String, username: String, bindings: [String])], warn: (String) -> Void
    ) -> [(url: String, username: String)] {
        var entries: [(url: String, username: String)] = []
        var owners: [String: String] = [:]
        for profile in profiles {
            for url in profile.bindings {
                if let owner = owners[url] {
                    if owner != profile.name {
                        warn(
                            "device-login: warning: profiles '\(owner)' and '\(profile.name)' both serve \(url); "
                                + "listed for '\(owner)'")
                    }
                    continue
                }
                owners[url] = profile.name
                entries.append((url, profile.username))
            }
        }
        return entries
    }

    /// `store`'s refusal of a URL no profile serves: device-login keeps no credentials of its own.
    static func notServed(_ binding: URLBinding) -> (message: String, hint: String) {
        // The registry only (scheme, host, port): the rest of what Docker sent is not repeated.
        (
            "\(name) store: no profile serves that ServerURL (\(binding.origin)), and device-login keeps no"
                + " credentials of its own",
            "name device-login only for the registries it serves (credHelpers in ~/.docker/config.json), "
                + "or bind a profile: device-login login --for \(binding.origin)"
        )
    }

    /// What `erase` (docker logout) says for the profile that serves the URL: it signs nothing out.
    static func logoutNotice(profile: String) -> String {
        "device-login: docker logout does not sign out of profile '\(profile)' (other tools share it); "
            + "to sign out: device-login logout --profile \(profile)"
    }

    private static func store(_ options: ParsedOptions, _ context: CLIContext) async throws -> ExitCode {
        let bytes = try await DockerCredentialProtocol.readAll(
            context, limit: DockerCredentialProtocol.maximumCredentialsLength, what: "the credentials")
        let credentials = try DockerCredentialProtocol.credentials(parsing: bytes)
        let binding = try DockerCredentialProtocol.binding(credentials.serverURL)
        guard let helper = try await HelperSession.open(options, serving: binding, command: name, context: context)
        else {
            let refusal = notServed(binding)
            context.report(refusal.message, hint: refusal.hint)
            return .configuration
        }
        context.trace("docker", "store for \(binding): profile '\(helper.profile.name)' serves it; nothing kept")
        return .success
    }

    private static func erase(_ options: ParsedOptions, _ context: CLIContext) async throws -> ExitCode {
        let url = try await readServerURL(context)
        guard let helper = try await HelperSession.open(options, serving: url.binding, command: name, context: context)
        else { return .success }
        context.stderr.line(logoutNotice(profile: helper.profile.name))
        return .success
    }
}
