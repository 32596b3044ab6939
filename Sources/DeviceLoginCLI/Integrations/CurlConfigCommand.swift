/// `device-login curl-config [--profile P]`: a curl config on stdout that sends a fresh access token, for
/// `device-login curl-config | curl -K - URL`. The token goes through the pipe, never through any process's
/// arguments (where `curl -H "Authorization: Bearer $(device-login token)"` would show it to every user in `ps`).
enum CurlConfigCommand {
    static let spec = CommandSpec(
        name: "curl-config",
        summary: "Print a curl config that sends a fresh access token (for curl -K -).",
        options: HelperSession.options,
        discussion: """
            Prints one line on stdout, the header curl is to send:
              header = "Authorization: Bearer <token>"
            quoted by curl's config rules. The token is valid for at least 60 s (refreshed first when it
            would not be). Pipe it into curl, so that the token is in no command line:
              device-login curl-config | curl -sSf -K - https://api.example.com/v1/items
              device-login curl-config --profile work | curl -K - https://api.example.com/
            With no profile or an ended session it fails at once (exit 77, one line naming the login
            command) and prints nothing, so curl sends no Authorization header.
            """,
        run: run
    )

    @Sendable static func run(_ options: ParsedOptions, _ context: CLIContext) async throws -> ExitCode {
        let session = try await HelperSession.open(options, command: "curl-config", context: context)
        let (token, _) = try await session.freshToken()
        try context.stdout.write(try CurlConfig.authorization(bearer: token))
        return .success
    }

    /// The answer from the stored token, for ``FastLane``: `--profile` only.
    static func fastAnswer(_ arguments: [String], process: FastLane.Process) -> FastLane.Answer? {
        guard let options = FastLane.options(arguments, for: spec, allowing: ["profile"], process: process),
            let (token, _) = FastLane.storedToken(options, lifetime: HelperSession.minimumLifetime, process: process)
        else { return nil }
        return (try? CurlConfig.authorization(bearer: token)).map { FastLane.Answer(text: $0) }
    }
}
