import DeviceLogin

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The tool's exit codes, after BSD sysexits where one fits, and 128 + N for signal N. Documented in `--help` and
/// docs/cli.md.
///
/// A struct over the status rather than an enum: `exec` exits with whatever status its command ended with (0 to
/// 255), so the type must hold any of them. The tool's own codes are the static members; ``allCases`` lists them
/// for `--help`.
struct ExitCode: RawRepresentable, Hashable, CaseIterable, Sendable {
    /// The process's exit status.
    let rawValue: Int32

    /// The exit code with status `rawValue`.
    init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// Success.
    static let success = ExitCode(.success)
    /// A failure not covered below.
    static let failure = ExitCode(.failure)
    /// The command line was wrong (EX_USAGE).
    static let usage = ExitCode(.usage)
    /// The user denied the sign-in request.
    static let denied = ExitCode(.denied)
    /// The code expired before it was approved.
    static let expired = ExitCode(.expired)
    /// The network or the server failed (EX_UNAVAILABLE).
    static let unavailable = ExitCode(.unavailable)
    /// Input or output failed (EX_IOERR): token storage, or writing the result to standard output.
    static let ioError = ExitCode(.ioError)
    /// Another process is already polling this pending sign-in (`login --resume`); try again later (EX_TEMPFAIL).
    static let busy = ExitCode(.busy)
    /// The server answered with an error or something that is not OAuth (EX_PROTOCOL).
    static let protocolError = ExitCode(.protocolError)
    /// Not signed in, or the session ended: sign in again (EX_NOPERM).
    static let notSignedIn = ExitCode(.notSignedIn)
    /// The configuration is wrong: issuer, endpoints, HTTPS policy (EX_CONFIG).
    static let configuration = ExitCode(.configuration)
    /// Stopped by SIGHUP: the terminal went away (128 + 1).
    static let hangUp = ExitCode(rawValue: 129)
    /// Cancelled with Ctrl-C (128 + SIGINT).
    static let cancelled = ExitCode(.cancelled)
    /// Stopped with Ctrl-\\ (128 + SIGQUIT), cleanly: no core file, no crash report.
    static let quit = ExitCode(rawValue: 131)
    /// The reader of standard output closed it early (`device-login status | head -3`): the process ends quietly
    /// by SIGPIPE, as `git log | head` does, so a shell sees 141 (128 + 13) and prints nothing
    /// (``CLIProcess/end(_:)``).
    static let readerGone = ExitCode(rawValue: 141)
    /// Stopped by SIGTERM, which `timeout`, `kill` and service managers send (128 + 15).
    static let terminated = ExitCode(rawValue: 143)

    /// The tool's own codes, in the order `--help` lists them. (`exec` also exits with its command's status.)
    static let allCases: [ExitCode] = [
        .success, .failure, .usage, .denied, .expired, .unavailable, .ioError, .busy, .protocolError, .notSignedIn,
        .configuration, .hangUp, .cancelled, .quit, .readerGone, .terminated,
    ]

    /// The codes of a process stopped by a signal the tool handles: every command that waits on a person, the
    /// network or a child can end with one of them.
    static let stopped: [ExitCode] = [.hangUp, .cancelled, .quit, .terminated]

    /// The codes of a command that opens a saved profile and may refresh its tokens (`token`, the helpers): a
    /// failure of the network, the server, the store or the configuration, a sign-in needed, or a signal.
    static let session: [ExitCode] =
        [.failure, .unavailable, .ioError, .protocolError, .notSignedIn, .configuration] + stopped

    /// The codes of a command that signs in with the device flow (`login`, `demo`).
    static let signIn: [ExitCode] =
        [.failure, .denied, .expired, .unavailable, .ioError, .protocolError, .configuration] + stopped

    /// The exit code of a status the C library shares (`ExitStatus`).
    init(_ status: ExitStatus) {
        rawValue = status.rawValue
    }

    /// The exit code for a library error: the core's one table (`ExitStatus`), which the C library follows too.
    init(_ error: DeviceLoginError) {
        self.init(ExitStatus(error))
    }

    /// The exit code of a process that `signal` stopped: 128 + its number, for each signal the tool handles
    /// (SIGHUP, SIGINT, SIGQUIT, SIGTERM); nil for any other.
    init?(stoppedBy signal: Int32) {
        switch signal {
        case SIGHUP: self = .hangUp
        case SIGINT: self = .cancelled
        case SIGQUIT: self = .quit
        case SIGTERM: self = .terminated
        default: return nil
        }
    }

    /// One line for `--help`.
    var meaning: String {
        switch self {
        case .success: return "success"
        case .failure: return "other failure"
        case .usage: return "usage error (unknown or missing option)"
        case .denied: return "the sign-in request was denied"
        case .expired: return "the code expired before it was approved"
        case .unavailable: return "network or server failure"
        case .ioError: return "token storage failure, or the result could not be written to stdout"
        case .busy: return "another process is already waiting for this pending sign-in (login --resume)"
        case .protocolError: return "the server answered with an error or an unreadable response"
        case .notSignedIn: return "not signed in, or the session ended: sign in again"
        case .configuration: return "configuration error (issuer, endpoints, HTTPS policy)"
        case .hangUp: return "stopped by SIGHUP (the terminal closed)"
        case .cancelled: return "cancelled (Ctrl-C)"
        case .quit: return "stopped with Ctrl-\\ (SIGQUIT)"
        case .readerGone: return "the reader of stdout closed it early (SIGPIPE, as git log | head)"
        case .terminated: return "stopped by SIGTERM"
        default: return "exit status \(rawValue)"
        }
    }
}

extension ExitCode {
    /// Says on `stderr` that the result could not be written and returns ``ioError``; for a reader that closed the
    /// pipe early (``ResultSink/WriteError/readerIsGone``) says nothing and returns ``readerGone``. For a process
    /// without a context (the fast lane); ``CLI/unwritten(_:context:)`` with one.
    static func unwritten(_ error: ResultSink.WriteError, stderr: TextSink) -> ExitCode {
        guard !error.readerIsGone else { return .readerGone }
        stderr.line("device-login: " + error.message)
        return .ioError
    }
}
