/// The environment a child process of device-login starts with — `exec`'s command, the notify hook
/// (`login --notify-command`): device-login's own, without the variables that carry a secret device-login reads.
///
/// Every option can come from the environment (`--client-secret` is `DEVICE_LOGIN_CLIENT_SECRET`), so a client
/// secret or a `--header` value given that way would otherwise reach every program device-login starts, which has
/// no use for it. `exec`'s token and proof variables are removed too: one inherited from an outer `exec` is another
/// run's, and the command gets the one it asked for (set after this). Everything else is passed on as it is.
enum ChildEnvironment {
    /// The options whose value is, or may hold, a secret: the client secret, and `--header` (`NAME:VALUE`, often an
    /// API key). `--client-secret-file` is a path, not a secret.
    static let secretOptions = ["client-secret", "header"]

    /// The variable `exec` puts the token in when `--env` names no other (``ExecCommand/defaultVariable``).
    static let tokenVariable = "DEVICE_LOGIN_ACCESS_TOKEN"
    /// The variable `exec` puts the DPoP proof `--dpop-url` asks for in (``ExecCommand/proofVariable``).
    static let proofVariable = "DEVICE_LOGIN_DPOP_PROOF"

    /// The variables no child inherits: those of ``secretOptions``, and the ones `exec` writes a token or a proof
    /// into (``tokenVariable``, ``proofVariable``).
    static let secretVariables: [String] =
        secretOptions.map(OptionSpec.environmentVariable)
        + [tokenVariable, proofVariable]

    /// `environment` without ``secretVariables``.
    static func forChild(_ environment: [String: String]) -> [String: String] {
        environment.filter { !secretVariables.contains($0.key) }
    }
}
