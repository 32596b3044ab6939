import DeviceLogin

/// A command needs a sign-in that it will not start itself: the profile is missing, signed out, or its session
/// ended. ``CLI`` reports it as one line that names the command to run, and exits 77 (``ExitCode/notSignedIn``).
///
/// This is the non-interactive contract of `token` and of every integration helper: a program that called them
/// (git, kubectl, docker, a script) gets an answer at once, never a wait for a person who is not there.
struct SignInNeeded: Error, Sendable {
    /// What is missing: `not signed in: there is no profile 'work'`.
    var message: String
    /// The command that signs in: ``CLIHints/loginCommand(profile:saved:)``.
    var loginCommand: String
    /// Whether there is no such profile at all (not one without tokens): `logout` has nothing to sign out.
    var profileIsMissing: Bool

    /// The one line written to stderr.
    var line: String { "device-login: \(message); sign in with: \(loginCommand)" }

    /// For profile `name`, which is `saved` as given (nil when there is no such profile).
    init(profile name: String, saved: Profile?, message: String? = nil) {
        self.message =
            message
            ?? (saved == nil
                ? "not signed in: there is no profile '\(name)'"
                : "not signed in: profile '\(name)' has no tokens (signed out, or the session ended)")
        self.loginCommand = CLIHints.loginCommand(profile: name, saved: saved)
        self.profileIsMissing = saved == nil
    }

    /// The sign-in `error` asks for, when it is one the user must start (``DeviceLoginError/Code/noSession`` or
    /// ``DeviceLoginError/Code/sessionEnded``); nil for any other error.
    init?(_ error: DeviceLoginError, profile: Profile) {
        guard error.code == .noSession || error.code == .sessionEnded else { return nil }
        // The library's messages end by telling the reader to sign in again; the line says how, once.
        var message = Substring(error.message)
        if message.hasSuffix("; sign in again") { message = message.dropLast("; sign in again".count) }
        self.init(profile: profile.name, saved: profile, message: String(message))
    }
}
