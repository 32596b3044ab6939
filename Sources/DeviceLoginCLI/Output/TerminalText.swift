import DeviceLogin
import DeviceLoginTerminal

/// Text on its way to the terminal: everything that may hold a server's words passes through here.
enum TerminalText {
    /// The bound on a message: 1,024 Unicode scalars.
    static let maximumLength = 1024
    /// The bound on a line of the `--verbose` trace, which holds up to 2,000 characters of a body: 4,096 scalars.
    static let maximumTraceLength = 4096

    /// The text with controls, escape sequences and bidi overrides removed, bounded in length.
    static func clean(_ text: String, maxLength: Int = maximumLength) -> String {
        Sanitizer.sanitize(text, maxLength: maxLength)
    }
}

extension TextSink: TerminalOutput {}
