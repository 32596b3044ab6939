import DeviceLogin

/// `device-login store`: move a profile's tokens to another store (issue 21), leaving no copy in the one it left.
enum StoreCommand {
    static let spec = CommandSpec(
        name: "store",
        summary: "Move a profile's tokens to another store: the kernel keyring, the Secret Service or the file.",
        options: [
            .profile("whose tokens move"),
            .value(
                "to", "STORE", "Where the tokens go: keyring, secret-service or file.",
                choices: TokenStoreKind.allCases.map(\.rawValue)),
        ],
        discussion: """
            The profile's settings and bindings stay in its file; its refresh, access and ID tokens move to the
            store named, which the profile then remembers (`status` shows it). The tokens are written to the new
            store first and only then deleted from the old one, under the profile's lock, so no refresh of another
            process runs in between and a kill leaves a working copy. keyring is the user's persistent kernel
            keyring: it survives logout, not reboot. secret-service is the Secret Service's default collection,
            which must be unlocked; the access token alone is also copied to the kernel keyring, for the fast path.
            A profile not signed in exits 77.
            """,
        exitCodes: [.failure, .usage, .ioError, .notSignedIn, .configuration] + ExitCode.stopped,
        exitMeanings: [.notSignedIn: "the profile is not saved, or has no tokens to move"],
        run: run
    )

    @Sendable static func run(_ options: ParsedOptions, _ context: CLIContext) async throws -> ExitCode {
        let name = options.value("profile") ?? Profile.defaultName
        try Profile.validate(name: name)
        guard let text = options.value("to") else { throw UsageError("missing --to STORE", command: "store") }
        guard let target = TokenStoreKind(rawValue: text) else {
            throw UsageError("--to must be keyring, secret-service or file, not '\(text)'", command: "store")
        }
        let store = try context.tokenStore()
        let offer = await TokenStoreOffer.probe(.exactly(target), store: store, context: context)
        if case .unavailable(_, let reason) = TokenStoreChoice.choose(.exactly(target), offer: offer.offer) {
            throw DeviceLoginError(
                .storage, "cannot move the tokens to the \(target.place): \(offer.secretServiceReason ?? reason)")
        }
        if target == .secretService, !offer.offer.secretServiceUnlocked {
            throw DeviceLoginError(
                .storage, "cannot move the tokens to the Secret Service: its default collection is locked",
                hint: "unlock it (sign in to the desktop session), then run this again")
        }
        let moved = try await store.withExclusiveAccess(profile: name) { () async throws -> TokenStoreKind? in
            guard var record = try await store.load(profile: name), record.tokens != nil else { return nil }
            let source = record.profile.tokenStore
            guard source != target else { return source }
            // The DPoP key goes with the tokens it binds: written to the new store before the old copies go.
            let key = record.profile.usesDPoP ? try await store.loadDPoPKey(profile: name, in: source) : nil
            record.profile.tokenStore = target
            try await store.save(record)
            if let key { try await store.saveDPoPKey(key, profile: name, in: target) }
            try store.removeKeyStoreCopies(profile: name, from: source, to: target)
            return source
        }
        guard let moved else {
            context.report("profile '\(name)' has no tokens to move")
            context.stderr.line("Sign in with: " + CLIHints.loginCommand(profile: name, saved: nil))
            return .notSignedIn
        }
        try context.stdout.line(
            moved == target
                ? "The tokens of profile '\(name)' already rest in the \(target.place)."
                : "Moved the tokens of profile '\(name)' to the \(target.place); no other copy remains.")
        return .success
    }
}
