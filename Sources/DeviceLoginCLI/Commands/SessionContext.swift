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
            .profile("to use")
        ] + ClientSecretOption.options("The client secret, when the profile does not store it.") + [
            .value("ca-file", "PEM", "Trust the CA certificates in this PEM file instead of the system's.")
        ]

    let store: FileTokenStore
    let record: ProfileRecord
    let state: TokenState

    /// Opens the profile named by `--profile` (default `default`) for `command`.
    /// - Parameters:
    ///   - options: The command's parsed options.
    ///   - command: The command, for the errors' wording.
    ///   - context: The CLI's context: its store, transport and clock.
    ///   - dpopKey: Whether to read the DPoP key of a profile that uses DPoP (``readDPoPKey(_:store:context:)``);
    ///     `logout`, which needs none to revoke, does not, so that a broken key file never keeps a profile.
    /// - Throws: ``SignInNeeded`` when the profile was never saved;
    ///   storage errors as the store gives them; a client secret's errors (``ClientSecretOption``).
    static func open(
        _ options: ParsedOptions, command: String, context: CLIContext, dpopKey: Bool = true
    ) async throws -> SessionContext {
        // The secret first: a secret option that cannot work is reported whether or not the profile exists.
        let secret = try await readSecret(options, command: command, context: context)
        let name = options.value("profile") ?? Profile.defaultName
        try Profile.validate(name: name)
        let store = try context.tokenStore()
        context.trace("store", try store.filePath(profile: name))
        // The record the fast lane read for this profile, when it read one: the profile is read once.
        var record = context.plan?.record(named: name)
        if record == nil { record = try await store.load(profile: name) }
        guard let record else {
            throw SignInNeeded(profile: name, saved: nil)
        }
        return try await open(
            record, store: store, options: options, secret: secret, context: context, dpopKey: dpopKey)
    }

    /// Reads the client secret options (``ClientSecretOption``), writing their warnings to stderr.
    static func readSecret(_ options: ParsedOptions, command: String, context: CLIContext) async throws -> String? {
        let secret = try await ClientSecretOption.read(options, command: command)
        for warning in secret?.warnings ?? [] { context.stderr.line("device-login: warning: " + warning) }
        return secret?.value
    }

    /// Opens a profile already loaded from `store` with the client secret given (``readSecret(_:command:context:)``):
    /// makes the transport and the token state, with the profile's DPoP key when it uses one and `dpopKey`.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/configuration`` when the profile needs a
    ///   secret that is neither stored nor given; the errors of ``readDPoPKey(_:store:context:)``.
    static func open(
        _ record: ProfileRecord, store: FileTokenStore, options: ParsedOptions, secret: String?, context: CLIContext,
        dpopKey: Bool = true
    ) async throws -> SessionContext {
        if let tokens = record.tokens {
            context.trace("session", "access token " + StatusCommand.expiryText(tokens.expiresAt, now: context.now()))
        }
        var client = try record.profile.clientConfiguration(secret: secret)
        if dpopKey, record.profile.usesDPoP {
            client.dpop = try await readDPoPKey(record, store: store, context: context)
        }
        let transport = context.makeTransport(TransportOptions(caFile: options.value("ca-file")))
        let state = TokenState(
            record: record, client: client, store: store, transport: transport, clock: context.clock,
            now: context.now
        )
        return SessionContext(store: store, record: record, state: state)
    }

    /// The DPoP key of a profile that uses DPoP, as a prover for its requests.
    /// - Throws: ``SignInNeeded`` when the key file is missing (the tokens are useless without it); the store's
    ///   errors for a key file that is unsafe or unreadable; ``DeviceLoginError`` with code
    ///   ``DeviceLoginError/Code/configuration`` without libcrypto.
    static func readDPoPKey(
        _ record: ProfileRecord, store: FileTokenStore, context: CLIContext
    ) async throws -> DPoPProver {
        let name = record.profile.name
        let kind = record.profile.tokenStore
        let place = try store.dpopKeyPlace(profile: name, in: kind)
        context.trace("dpop", "key " + place)
        guard let key = try await store.loadDPoPKey(profile: name, in: kind) else {
            throw SignInNeeded(
                profile: name, saved: record.profile,
                message: "profile '\(name)' uses DPoP, but its key "
                    + (kind == .file ? "file \(place)" : "(\(place))") + " is missing")
        }
        do {
            return try DPoPProver(key: key, now: context.now)
        } catch {
            throw DeviceLoginError(.configuration, "the DPoP key of profile '\(name)' cannot be used: \(error.message)")
        }
    }

    /// Runs `body`, turning the errors that ask for a new sign-in (the profile has no tokens, the server ended
    /// the session) into ``SignInNeeded``, which names the `login` command to run.
    func needingSignIn<Value: Sendable>(_ body: () async throws -> Value) async throws -> Value {
        do {
            return try await body()
        } catch let error as DeviceLoginError {
            if let needed = SignInNeeded(error, profile: record.profile) { throw needed }
            throw error
        }
    }
}
