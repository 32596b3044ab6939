import DeviceLogin

/// Why a `dl_…` call failed: its status (the CLI's exit-code meanings, docs/cli.md) and a message for people.
///
/// The statuses are those of `device-login`: a C caller branches on the same numbers a shell script does. The message
/// is sanitised and holds no secret (``DeviceLoginError`` never carries one; ``KnownSecrets`` scrubs what a server
/// repeated).
struct EmbeddedFailure: Error, Sendable, Equatable {
    /// The status the call returns.
    var status: Int32
    /// What happened.
    var message: String

    /// Success (`DL_OK`).
    static let ok = ExitStatus.success.rawValue

    /// Bad input (`DL_USAGE`).
    static func usage(_ message: String) -> EmbeddedFailure { EmbeddedFailure(.usage, message) }
    /// A configuration that cannot work (`DL_CONFIGURATION`).
    static func configuration(_ message: String) -> EmbeddedFailure {
        EmbeddedFailure(.configuration, message)
    }
    /// A sign-in already runs on the client (`DL_BUSY`).
    static func busy(_ message: String) -> EmbeddedFailure { EmbeddedFailure(.busy, message) }
    /// The sign-in was cancelled (`DL_CANCELLED`).
    static let cancelled = EmbeddedFailure(.cancelled, "the sign-in was cancelled")

    /// The failure for any error a call ends with.
    init(_ error: any Error) {
        switch error {
        case let failure as EmbeddedFailure: self = failure
        case let error as DeviceLoginError: self.init(error)
        case is CancellationError: self = .cancelled
        default: self.init(.failure, String(describing: error))
        }
    }

    /// A failure with `status` and `message`.
    init(status: Int32, message: String) {
        self.status = status
        self.message = message
    }

    /// A failure with `status` (the CLI's exit-code meanings) and `message`.
    init(_ status: ExitStatus, _ message: String) {
        self.init(status: status.rawValue, message: message)
    }

    /// The status `device-login` exits with for `error` (the core's one table, `ExitStatus`), and its message with
    /// the hint.
    init(_ error: DeviceLoginError) {
        self.init(ExitStatus(error), error.hint.map { "\(error.message) (\($0))" } ?? error.message)
    }

    /// The name of a status, as the header spells it (`dl_status_name`); nil for a number that is none.
    static func name(of status: Int32) -> StaticString? {
        switch ExitStatus(rawValue: status) {
        case .success: return "DL_OK"
        case .failure: return "DL_FAILURE"
        case .usage: return "DL_USAGE"
        case .denied: return "DL_DENIED"
        case .expired: return "DL_EXPIRED"
        case .unavailable: return "DL_UNAVAILABLE"
        case .ioError: return "DL_IO"
        case .busy: return "DL_BUSY"
        case .protocolError: return "DL_PROTOCOL"
        case .notSignedIn: return "DL_NOT_SIGNED_IN"
        case .configuration: return "DL_CONFIGURATION"
        case .cancelled: return "DL_CANCELLED"
        case nil: return nil
        }
    }
}
