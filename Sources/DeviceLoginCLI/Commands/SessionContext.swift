import DeviceLogin

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A saved profile opened for `token`, `status`, `userinfo` and `logout`: the store, the record and a token state.
struct SessionContext: Sendable {
    /// Options every session command takes.
    static let commonOptions: [OptionSpec] =
        [
            .value("profile", "NAME", "The profile to use (default: default).")
        ] + ClientSecretOption.options("The client secret, when the profile does not store it.") + [
            .value("ca-file", "PEM", "Trust the CA certificates in this PEM file instead of the system's.")
        ]

    let store: FileTokenStore
    let record: ProfileRecord
    let state: TokenState

    /// Opens the profile named by `--profile` (default `default`) for `command`.
    /// - Throws: ``DeviceLoginError`` with ``DeviceLoginError/Code/noSession`` when the profile was never saved;
    ///   storage errors as the store gives them; a client secret's errors (``ClientSecretOption``).
    static func open(_ options: ParsedOptions, command: String, context: CLIContext) async throws -> SessionContext {
        let secret = try await ClientSecretOption.read(options, command: command)
        for warning in secret?.warnings ?? [] { context.stderr.line("device-login: warning: " + warning) }
        let name = options.value("profile") ?? Profile.defaultName
        try Profile.validate(name: name)
        let store = try FileTokenStore(environment: context.environment, clock: context.clock)
        context.trace("store", try store.filePath(profile: name))
        guard let record = try await store.load(profile: name) else {
            throw DeviceLoginError(
                .noSession, "not signed in: there is no profile '\(name)'",
                hint: "sign in with: device-login login --profile \(name) --issuer URL --client-id ID"
            )
        }
        if let tokens = record.tokens {
            context.trace("session", "access token " + StatusCommand.expiryText(tokens.expiresAt, now: context.now()))
        }
        let client = try record.profile.clientConfiguration(secret: secret?.value)
        let transport = context.makeTransport(TransportOptions(caFile: options.value("ca-file")))
        let state = TokenState(
            record: record, client: client, store: store, transport: transport, clock: context.clock,
            now: context.now
        )
        return SessionContext(store: store, record: record, state: state)
    }
}
