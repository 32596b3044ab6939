/// Input on standard input that a credential helper's protocol (git's, Docker's) does not allow: the helper
/// answers it with one line on stderr, exit 64 and nothing on stdout.
///
/// The message never quotes the input: a request may hold a password.
struct CredentialInputError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Code: Sendable, Equatable {
        case tooLong, nulByte, notKeyValue, noServerURL, invalidServerURL, invalidJSON
    }

    private let code: Code
    /// What is wrong, in one line, without the input's contents.
    let message: String

    private init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    var description: String { message }

    /// Errors are equal when they are of the same kind, whatever their details.
    static func == (lhs: CredentialInputError, rhs: CredentialInputError) -> Bool { lhs.code == rhs.code }

    /// More than `limit` bytes arrived.
    static func tooLong(_ what: String, limit: Int) -> CredentialInputError {
        CredentialInputError(.tooLong, "\(what) on standard input is longer than \(limit) bytes")
    }

    /// The input holds a NUL byte, which neither protocol allows.
    static func nulByte(_ what: String) -> CredentialInputError {
        CredentialInputError(.nulByte, "\(what) on standard input contains a NUL byte")
    }

    /// Line `line` of a git request is not `key=value`.
    static func notKeyValue(line: Int) -> CredentialInputError {
        CredentialInputError(
            .notKeyValue, "line \(line) of the request on standard input is not key=value (git-credential(1))")
    }

    /// Docker gave no server URL.
    static let noServerURL = CredentialInputError(.noServerURL, "no server URL on standard input")

    /// The URL given cannot be a registry's or a remote's URL: `reason` says why.
    static func invalidServerURL(_ reason: String) -> CredentialInputError {
        CredentialInputError(.invalidServerURL, reason)
    }

    /// Docker's `store` input is not the JSON object of its protocol.
    static func invalidJSON(_ reason: String) -> CredentialInputError {
        CredentialInputError(.invalidJSON, "the credentials on standard input are not " + reason)
    }
}
