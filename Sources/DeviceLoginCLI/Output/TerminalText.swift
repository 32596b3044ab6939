import DeviceLogin
import DeviceLoginTerminal

/// Text on its way to the terminal: everything that may hold a server's words passes through here.
enum TerminalText {
    /// The bound on a message: 1,024 Unicode scalars.
    static let maximumLength = 1024
    /// The bound on a line of the `--verbose` trace, which holds up to 2,000 characters of a body: 4,096 scalars.
    static let maximumTraceLength = 4096

    /// The text with every secret this process holds replaced by a marker (``KnownSecrets``: a server may repeat a
    /// token, the device code or the client secret in its error), controls, escape sequences and bidi overrides
    /// removed, bounded in length; scrubbed once more after sanitising, in case escapes had split a secret.
    static func clean(_ text: String, maxLength: Int = maximumLength) -> String {
        KnownSecrets.scrub(Sanitizer.sanitize(KnownSecrets.scrub(text), maxLength: maxLength))
    }
}

extension TextSink: TerminalOutput {}
