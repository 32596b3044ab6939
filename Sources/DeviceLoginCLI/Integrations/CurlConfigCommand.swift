/// `device-login curl-config [--profile P] [--url U [--method M]]`: a curl config on stdout that sends a fresh access
/// token, for `device-login curl-config | curl -K - URL`. The token goes through the pipe, never through any
/// process's arguments (where `curl -H "Authorization: Bearer $(device-login token)"` would show it to every user in
/// `ps`). For a profile that uses DPoP, the config also carries a proof for the request `--url` and `--method` name.
enum CurlConfigCommand {
    static let spec = CommandSpec(
        name: "curl-config",
        summary: "Print a curl config that sends a fresh access token (for curl -K -).",
        options: HelperSession.options + [
            .value(
                "url", "URL",
                "The URL curl will request: the DPoP proof is made for it (needed for a profile signed in with"
                    + " --dpop; ignored otherwise)."),
            .value("method", "METHOD", "The method curl will use, for the DPoP proof (default GET)."),
        ],
        discussion: """
            Prints one line on stdout, the header curl is to send:
              header = "Authorization: Bearer <token>"
            quoted by curl's config rules. The token is valid for at least 60 s (refreshed first when it
            would not be). Pipe it into curl, so that the token is in no command line:
              device-login curl-config | curl -sSf -K - https://api.example.com/v1/items
              device-login curl-config --profile work | curl -K - https://api.example.com/
            For a profile signed in with --dpop, give the request's URL (and method, unless GET): the config
            then sends the token as `Authorization: DPoP <token>` with a second line, `header = "DPoP:
            <proof>"`, a proof for that one request. A proof is good once, for about a minute: make a new
            config for every request, and let curl follow no redirect.
              device-login curl-config --method POST \\
                --url https://api.example.com/v1/items \\
                | curl -sSf -K - -d @item.json https://api.example.com/v1/items
            With no profile or an ended session it fails at once (exit 77, one line naming the login
            command) and prints nothing, so curl sends no Authorization header.
            """,
        exitCodes: ExitCode.session,
        run: run
    )

    @Sendable static func run(_ options: ParsedOptions, _ context: CLIContext) async throws -> ExitCode {
        let target = try RequestTarget.read(options, command: "curl-config")
        let session = try await HelperSession.open(options, command: "curl-config", context: context)
        guard session.profile.usesDPoP else {
            let (token, _) = try await session.freshToken()
            try context.stdout.write(try CurlConfig.authorization(bearer: token))
            return .success
        }
        guard let target else { throw targetNeeded(profile: session.profile.name) }
        let authorization = try await session.authorization(for: target)
        try context.stdout.write(try CurlConfig.authorization(authorization))
        return .success
    }

    /// The usage error for a DPoP profile without `--url`: its proof needs the request.
    static func targetNeeded(profile: String) -> UsageError {
        UsageError(
            "profile '\(profile)' uses DPoP: give --url (and --method unless GET), the request the proof is for",
            command: "curl-config")
    }

    /// The answer from the stored token, for ``FastLane``: `--profile` only.
    static func fastAnswer(_ arguments: [String], process: FastLane.Process) -> FastLane.Answer? {
        guard let options = FastLane.options(arguments, for: spec, allowing: ["profile"], process: process),
            let (token, _) = FastLane.storedToken(options, lifetime: HelperSession.minimumLifetime, process: process)
        else { return nil }
        return (try? CurlConfig.authorization(bearer: token)).map { FastLane.Answer(text: $0) }
    }
}
