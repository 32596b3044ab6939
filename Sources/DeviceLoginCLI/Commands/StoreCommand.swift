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
            keyring: it survives logout, not reboot. A profile not signed in exits 77.
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
        let offer = TokenStoreChoice.Offer(
            secretServiceUnlocked: false, secretServiceAnswers: false,
            keyringUsable: target == .keyring && store.keyringStore.isUsable())
        if case .unavailable(_, let reason) = TokenStoreChoice.choose(.exactly(target), offer: offer) {
            throw DeviceLoginError(.storage, "cannot move the tokens to the \(target.place): \(reason)")
        }
        let moved = try await store.withExclusiveAccess(profile: name) { () async throws -> TokenStoreKind? in
            guard var record = try await store.load(profile: name), record.tokens != nil else { return nil }
            let source = record.profile.tokenStore
            guard source != target else { return source }
            record.profile.tokenStore = target
            try await store.save(record)
            if source != .file { try store.removeKeyStoreCopies(profile: name) }
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
