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
/// {"v":1,"ok":true,"profile":"api","access_token":"…","token_type":"DPoP","expires_at":1796630400,"dpop_proof":"…"}
/// {"v":1,"ok":true,"none":true}
/// {"v":1,"ok":true,"erased":true}
/// {"v":1,"ok":true,"profiles":[{"name":"work","username":"alice","bindings":["https://git.example.com/team"]}]}
/// {"v":1,"ok":false,"error":"sign_in_needed","profile":"work","message":"…"}
/// ```
package enum AgentReply: Sendable, Equatable {
    /// The longest reply line, its line feed included: 32 KiB (an access token may be a large JWT).
    package static let maximumLineLength = 32_768

    /// A token for `profile`, valid for the asked lifetime.
    case token(Token)
    /// No profile serves the URL asked for.
    case none
    /// The answer to `erase`: whether the refused token was the one held, and is now marked expired.
    case erased(Bool)
    /// The answer to `list`: the profiles held, sorted by name.
    case profiles([Listed])
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
        /// The DPoP proof the agent made for the request a `dpop` request named, with `ath` for this token.
        package var proof: String?

        package init(
            profile: String, accessToken: String, tokenType: String, expiresAt: Int64?, username: String?,
            proof: String? = nil
        ) {
            self.profile = profile
            self.accessToken = accessToken
            self.tokenType = tokenType
            self.expiresAt = expiresAt
            self.username = username
            self.proof = proof
        }

        /// ``expiresAt`` as a date.
        package var expiry: Date? { expiresAt.map { Date(timeIntervalSince1970: Double($0)) } }
    }

    /// A held profile, as `list` names it: no token.
    package struct Listed: Sendable, Equatable {
        package var name: String
        /// Its user name, when it names one.
        package var username: String?
        /// Its bindings (`login --for`), normalised.
        package var bindings: [String]
        /// Whether it was signed in allowing plain HTTP (its token may go to an `http` URL off loopback).
        package var allowInsecureHTTP: Bool

        package init(name: String, username: String?, bindings: [String], allowInsecureHTTP: Bool = false) {
            self.name = name
            self.username = username
            self.bindings = bindings
            self.allowInsecureHTTP = allowInsecureHTTP
        }
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
            if let proof = token.proof { writer.add("dpop_proof", string: proof) }
        case .none:
            writer.add("ok", .bool(true))
            writer.add("none", .bool(true))
        case .erased(let erased):
            writer.add("ok", .bool(true))
            writer.add("erased", .bool(erased))
        case .profiles(let profiles):
            writer.add("ok", .bool(true))
            writer.add(
                "profiles",
                .array(
                    profiles.map { listed in
                        var members: [String: JSONValue] = [
                            "name": .string(listed.name), "bindings": .array(listed.bindings.map(JSONValue.string)),
                        ]
                        if let username = listed.username { members["username"] = .string(username) }
                        if listed.allowInsecureHTTP { members["allow_insecure_http"] = .bool(true) }
                        return .object(members)
                    }))
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
            if case .bool(let erased)? = object["erased"] {
                self = .erased(erased)
                return
            }
            if case .array(let entries)? = object["profiles"] {
                self = .profiles(try Self.listed(entries))
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
                    username: text("username"), proof: text("dpop_proof")))
        case .bool(false)?:
            guard let error = text("error") else { throw AgentProtocolError("reply lacks an error") }
            self = .failure(Failure(error, profile: text("profile"), message: text("message") ?? error))
        default:
            throw AgentProtocolError("reply lacks ok")
        }
    }

    /// The profiles of a `list` reply.
    private static func listed(_ entries: [JSONValue]) throws(AgentProtocolError) -> [Listed] {
        var listed: [Listed] = []
        for entry in entries {
            guard case .object(let members) = entry, case .string(let name)? = members["name"],
                case .array(let bindings)? = members["bindings"]
            else { throw AgentProtocolError("a listed profile lacks its name or bindings") }
            var urls: [String] = []
            for binding in bindings {
                guard case .string(let url) = binding else { throw AgentProtocolError("a binding is not a string") }
                urls.append(url)
            }
            var username: String?
            if case .string(let name)? = members["username"] { username = name }
            listed.append(
                Listed(
                    name: name, username: username, bindings: urls,
                    allowInsecureHTTP: members["allow_insecure_http"] == .bool(true)))
        }
        return listed
    }
}
