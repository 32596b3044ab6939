import DeviceLogin

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `device-login logout`: revoke the tokens at the server and delete the profile.
enum LogoutCommand {
    static let spec = CommandSpec(
        name: "logout",
        summary: "Revoke the tokens at the server (RFC 7009) and delete the saved profile.",
        options: SessionContext.commonOptions + [
            .flag("local", "Delete the profile without telling the server.")
        ],
        discussion: """
            The refresh token is revoked first, then the access token, and then the profile is deleted,
            with its DPoP key file for a profile signed in with --dpop. When the server cannot revoke a
            token, the profile and its tokens are kept, the command says what failed and exits 69: try
            again later, or delete the profile anyway with --local (tokens not revoked stay valid at the
            server until they expire). A sign-in left pending by `login --detach` is abandoned too (its
            PROFILE.pending file deleted; a device code cannot be revoked, it just expires), also when
            no profile was saved yet; while a `login --resume` polls it, logout changes nothing and exits
            75. With neither a profile nor a pending sign-in there is nothing to sign out: it says so and
            exits 77.
            """,
        exitCodes: ExitCode.session + [.busy],
        exitMeanings: [
            .notSignedIn: "nothing to sign out: no such profile or pending sign-in is saved",
            .busy: "a `login --resume` is polling the profile's pending sign-in; nothing was changed",
        ],
        run: run
    )

    @Sendable static func run(_ options: ParsedOptions, _ context: CLIContext) async throws -> ExitCode {
        let session: SessionContext
        do {
            session = try await SessionContext.open(options, command: "logout", context: context, dpopKey: false)
        } catch let error as SignInNeeded where error.profileIsMissing {
            // Nothing to revoke: abandon a pending sign-in if there is one, else say so, rather than how to sign in.
            let name = options.value("profile") ?? Profile.defaultName
            let store = try context.tokenStore()
            return try await DetachedSignIn.busyAsExitCode(context: context) {
                guard try await abandonPending(profile: name, store: store, context: context) else {
                    context.report("nothing to sign out: there is no profile '\(name)'")
                    return .notSignedIn
                }
                try context.stdout.line("Signed out of profile '\(name)' (nothing was signed in yet).")
                return .success
            }
        }
        let name = session.record.profile.name
        return try await DetachedSignIn.busyAsExitCode(context: context) {
            try await signOut(session, profile: name, local: options.flag("local"), context: context)
        }
    }

    /// Revokes (unless `local`) and deletes the profile, and abandons its pending sign-in.
    private static func signOut(
        _ session: SessionContext, profile name: String, local: Bool, context: CLIContext
    ) async throws -> ExitCode {
        // The pending sign-in first: while a resume polls it, nothing is revoked or deleted (exit 75).
        _ = try await abandonPending(profile: name, store: session.store, context: context)
        if local {
            try await session.state.clearCredentials()
        } else {
            let result = try await session.state.signOut(whenRevocationFails: .keepTokens)
            for revocation in result.revocations {
                switch revocation.outcome {
                case .revoked:
                    context.stderr.line("Revoked the \(revocation.token).")
                case .skipped(let reason):
                    context.stderr.line("Not revoked: the \(revocation.token) (\(TerminalText.clean(reason))).")
                case .failed(let error):
                    context.stderr.line("Not revoked: the \(revocation.token): " + TerminalText.clean(error.message))
                }
            }
            if result.keptTokens {
                let local = "device-login logout --local" + (name == Profile.defaultName ? "" : " --profile \(name)")
                context.report(
                    "the server could not revoke every token; kept profile '\(name)' and its tokens",
                    hint: "try again later, or delete them anyway with `\(local)` (tokens not revoked stay valid at "
                        + "the server until they expire)"
                )
                return .unavailable
            }
        }
        try await session.store.remove(profile: name)
        try context.stdout.line("Signed out of profile '\(name)'" + (local ? " (locally)." : "."))
        return .success
    }

    /// Deletes profile `name`'s pending sign-in (`login --detach`), holding its polling lock so that no
    /// `login --resume` is polling it meanwhile (then the store throws `pendingSignInBusy`). RFC 8628 has no way to
    /// revoke a device code: deleting it is all there is, and it expires at the server.
    /// - Returns: Whether there was one.
    private static func abandonPending(profile name: String, store: FileTokenStore, context: CLIContext) async throws
        -> Bool
    {
        let path = try store.pendingPath(profile: name)
        // Looked at without the lock first, so that a logout with nothing pending creates no lock file.
        // (Any answer but "no such file" goes on to the locked deletion, which reports what is wrong.)
        guard access(path, F_OK) == 0 || errno != ENOENT else { return false }
        try await store.withPendingPolling(profile: name) {
            try await store.removePending(profile: name)
        }
        context.stderr.line("Abandoned the pending sign-in of profile '\(name)'.")
        return true
    }
}
