import DeviceLogin

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Docker's credential-helper protocol (docker/docker-credential-helpers, `credentials` and `client`): what the
/// helper reads on stdin and writes on stdout, as pure functions.
///
/// - `get` and `erase` read a server URL: a registry's host (`registry.example.com:5000`) or a URL
///   (`https://index.docker.io/v1/`), maybe followed by a newline; ASCII white space around it is dropped, as the
///   reference helpers do. `get` answers ``credentials(serverURL:username:secret:)``, or ``notFound``.
/// - `store` reads ``Credentials`` as JSON.
/// - `list` reads nothing useful (Docker sends `unused`) and answers ``list(_:)``.
enum DockerCredentialProtocol {
    /// The longest server URL read: the longest ``URLBinding`` and room for white space around it.
    static let maximumURLLength = URLBinding.maximumLength + 64
    /// The longest `store` input read: 64 KiB (a registry's secret is a password or a token of a few KB).
    static let maximumCredentialsLength = 65_536

    /// What `get` answers, exit status 1, when no profile serves the URL: docker-credential-helpers'
    /// `errCredentialsNotFoundMessage`, on stdout. Docker's client compares it after trimming white space, and
    /// docker-py looks for it in the output: with it a client knows there are no credentials (and pulls without
    /// them), rather than that the helper failed.
    static let notFound = "credentials not found in native keychain"

    /// The credentials of `store` (and of `get`'s answer): docker-credential-helpers' `Credentials`.
    struct Credentials: Codable, Sendable, Equatable {
        /// `ServerURL`: the registry.
        var serverURL: String
        /// `Username`.
        var username: String
        /// `Secret`: the password or token.
        var secret: String

        private enum CodingKeys: String, CodingKey {
            case serverURL = "ServerURL"
            case username = "Username"
            case secret = "Secret"
        }
    }

    /// The server URL of a `get` or `erase` request, without the white space around it.
    /// - Throws: ``CredentialInputError`` for more than ``maximumURLLength`` bytes, a NUL byte, no URL, or a URL with
    ///   a control character or a space inside.
    static func serverURL(parsing bytes: [UInt8]) throws -> String {
        guard bytes.count <= maximumURLLength else {
            throw CredentialInputError.tooLong("the server URL", limit: maximumURLLength)
        }
        guard !bytes.contains(0) else { throw CredentialInputError.nulByte("the server URL") }
        let isSpace: (UInt8) -> Bool = { [0x20, 0x09, 0x0A, 0x0B, 0x0C, 0x0D].contains($0) }
        let start = bytes.firstIndex { !isSpace($0) } ?? bytes.endIndex
        let end = bytes.lastIndex { !isSpace($0) }.map { $0 + 1 } ?? start
        let text = String(decoding: bytes[start..<max(start, end)], as: UTF8.self)
        guard !text.isEmpty else { throw CredentialInputError.noServerURL }
        guard text.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F && $0 != "\u{FFFD}" }) else {
            throw CredentialInputError.invalidServerURL(
                "the server URL on standard input contains a space, a control character or bytes that are not UTF-8")
        }
        return text
    }

    /// `serverURL` as a binding to match profiles with.
    /// - Throws: ``CredentialInputError`` when it is no http(s) URL or registry host.
    static func binding(_ serverURL: String) throws -> URLBinding {
        do {
            return try URLBinding(serverURL)
        } catch let error as DeviceLoginError {
            throw CredentialInputError.invalidServerURL(error.message)
        }
    }

    /// The credentials of a `store` request.
    /// - Throws: ``CredentialInputError`` for more than ``maximumCredentialsLength`` bytes, a NUL byte, input that is
    ///   not a JSON object with `ServerURL`, `Username` and `Secret` strings, or an empty `ServerURL` or `Username`
    ///   (which docker-credential-helpers refuses too).
    static func credentials(parsing bytes: [UInt8]) throws -> Credentials {
        guard bytes.count <= maximumCredentialsLength else {
            throw CredentialInputError.tooLong("the credentials", limit: maximumCredentialsLength)
        }
        guard !bytes.contains(0) else { throw CredentialInputError.nulByte("the credentials") }
        let credentials: Credentials
        do {
            credentials = try JSONDecoder().decode(Credentials.self, from: Data(bytes))
        } catch {
            // The decoder's message may quote the input, which holds a secret: it is not repeated.
            throw CredentialInputError.invalidJSON("a JSON object with ServerURL, Username and Secret strings")
        }
        guard !credentials.serverURL.isEmpty else { throw CredentialInputError.invalidJSON("for a ServerURL") }
        guard !credentials.username.isEmpty else { throw CredentialInputError.invalidJSON("for a Username") }
        return credentials
    }

    /// `get`'s answer: `{"Secret":…,"ServerURL":…,"Username":…}` and a newline.
    /// - Throws: Encoding errors.
    static func credentials(serverURL: String, username: String, secret: String) throws -> String {
        try TokenOutput.encode([
            "ServerURL": .string(serverURL), "Username": .string(username), "Secret": .string(secret),
        ]) + "\n"
    }

    /// `list`'s answer: `{URL: user name}` for `entries`, and a newline; the first entry of a URL given twice counts.
    /// - Throws: Encoding errors.
    static func list(_ entries: [(url: String, username: String)]) throws -> String {
        var object: JSONObject = [:]
        for entry in entries where object[entry.url] == nil { object[entry.url] = .string(entry.username) }
        return try TokenOutput.encode(object) + "\n"
    }

    /// Reads standard input to its end, refusing more than `limit` bytes.
    /// - Throws: ``CredentialInputError`` when more arrive; read errors.
    static func readAll(_ context: CLIContext, limit: Int, what: String) async throws -> [UInt8] {
        let read = try await context.readInput(limit: limit, until: { _ in false })
        guard read.ending != .tooLong else { throw CredentialInputError.tooLong(what, limit: limit) }
        return read.bytes
    }
}
