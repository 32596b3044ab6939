import DeviceLogin
import DeviceLoginTerminal

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a command may touch: the environment, the two output streams, and factories for the parts that tests
/// replace (transport, clock).
struct CLIContext: Sendable {
    /// The process environment (or a test's).
    var environment: [String: String]
    /// Standard input, for the commands that read a protocol from it.
    var stdin: StandardInput = .empty
    /// Standard output: results only (a token, JSON), so pipes get nothing else; a failed write throws.
    var stdout: ResultSink
    /// Standard error: the prompt, progress and errors.
    var stderr: TextSink
    /// What the terminal behind stderr can show.
    var terminal: TerminalCapabilities
    /// The width of the terminal behind standard output, or nil when stdout is not a terminal: help is wrapped to
    /// it (``HelpText/lineWidth(columns:)``).
    var stdoutColumns: Int? = nil
    /// Whether standard input is a terminal: with ``terminal``, whether a person may be there to answer
    /// (``Interactivity``).
    var stdinIsTerminal = false
    /// Makes the HTTP transport for the given options.
    var makeTransport: @Sendable (TransportOptions) -> any HTTPTransport
    /// The clock for waits and deadlines.
    var clock: any Clock<Duration>
    /// The wall clock.
    var now: @Sendable () -> Date
    /// Makes the terminal `login --kiosk` reads key presses and resizes from (``SystemKioskConsole`` by default).
    var kioskConsole: @Sendable () -> any KioskConsole = { SystemKioskConsole() }
    /// Whether `--verbose` asked for a trace on stderr (``trace(_:_:)``); see ``tracing()``.
    var verbose = false
    /// Holds the trace back while `login --kiosk` shows its screen (``TraceHold``); shared by copies of the context.
    var traceHold = TraceHold()
    /// What the fast lane prepared for the command before it left the answer to the full path: the command starts
    /// from there instead of parsing, reading or choosing again. Nil when the lane did not look.
    var plan: CommandPlan? = nil

    /// Reads standard input as ``StandardInput/read(limit:until:)`` does, unless the fast lane has read it for this
    /// command: then what it read, or its failure, is the answer, and the input is read once.
    func readInput(limit: Int, until isComplete: @escaping @Sendable ([UInt8]) -> Bool) async throws
        -> StandardInput.Read
    {
        if let read = plan?.input { return try read.get() }
        return try await stdin.read(limit: limit, until: isComplete)
    }

    /// The token store: the profiles' folder the environment names (`DEVICE_LOGIN_HOME`, else the XDG state
    /// folder), waiting for its locks on ``clock``. The one way a command gets it, so that no command drops the
    /// context's clock or reads another folder than its neighbours.
    /// - Throws: ``DeviceLoginError`` for an unusable `DEVICE_LOGIN_HOME` or home folder.
    func tokenStore() throws -> FileTokenStore {
        try FileTokenStore(environment: environment, clock: clock)
    }

    /// This context with `--verbose` on: ``trace(_:_:)`` writes, and every transport ``makeTransport`` makes is
    /// wrapped in a `TracingTransport`, whose lines (every token, code and secret redacted) go to stderr as
    /// `device-login: http: …`.
    func tracing() -> CLIContext {
        var traced = self
        traced.verbose = true
        let make = makeTransport
        let clock = clock
        let stderr = stderr
        let erase = terminal.allowsEscapes
        let hold = traceHold
        traced.makeTransport = { options in
            TracingTransport(wrapping: make(options), clock: clock) { line in
                Self.writeTrace("http", line, to: stderr, erasingLine: erase, hold: hold)
            }
        }
        return traced
    }

    /// Writes one line of the `--verbose` trace, `device-login: <topic>: <text>`, sanitised like every message
    /// (bounded at ``TerminalText/maximumTraceLength``); nothing without `--verbose`.
    func trace(_ topic: String, _ text: String) {
        guard verbose else { return }
        Self.writeTrace(topic, text, to: stderr, erasingLine: terminal.allowsEscapes, hold: traceHold)
    }

    /// On a terminal, the line is erased first: a trace line written while the prompt's status line is drawn
    /// takes its place, and the status line is drawn again below at its next tick. While `hold` holds (the kiosk
    /// screen is shown), the line waits there.
    private static func writeTrace(
        _ topic: String, _ text: String, to stderr: TextSink, erasingLine: Bool, hold: TraceHold
    ) {
        let line = "device-login: \(topic): " + TerminalText.clean(text, maxLength: TerminalText.maximumTraceLength)
        hold.route((live: (erasingLine ? "\r\u{1B}[2K" : "") + line, plain: line), to: stderr)
    }

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
