import DeviceLogin

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `device-login login`: sign in with the device flow, print the result on stdout, save the tokens.
enum LoginCommand {
    static let spec = CommandSpec(
        name: "login",
        summary: "Sign in with the OAuth 2.0 device flow and save the tokens as a profile.",
        options: LoginSettings.options,
        discussion: """
            The sign-in prompt (the code, where to enter it, a QR code) goes to stderr; the result goes to
            stdout: a short confirmation, or with --json the token response as received plus an absolute
            expires_at, so `device-login login --json | jq` works. Plain http:// is accepted for loopback
            hosts only, unless --allow-insecure-http. The tokens are saved to the profile (see
            `device-login status`) unless --no-store; the client secret only with --store-secret.

            With --dpop, a new P-256 key proves every request (RFC 9449): the server binds the tokens to it,
            so a copy of them is useless without the key, saved 0600 beside the profile (PROFILE.dpop.jwk).
            A server that answers with Bearer tokens is refused. Use the tokens with `dpop-proof`,
            `curl-config --url` or `exec --dpop-url`.

            Example:
              device-login login --issuer https://auth.example.com --client-id my-device-app
            """,
        exitCodes: ExitCode.signIn,
        run: { options, context in
            let settings = try await LoginSettings.parse(options)
            for warning in settings.warnings { context.stderr.line("device-login: warning: " + warning) }
            let transport = context.makeTransport(TransportOptions(caFile: settings.caFile))
            return try await perform(settings, transport: transport, context: context)
        }
    )

    /// Signs in, saves, and prints the result. Shared with `demo`.
    static func perform(
        _ settings: LoginSettings, transport: any HTTPTransport, context: CLIContext
    ) async throws -> ExitCode {
        var settings = settings
        try Profile.validate(name: settings.profile)
        // A new key for every sign-in: the tokens of an earlier one stay bound to theirs.
        settings.client.dpop = try settings.dpop ? newDPoPProver(now: context.now) : nil
        // Store problems found after the person approved would cost the tokens: look for them before any request.
        if settings.store {
            try await FileTokenStore(environment: context.environment).checkReady(profile: settings.profile)
        }
        let result = try await SignIn(settings: settings, context: context).run(transport: transport)
        var savedTo: String?
        let store = settings.store ? try FileTokenStore(environment: context.environment, clock: context.clock) : nil
        // A profile signed in again keeps its bindings and user name unless new ones are given. A saved profile
        // that cannot be read is replaced, as before: the sign-in the person just approved wins.
        let saved = try? await store?.load(profile: settings.profile)?.profile
        let profile = try Profile(
            name: settings.profile, issuer: settings.issuer, endpoints: result.endpoints,
            client: settings.client, storingSecret: settings.storeSecret,
            bindings: settings.bindings.isEmpty ? saved?.bindings ?? [] : settings.bindings,
            username: settings.username ?? saved?.username
        )
        // Without a store too: the state verifies the ID token, for the confirmation.
        let state = TokenState(
            profile: profile, client: settings.client, store: store, transport: transport,
            clock: context.clock, now: context.now
        )
        // The key before the record that needs it: a record of a DPoP sign-in is never without its key.
        if let store, let dpop = settings.client.dpop {
            try await saveKey(
                dpop, of: result, profile: profile, client: settings.client, store: store, transport: transport,
                context: context)
        }
        try await state.store(result.response, revokingIfNotSaved: true)
        if let store {
            // A key an earlier DPoP sign-in of the profile left is no use to this one's tokens.
            if settings.client.dpop == nil { try? await store.removeDPoPKey(profile: settings.profile) }
            savedTo = try store.filePath(profile: settings.profile)
        }
        let verification = await state.tokens?.idTokenVerification
        let output =
            settings.json
            ? try TokenOutput.json(result.response, receivedAt: result.receivedAt)
            : summary(result, verification: verification)
        do throws(ResultSink.WriteError) {
            try context.stdout.line(output)
        } catch {
            // The only copy of the tokens may be the one that was just lost: say where they are, if anywhere.
            let code = CLI.unwritten(error, context: context)
            if let savedTo {
                context.stderr.line(
                    "The tokens are saved in profile '\(settings.profile)' (\(savedTo)): "
                        + "`device-login token --profile \(settings.profile)` prints the access token.")
            } else {
                context.stderr.line(
                    "The tokens were not saved anywhere (nothing is stored), so they are lost: "
                        + "sign in again.")
            }
            return code
        }
        if let savedTo {
            context.stderr.line("Saved to profile '\(settings.profile)' (\(savedTo)).")
        }
        return .success
    }

    /// Saves the DPoP key the sign-in's tokens are bound to. When it cannot be saved, the tokens are useless: they
    /// are revoked at the server (as ``TokenState/store(_:revokingIfNotSaved:)`` does with tokens it cannot save),
    /// and the error says so.
    /// - Throws: The store's ``DeviceLoginError``, saying what became of the tokens.
    private static func saveKey(
        _ dpop: DPoPProver, of result: SignIn.Result, profile: Profile, client: ClientConfiguration,
        store: FileTokenStore, transport: any HTTPTransport, context: CLIContext
    ) async throws {
        do {
            try await store.saveDPoPKey(dpop.key, profile: profile.name)
        } catch var error as DeviceLoginError {
            let memory = TokenState(
                profile: profile, client: client, store: nil, transport: transport, clock: context.clock,
                now: context.now
            )
            try await memory.store(result.response)
            let revoked = (try? await memory.signOut())?.isComplete == true
            error.message +=
                revoked
                ? "; the new tokens, bound to the key that could not be saved, were revoked at the server"
                : "; the new tokens, bound to the key that could not be saved, could not all be revoked"
            throw error
        }
    }

    /// A prover with a new P-256 key, for a sign-in with `--dpop`.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/configuration`` (exit 78) when no key can be
    ///   made (libcrypto missing).
    static func newDPoPProver(now: @escaping @Sendable () -> Date) throws -> DPoPProver {
        do {
            return try DPoPProver(key: try ECP256PrivateKey.generate(), now: now)
        } catch {
            throw DeviceLoginError(
                .configuration, "no DPoP key could be made: \(error.message)",
                hint: error.code == .libraryUnavailable ? "install OpenSSL 3 (libssl3)" : nil
            )
        }
    }

    /// The confirmation printed on stdout: who signed in where, without any token. Who comes only from a verified
    /// ID token (`verification`, the verdict ``TokenState/store(_:revokingIfNotSaved:)`` reached).
    static func summary(_ result: SignIn.Result, verification: IDTokenVerification?) -> String {
        let token = result.endpoints.token
        let host = (token.host ?? "the server") + (token.port.map { ":\($0)" } ?? "")
        var line = "Signed in to \(TerminalText.clean(host))"
        let user = TokenOutput.signedInUser(idToken: result.response.idToken, verification: verification)
        if let label = user.label { line += " as \(label)" }
        if let problem = user.problem { line += " (the ID token was not verified: \(problem))" }
        if let expiresIn = result.response.expiresIn {
            line += "; the access token is valid for \(TokenOutput.duration(seconds: expiresIn))"
        }
        if result.response.isDPoP { line += "; the tokens are bound to a DPoP key" }
        return line + "."
    }
}
