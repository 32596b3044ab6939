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
    static let ok: Int32 = 0
    /// A failure not covered below (`DL_FAILURE`).
    static let failureStatus: Int32 = 1
    /// Bad input: a NULL pointer, text that is not UTF-8, settings that are too long or wrong (`DL_USAGE`).
    static let usageStatus: Int32 = 64
    /// The user denied the sign-in request (`DL_DENIED`).
    static let deniedStatus: Int32 = 65
    /// The code expired before it was approved (`DL_EXPIRED`).
    static let expiredStatus: Int32 = 66
    /// The network or the server failed (`DL_UNAVAILABLE`).
    static let unavailableStatus: Int32 = 69
    /// Token storage failed, or the event callback asked to stop (`DL_IO`).
    static let ioStatus: Int32 = 74
    /// The client is busy: a sign-in is already running on it (`DL_BUSY`).
    static let busyStatus: Int32 = 75
    /// The server answered with an error or something that is not OAuth (`DL_PROTOCOL`).
    static let protocolStatus: Int32 = 76
    /// Not signed in, or the session ended: sign in again (`DL_NOT_SIGNED_IN`).
    static let notSignedInStatus: Int32 = 77
    /// The configuration is wrong: issuer, endpoints, HTTPS policy (`DL_CONFIGURATION`).
    static let configurationStatus: Int32 = 78
    /// The sign-in was cancelled with `dl_cancel` (`DL_CANCELLED`, 128 + SIGINT as for Ctrl-C).
    static let cancelledStatus: Int32 = 130

    /// Bad input (`DL_USAGE`).
    static func usage(_ message: String) -> EmbeddedFailure { EmbeddedFailure(status: usageStatus, message: message) }
    /// A configuration that cannot work (`DL_CONFIGURATION`).
    static func configuration(_ message: String) -> EmbeddedFailure {
        EmbeddedFailure(status: configurationStatus, message: message)
    }
    /// A sign-in already runs on the client (`DL_BUSY`).
    static func busy(_ message: String) -> EmbeddedFailure { EmbeddedFailure(status: busyStatus, message: message) }
    /// The sign-in was cancelled (`DL_CANCELLED`).
    static let cancelled = EmbeddedFailure(status: cancelledStatus, message: "the sign-in was cancelled")

    /// The failure for any error a call ends with.
    init(_ error: any Error) {
        switch error {
        case let failure as EmbeddedFailure: self = failure
        case let error as DeviceLoginError: self.init(error)
        case is CancellationError: self = .cancelled
        default: self.init(status: Self.failureStatus, message: String(describing: error))
        }
    }

    /// A failure with `status` and `message`.
    init(status: Int32, message: String) {
        self.status = status
        self.message = message
    }

    /// The status `device-login` exits with for `error` (the CLI's `ExitCode(_:)`), and its message with the hint.
    init(_ error: DeviceLoginError) {
        message = error.hint.map { "\(error.message) (\($0))" } ?? error.message
        switch error.code {
        case .accessDenied: status = Self.deniedStatus
        case .expired: status = Self.expiredStatus
        case .transport: status = Self.unavailableStatus
        case .oauth, .invalidResponse, .invalidIDToken: status = Self.protocolStatus
        case .sessionEnded, .noSession: status = Self.notSignedInStatus
        case .storage: status = Self.ioStatus
        case .discovery: status = error.transportError != nil ? Self.unavailableStatus : Self.configurationStatus
        case .insecureEndpoint, .configuration: status = Self.configurationStatus
        default: status = Self.failureStatus
        }
    }

    /// The name of a status, as the header spells it (`dl_status_name`); nil for a number that is none.
    static func name(of status: Int32) -> StaticString? {
        switch status {
        case ok: return "DL_OK"
        case failureStatus: return "DL_FAILURE"
        case usageStatus: return "DL_USAGE"
        case deniedStatus: return "DL_DENIED"
        case expiredStatus: return "DL_EXPIRED"
        case unavailableStatus: return "DL_UNAVAILABLE"
        case ioStatus: return "DL_IO"
        case busyStatus: return "DL_BUSY"
        case protocolStatus: return "DL_PROTOCOL"
        case notSignedInStatus: return "DL_NOT_SIGNED_IN"
        case configurationStatus: return "DL_CONFIGURATION"
        case cancelledStatus: return "DL_CANCELLED"
        default: return nil
        }
    }
}
