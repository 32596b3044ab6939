import DeviceLogin

/// `device-login pam-check FILE`: checks a PAM module configuration as the module's helper reads it (the same
/// ``PAMConfiguration/load(path:)``, permission checks included) and says what a sign-in would do. No request is
/// sent.
enum PAMCheckCommand {
    /// The command: its name, help, option table and exit codes.
    static let spec = CommandSpec(
        name: "pam-check",
        summary: "Check a pam_device_login.so configuration file and say what a sign-in would do.",
        positionalSynopsis: "[FILE]",
        maximumPositionals: 1,
        options: [],
        discussion: """
            FILE is /etc/device-login/pam.conf by default. The file must be owned by root or by the user running
            the check and writable by no one else; unknown keys, repeated keys and values out of bounds are
            refused, with the line. See docs/ssh.md.
            """,
        exitCodes: [.configuration],
        exitMeanings: [.configuration: "The configuration is refused; stderr says which line and why."],
        run: run
    )

    /// Loads and checks the file, then prints the summary; exit 78 with the reason on stderr when it is refused.
    @Sendable static func run(_ options: ParsedOptions, _ context: CLIContext) async throws -> ExitCode {
        let path = options.positionals.first ?? PAMConfiguration.defaultPath
        let configuration: PAMConfiguration
        do {
            configuration = try PAMConfiguration.load(path: path)
            _ = try configuration.clientSecret()
            _ = try configuration.userMap()
        } catch {
            context.stderr.line("device-login: pam-check: " + TerminalText.clean(error.description))
            return .configuration
        }
        for line in summary(configuration, path: path) { try context.stdout.line(TerminalText.clean(line)) }
        return .success
    }

    /// What a sign-in with `configuration` does, one line each.
    static func summary(_ configuration: PAMConfiguration, path: String) -> [String] {
        var lines = [
            "\(path): OK",
            "A sign-in with pam_device_login.so would:",
            "- discover the endpoints of \(configuration.issuer)"
                + (configuration.provider.map { " (provider preset \($0))" } ?? ""),
            "- ask for a code as client \(configuration.clientID)"
                + (configuration.clientSecretFile.map { " (secret from \($0))" } ?? " (a public client)")
                + " with scope \"\(configuration.scopes.joined(separator: " "))\"",
            "- show the link and code through the SSH session"
                + [.on: ", with a QR code", .off: "", .auto: ", with a QR code on a local terminal only"][
                    configuration.qr, default: ""] + ", answered with Enter",
            "- wait at most \(configuration.deadline) s for the approval",
            "- verify the ID token (the issuer's key set, iss, aud, exp)",
            "- let the user in only when its \(configuration.usernameClaim.rawValue) claim "
                + (configuration.usernameMap.map { "maps to the user's name in \($0)" } ?? "is the user's name")
                + (configuration.usernameClaim == .email ? " (and email_verified is true)" : ""),
        ]
        if !configuration.allowedGroups.isEmpty {
            lines.append(
                "- and its \(configuration.groupsClaim) claim names one of: "
                    + configuration.allowedGroups.joined(separator: ", "))
        }
        lines.append("- store nothing")
        return lines
    }
}
