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

            With --detach, the code is shown once, the pending sign-in is saved with the profile
            (PROFILE.pending, 0600) and login exits 0 at once; `login --resume` later polls until the
            sign-in is approved, denied or expired, and finishes as login would have. One process polls a
            pending sign-in at a time: another --resume exits 75.

            For programs that draw the code themselves (a kiosk, an appliance's screen, a tool in another
            language), --events writes the sign-in as JSON lines on stdout ("v": 1: authorization, polling,
            pending, slow_down, retrying, then succeeded or failed; never a token); --quiet leaves out the
            prompt. --notify-command CMD hands the authorization event to CMD's stdin once the code is ready,
            e.g. to send it to a phone. See docs/events.md.

            --provider fills the endpoints and quirks of a known provider (see `device-login providers`); what
            is given explicitly (--issuer, the endpoint options, --scope) wins. No client ID ships with a
            preset: --client-id stays your own app's. --dry-run prints the endpoints, scopes, parameters and
            client a sign-in would use, and sends nothing.

            Examples:
              device-login login --issuer https://auth.example.com --client-id my-device-app
              device-login login --provider github --client-id YOUR_APP_CLIENT_ID
            """,
        exitCodes: ExitCode.signIn + [.busy, .notSignedIn],
        exitMeanings: [.notSignedIn: "login --resume: there is no pending sign-in for the profile"],
        run: { options, context in
            if options.flag("resume") { return try await DetachedSignIn.resume(options, context: context) }
            let settings = try await LoginSettings.parse(options)
            for warning in settings.warnings { context.stderr.line("device-login: warning: " + warning) }
            if options.flag("dry-run") {
                let code = try LoginDryRun(settings, context: context)
                    .write(json: settings.json, to: context)
                // The preview said what is missing; its exit code says the sign-in itself would not start.
                if let missing = settings.missingClientID { throw missing }
                return code
            }
            let transport = context.makeTransport(TransportOptions(caFile: settings.caFile))
            return try await perform(settings, transport: transport, context: context)
        }
    )

    /// Signs in, saves, and prints the result. Shared with `demo`. With `--events`, an error that ends the sign-in
    /// is also written on stdout, as the `failed` event.
    static func perform(
        _ settings: LoginSettings, transport: any HTTPTransport, context: CLIContext
    ) async throws -> ExitCode {
        guard settings.presentation.events else {
            return try await signIn(settings, transport: transport, context: context)
        }
        do {
            return try await signIn(settings, transport: transport, context: context)
        } catch {
            // Best effort: the error itself still reaches stderr and the exit code, whatever becomes of this line.
            if let line = EventLines(context: context).failedLine(for: error) { try? context.stdout.line(line) }
            throw error
        }
    }

    private static func signIn(
        _ settings: LoginSettings, transport: any HTTPTransport, context: CLIContext
    ) async throws -> ExitCode {
        var settings = settings
        try Profile.validate(name: settings.profile)
        // A new key for every sign-in: the tokens of an earlier one stay bound to theirs.
        settings.client.dpop = try settings.dpop ? newDPoPProver(now: context.now) : nil
        // Store problems found after the person approved would cost the tokens: look for them before any request.
        if settings.store {
            try await context.tokenStore().checkReady(profile: settings.profile)
            _ = try await chooseStore(settings, context: context)
            // The flow a profile was signed in with, when this login names none.
            if !settings.flowGiven, !settings.kiosk, !settings.detach,
                let saved = try? await context.tokenStore().load(profile: settings.profile)?.profile.flow,
                let flow = FlowChoice.Preference(rawValue: saved)
            {
                settings.flow = flow
            }
            // The redirect port it was signed in with, when this login names none.
            if settings.redirectPort == nil,
                let saved = try? await context.tokenStore().load(profile: settings.profile)?.profile.redirectPort
            {
                settings.redirectPort = saved
            }
        }
        if settings.detach { return try await DetachedSignIn.detach(settings, transport: transport, context: context) }
        let result = try await SignIn(settings: settings, context: context).run(transport: transport)
        return try await finish(result, settings: settings, transport: transport, context: context)
    }

    /// Saves the tokens of a sign-in that succeeded, and prints the result. Shared with `login --resume`, which
    /// finishes a detached sign-in exactly as `login` would have.
    static func finish(
        _ result: SignIn.Result, settings: LoginSettings, transport: any HTTPTransport, context: CLIContext
    ) async throws -> ExitCode {
        var savedTo: String?
        let store = settings.store ? try context.tokenStore() : nil
        // A profile signed in again keeps its bindings and user name unless new ones are given. A saved profile
        // that cannot be read is replaced, as before: the sign-in the person just approved wins.
        let saved = try? await store?.load(profile: settings.profile)?.profile
        let choice = settings.store ? try await chooseStore(settings, context: context) : nil
        var profile = try Profile(
            name: settings.profile, issuer: settings.issuer, endpoints: result.endpoints,
            client: settings.client, storingSecret: settings.storeSecret,
            bindings: settings.bindings.isEmpty ? saved?.bindings ?? [] : settings.bindings,
            username: settings.username ?? saved?.username,
            // A profile signed in again (no preset given) keeps the name of the preset it was first signed in with.
            provider: settings.provider?.preset ?? settings.resumedProvider
                ?? (settings.savedEndpoints == nil ? nil : saved?.provider)
        )
        if let choice { profile.tokenStore = choice.kind }
        profile.flow = settings.flow == .auto ? nil : settings.flow.rawValue
        profile.redirectPort = settings.redirectPort
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
            if settings.client.dpop == nil {
                try? await store.removeDPoPKey(profile: settings.profile)
                if profile.tokenStore != .file {
                    try? await store.removeDPoPKey(profile: settings.profile, in: profile.tokenStore)
                }
            }
            savedTo = try store.filePath(profile: settings.profile)
            // A profile that moved to the file leaves no copy in the key store it left.
            if let saved, saved.tokenStore != profile.tokenStore {
                try store.removeKeyStoreCopies(
                    profile: settings.profile, from: saved.tokenStore, to: profile.tokenStore)
            }
        }
        let verification = await state.tokens?.idTokenVerification
        let output: String
        if settings.presentation.events {
            // The scopes granted; when the server did not say, those asked for (RFC 6749 §5.1: then they are the same).
            let granted = result.response.scope.map { $0.split(separator: " ").map(String.init) }
            let asked = settings.client.effectiveScopes(for: result.endpoints)
            output = EventLines(context: context).succeededLine(
                result.response, receivedAt: result.receivedAt, profile: savedTo == nil ? nil : settings.profile,
                scopes: granted ?? asked)
        } else if settings.json {
            output = try TokenOutput.json(result.response, receivedAt: result.receivedAt)
        } else {
            output = summary(result, verification: verification)
        }
        do throws(ResultSink.WriteError) {
            try context.stdout.line(output)
        } catch {
            // The only copy of the tokens may be the one that was just lost: say where they are, if anywhere. Tokens
            // kept nowhere are revoked (RFC 7009, as `logout` does), as are those a store could not save
            // (`revokingIfNotSaved`): none stays valid with no copy anywhere. A reader that closed the pipe early lost
            // them too; they are revoked all the same, and nothing is said (the process ends by SIGPIPE, quietly).
            let code = ExitCode.unwritten(error, stderr: context.stderr)
            let revoked = savedTo == nil ? await revokeAll(state) : false
            if error.readerIsGone { return code }
            if let savedTo {
                context.stderr.line(
                    "The tokens are saved in profile '\(settings.profile)' (\(savedTo)): "
                        + "`device-login token --profile \(settings.profile)` prints the access token.")
            } else {
                context.stderr.line(
                    "The tokens were not saved anywhere (nothing is stored), and the tokens could not be written to "
                        + "standard output and "
                        + (revoked
                            ? "were revoked at the server: sign in again."
                            : "could not all be revoked at the server: those not revoked stay valid until they "
                                + "expire; sign in again."))
            }
            return code
        }
        // A line for people, like the prompt: --quiet leaves it out (errors and warnings still come).
        if let savedTo, !settings.presentation.quiet {
            context.stderr.line(
                "Saved to profile '\(settings.profile)' (\(savedTo))"
                    + (profile.tokenStore == .file ? "." : "; the tokens rest in the \(profile.tokenStore.place)."))
            if choice?.announced == true {
                context.stderr.line(
                    "The tokens rest in that file, readable by this user: no Secret Service answered with an "
                        + "unlocked collection" + (choice?.reason.map { " (\(TerminalText.clean($0)))" } ?? "")
                        + ". To keep them in the kernel keyring instead: device-login store "
                        + "--profile \(settings.profile) --to keyring (or login --store keyring).")
            }
        }
        return .success
    }

    /// The store a sign-in saves to (``TokenStoreChoice``): `--store`, else the saved profile's, else `auto`. Called
    /// before the sign-in starts, so that a store that cannot be used stops it before the person approves anything.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/storage`` for a store that cannot be used.
    static func chooseStore(
        _ settings: LoginSettings, context: CLIContext
    ) async throws -> (kind: TokenStoreKind, announced: Bool, reason: String?) {
        let store = try context.tokenStore()
        let saved = try? await store.load(profile: settings.profile)?.profile
        let request = settings.tokenStore ?? saved.map { .exactly($0.tokenStore) } ?? .auto
        // Only a request for the keyring asks the kernel: `auto` never creates the user's persistent keyring.
        let offer = await TokenStoreOffer.probe(request, store: store, context: context)
        switch TokenStoreChoice.choose(request, offer: offer.offer) {
        case .use(.secretService, _) where !offer.offer.secretServiceUnlocked && offer.askedToUnlock:
            throw DeviceLoginError(
                .storage,
                "cannot keep the tokens in the Secret Service: its default collection stayed locked (the service's "
                    + "unlock prompt was dismissed, or could not be shown)",
                hint: "run login again and give the collection's password when the service asks (its prompt needs "
                    + "the desktop session's display), or choose another store: --store keyring")
        case .use(.secretService, _) where !offer.offer.secretServiceUnlocked:
            throw DeviceLoginError(
                .storage, "cannot keep the tokens in the Secret Service: its default collection is locked",
                hint: "unlock it (sign in to the desktop session, or run login at a terminal, where the service asks "
                    + "for its password), or choose another store: --store keyring")
        case .use(let kind, let announced): return (kind, announced, offer.secretServiceReason)
        case .unavailable(let kind, let reason):
            throw DeviceLoginError(
                .storage, "cannot keep the tokens in the \(kind.place): \(offer.secretServiceReason ?? reason)",
                hint: "choose another store: --store " + (kind == .keyring ? "file" : "keyring"))
        }
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
            try await store.saveDPoPKey(dpop.key, profile: profile.name, in: profile.tokenStore)
        } catch var error as DeviceLoginError {
            let memory = TokenState(
                profile: profile, client: client, store: nil, transport: transport, clock: context.clock,
                now: context.now
            )
            try await memory.store(result.response)
            let revoked = await revokeAll(memory)
            error.message +=
                revoked
                ? "; the new tokens, bound to the key that could not be saved, were revoked at the server"
                : "; the new tokens, bound to the key that could not be saved, could not all be revoked"
            throw error
        }
    }

    /// Revokes the tokens `state` holds at the server (RFC 7009, ``TokenState/signOut(whenRevocationFails:)``, as
    /// `logout` does): for tokens that would otherwise stay valid with no usable copy anywhere.
    /// - Returns: Whether every token was revoked.
    private static func revokeAll(_ state: TokenState) async -> Bool {
        (try? await state.signOut())?.isComplete == true
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
