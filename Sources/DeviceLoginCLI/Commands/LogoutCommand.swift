import DeviceLogin

/// `device-login logout`: revoke the tokens at the server and delete the profile.
enum LogoutCommand {
    static let spec = CommandSpec(
        name: "logout",
        summary: "Revoke the tokens at the server (RFC 7009) and delete the saved profile.",
        options: SessionContext.commonOptions + [
            .flag("local", "Delete the profile without telling the server."),
        ],
        discussion: """
            The refresh token is revoked first, then the access token. The profile is deleted even when the
            server cannot be reached; the command then says which tokens stay valid until they expire, and
            exits 69.
            """,
        run: run
    )

    @Sendable static func run(_ options: ParsedOptions, _ context: CLIContext) async throws -> ExitCode {
        let session = try await SessionContext.open(options, command: "logout", context: context)
        let name = session.record.profile.name
        var exit = ExitCode.success
        if options.flag("local") {
            try await session.state.clearCredentials()
        } else {
            let result = try await session.state.signOut()
            for revocation in result.revocations {
                switch revocation.outcome {
                case .revoked:
                    context.stderr.line("Revoked the \(revocation.token).")
                case .skipped(let reason):
                    context.stderr.line("Not revoked: the \(revocation.token) (\(TerminalText.clean(reason))).")
                case .failed(let error):
                    context.stderr.line("Not revoked: the \(revocation.token): " + TerminalText.clean(error.message))
                    exit = .unavailable
                }
            }
            if exit != .success {
                context.stderr.line("Those tokens stay valid at the server until they expire.")
            }
        }
        try await session.store.remove(profile: name)
        try context.stdout.line("Signed out of profile '\(name)'" + (options.flag("local") ? " (locally)." : "."))
        return exit
    }
}
