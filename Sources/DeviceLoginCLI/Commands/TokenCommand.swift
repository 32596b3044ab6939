import DeviceLogin

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `device-login token`: print a fresh access token, refreshing it when needed.
enum TokenCommand {
    static let spec = CommandSpec(
        name: "token",
        summary: "Print a fresh access token for a saved profile (refreshing it when needed).",
        options: SessionContext.commonOptions + [
            .value("resource", "URI", "Print an access token for this RFC 8707 resource."),
            .value(
                "min-ttl", "SECONDS",
                "Refresh unless the token stays valid this long (at least the 60 s refresh margin)."),
            .flag("json", "Print JSON (\"v\": 1): access_token, token_type, expires_at, scope, resource."),
        ],
        discussion: """
            Prints only the token (or JSON) on stdout, for scripts:
              curl -H "Authorization: Bearer $(device-login token)" https://api.example.com/
            A stored token that is still valid costs one file read and no network request. When many processes
            ask at once, exactly one refreshes (an advisory lock on the profile) and all print the same token.
            """,
        exitCodes: ExitCode.session,
        run: run
    )

    @Sendable static func run(_ options: ParsedOptions, _ context: CLIContext) async throws -> ExitCode {
        let minimumTTL = try minimumTTL(options)
        let session = try await SessionContext.open(options, command: "token", context: context)
        let token = try await session.needingSignIn {
            if let resource = options.value("resource") {
                return try await session.state.freshAccessToken(for: resource, minimumTTL: minimumTTL)
            }
            return try await session.state.freshAccessToken(minimumTTL: minimumTTL)
        }
        guard options.flag("json") else {
            try context.stdout.line(token)
            return .success
        }
        let tokens = await session.state.tokens
        // Version 1 (docs/cli.md): fixed keys; expires_at, scope and resource only when known.
        var object: JSONObject = ["v": .number(1), "access_token": .string(token)]
        if let resource = options.value("resource"), let entry = tokens?.resourceTokens[resource] {
            object["token_type"] = .string(entry.tokenType)
            if let expiry = entry.expiresAt { object["expires_at"] = .string(TokenOutput.timestamp(expiry)) }
            if let scope = entry.scope { object["scope"] = .string(scope) }
            object["resource"] = .string(resource)
        } else if let tokens {
            object["token_type"] = .string(tokens.tokenType)
            if let expiry = tokens.expiresAt { object["expires_at"] = .string(TokenOutput.timestamp(expiry)) }
            if let scope = tokens.scope { object["scope"] = .string(scope) }
        }
        try context.stdout.line(try TokenOutput.encode(object))
        return .success
    }

    /// The seconds `--min-ttl` accepts: none to a year.
    static let minimumTTLRange = 0...(86_400 * 365)

    /// `--min-ttl`, zero when not given.
    /// - Throws: ``UsageError`` for a value that is not a number of seconds from 0 to a year.
    static func minimumTTL(_ options: ParsedOptions) throws -> Duration {
        guard let text = options.value("min-ttl") else { return .zero }
        guard let seconds = Int(text), minimumTTLRange.contains(seconds) else {
            throw UsageError(
                "--min-ttl must be a whole number of seconds from \(minimumTTLRange.lowerBound) to"
                    + " \(minimumTTLRange.upperBound) (a year), not '\(text.prefix(40))'",
                command: "token")
        }
        return .seconds(seconds)
    }

    /// The answer from the stored token, for ``FastLane``: `--profile` and `--min-ttl` only.
    static func fastAnswer(_ arguments: [String], process: FastLane.Process) -> FastLane.Answer? {
        guard let options = FastLane.options(arguments, for: spec, allowing: ["profile", "min-ttl"], process: process),
            let minimumTTL = try? minimumTTL(options),
            let (token, _) = FastLane.storedToken(options, lifetime: minimumTTL, process: process)
        else { return nil }
        return FastLane.Answer(text: token + "\n")
    }
}
