import DeviceLogin

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
            server until they expire). With no such profile there is nothing to sign out: it says so
            and exits 77.
            """,
        exitCodes: ExitCode.session,
        exitMeanings: [.notSignedIn: "nothing to sign out: no such profile is saved"],
        run: run
    )

    @Sendable static func run(_ options: ParsedOptions, _ context: CLIContext) async throws -> ExitCode {
        let session: SessionContext
        do {
            session = try await SessionContext.open(options, command: "logout", context: context, dpopKey: false)
        } catch let error as SignInNeeded where error.profileIsMissing {
            // Nothing to revoke or delete: say so, rather than how to sign in.
            let name = options.value("profile") ?? Profile.defaultName
            context.report("nothing to sign out: there is no profile '\(name)'")
            return .notSignedIn
        }
        let name = session.record.profile.name
        if options.flag("local") {
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
        try context.stdout.line("Signed out of profile '\(name)'" + (options.flag("local") ? " (locally)." : "."))
        return .success
    }
}
