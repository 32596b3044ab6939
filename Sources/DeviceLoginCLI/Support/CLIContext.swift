#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import DeviceLogin
import DeviceLoginTerminal

/// What a command may touch: the environment, the two output streams, and factories for the parts that tests
/// replace (transport, clock).
struct CLIContext: Sendable {
    /// The process environment (or a test's).
    var environment: [String: String]
    /// Standard output: results only (a token, JSON), so pipes get nothing else; a failed write throws.
    var stdout: ResultSink
    /// Standard error: the prompt, progress and errors.
    var stderr: TextSink
    /// What the terminal behind stderr can show.
    var terminal: TerminalCapabilities
    /// Makes the HTTP transport for the given options.
    var makeTransport: @Sendable (TransportOptions) -> any HTTPTransport
    /// The clock for waits and deadlines.
    var clock: any Clock<Duration>
    /// The wall clock.
    var now: @Sendable () -> Date

    /// Writes an error to stderr: `device-login: <message>`, then the hint in the CLI's words (``CLIHints``) on its
    /// own line.
    func report(_ error: DeviceLoginError) {
        report(error.message, hint: CLIHints.hint(for: error))
    }

    /// Writes a failure to stderr: `device-login: <message>`, then `hint: <hint>` on its own line when there is one.
    func report(_ message: String, hint: String? = nil) {
        stderr.line("device-login: " + TerminalText.clean(message))
        if let hint { stderr.line("hint: " + TerminalText.clean(hint)) }
    }
}
