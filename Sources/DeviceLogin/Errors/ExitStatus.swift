/// The statuses a failure ends with, after BSD sysexits where one fits: `device-login`'s exit codes and
/// libdevicelogin's `DL_` statuses are these numbers (docs/cli.md, `include/device_login.h`), so that a shell script
/// and a C caller branch on the same ones. The one table of them, and of which library error ends with which, for
/// the CLI's `ExitCode` and the C library's `EmbeddedFailure`.
package enum ExitStatus: Int32, Sendable, CaseIterable {
    /// Success (`DL_OK`).
    case success = 0
    /// A failure no other status covers (`DL_FAILURE`).
    case failure = 1
    /// Bad input: an unknown or missing option; a NULL pointer or settings that are wrong (`DL_USAGE`).
    case usage = 64
    /// The user denied the sign-in request (`DL_DENIED`).
    case denied = 65
    /// The code expired before it was approved (`DL_EXPIRED`).
    case expired = 66
    /// The network or the server failed (`DL_UNAVAILABLE`).
    case unavailable = 69
    /// Token storage failed, or a result could not be written (`DL_IO`).
    case ioError = 74
    /// Busy: a sign-in is already running, or waited for (`DL_BUSY`).
    case busy = 75
    /// The server answered with an error or something that is not OAuth (`DL_PROTOCOL`).
    case protocolError = 76
    /// Not signed in, or the session ended: sign in again (`DL_NOT_SIGNED_IN`).
    case notSignedIn = 77
    /// The configuration is wrong: issuer, endpoints, HTTPS policy (`DL_CONFIGURATION`).
    case configuration = 78
    /// Cancelled: Ctrl-C, or `dl_cancel` (`DL_CANCELLED`; 128 + SIGINT).
    case cancelled = 130

    /// The status a library error ends with.
    package init(_ error: DeviceLoginError) {
        switch error.code {
        case .accessDenied: self = .denied
        case .expired: self = .expired
        case .transport: self = .unavailable
        case .oauth, .invalidResponse, .invalidIDToken: self = .protocolError
        case .sessionEnded, .noSession: self = .notSignedIn
        case .storage: self = .ioError
        case .discovery: self = error.transportError != nil ? .unavailable : .configuration
        case .insecureEndpoint, .configuration: self = .configuration
        default: self = .failure
        }
    }
}
