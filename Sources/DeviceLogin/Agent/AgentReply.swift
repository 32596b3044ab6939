#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The agent's answer to an ``AgentRequest`` (docs/agent.md): one JSON line, `"v": 1`, at most
/// ``maximumLineLength`` bytes. It never carries a refresh token.
///
/// ```
/// {"v":1,"ok":true,"profile":"work","access_token":"…","token_type":"Bearer","expires_at":1796630400,"username":"alice"}
/// {"v":1,"ok":true,"none":true}
/// {"v":1,"ok":false,"error":"sign_in_needed","profile":"work","message":"…"}
/// ```
package enum AgentReply: Sendable, Equatable {
    /// The longest reply line, its line feed included: 32 KiB (an access token may be a large JWT).
    package static let maximumLineLength = 32_768

    /// A token for `profile`, valid for the asked lifetime.
    case token(Token)
    /// No profile serves the URL asked for.
    case none
    /// The agent cannot answer: `error` is one of ``Failure``'s codes, `message` is for a person (sanitised by the
    /// agent, and again by the helper that shows it).
    case failure(Failure)

    /// An access token lent to a helper.
    package struct Token: Sendable, Equatable {
        package var profile: String
        package var accessToken: String
        package var tokenType: String
        /// The expiry, in whole Unix seconds, when known.
        package var expiresAt: Int64?
        /// The profile's user name for the credential helpers, when it names one.
        package var username: String?

        package init(profile: String, accessToken: String, tokenType: String, expiresAt: Int64?, username: String?) {
            self.profile = profile
            self.accessToken = accessToken
            self.tokenType = tokenType
            self.expiresAt = expiresAt
            self.username = username
        }

        /// ``expiresAt`` as a date.
        package var expiry: Date? { expiresAt.map { Date(timeIntervalSince1970: Double($0)) } }
    }

    /// Why the agent did not answer with a token.
    package struct Failure: Error, Sendable, Equatable {
        /// The profile needs a sign-in (none held, no tokens, the session ended): the helper exits 77.
        package static let signInNeeded = "sign_in_needed"
        /// The request cannot be served as asked (a tie, plain HTTP, a DPoP profile): exit 78.
        package static let configuration = "configuration"
        /// The agent could not get a token now (the server did not answer): exit 69.
        package static let unavailable = "unavailable"
        /// The person at the agent refused, or nobody could be asked (`--confirm`): exit 77.
        package static let refused = "refused"

        package var error: String
        package var profile: String?
        package var message: String

        package init(_ error: String, profile: String?, message: String) {
            self.error = error
            self.profile = profile
            self.message = message
        }
    }

    /// The reply as its line, with the line feed.
    package var line: String {
        var writer = JSONWriter()
        writer.add("v", integer: AgentRequest.version)
        switch self {
        case .token(let token):
            writer.add("ok", .bool(true))
            writer.add("profile", string: token.profile)
            writer.add("access_token", string: token.accessToken)
            writer.add("token_type", string: token.tokenType)
            if let expiresAt = token.expiresAt { writer.add("expires_at", .number(Double(expiresAt))) }
            if let username = token.username { writer.add("username", string: username) }
        case .none:
            writer.add("ok", .bool(true))
            writer.add("none", .bool(true))
        case .failure(let failure):
            writer.add("ok", .bool(false))
            writer.add("error", string: failure.error)
            if let profile = failure.profile { writer.add("profile", string: profile) }
            writer.add("message", string: Sanitizer.sanitize(failure.message))
        }
        return writer.object + "\n"
    }

    /// Reads a reply line (without its line feed).
    /// - Throws: ``AgentProtocolError`` for a line that is not a version 1 reply.
    package init(line: [UInt8]) throws(AgentProtocolError) {
        guard line.count < Self.maximumLineLength else { throw AgentProtocolError("reply longer than 32 KiB") }
        guard case .object(let object)? = try? JSONParser.parse(line) else {
            throw AgentProtocolError("reply is not a JSON object")
        }
        guard object["v"] == .number(Double(AgentRequest.version)) else { throw AgentProtocolError("unknown version") }
        func text(_ key: String) -> String? {
            if case .string(let value)? = object[key] { return value }
            return nil
        }
        switch object["ok"] {
        case .bool(true)?:
            if object["none"] == .bool(true) {
                self = .none
                return
            }
            guard let profile = text("profile"), let accessToken = text("access_token"), !accessToken.isEmpty,
                let tokenType = text("token_type")
            else { throw AgentProtocolError("reply lacks a token") }
            var expiresAt: Int64?
            if case .number(let seconds)? = object["expires_at"] {
                guard seconds >= 0, seconds < 1e12, seconds == seconds.rounded() else {
                    throw AgentProtocolError("expires_at out of range")
                }
                expiresAt = Int64(seconds)
            }
            self = .token(
                Token(
                    profile: profile, accessToken: accessToken, tokenType: tokenType, expiresAt: expiresAt,
                    username: text("username")))
        case .bool(false)?:
            guard let error = text("error") else { throw AgentProtocolError("reply lacks an error") }
            self = .failure(Failure(error, profile: text("profile"), message: text("message") ?? error))
        default:
            throw AgentProtocolError("reply lacks ok")
        }
    }
}
