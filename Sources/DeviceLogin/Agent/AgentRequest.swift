#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A helper's question to `device-login agent` (docs/agent.md): one JSON line, `"v": 1`, at most
/// ``maximumLineLength`` bytes with its line feed.
///
/// ```
/// {"v":1,"op":"token","profile":"work","min_ttl":60}
/// {"v":1,"op":"token","url":"https://git.example.com/team/repo","min_ttl":60}
/// {"v":1,"op":"dpop","profile":"api","htm":"POST","htu":"https://api.example.com/v1/items","min_ttl":60}
/// {"v":1,"op":"erase","url":"https://git.example.com/team/repo","access_token":"…","min_ttl":0}
/// {"v":1,"op":"list","min_ttl":0}
/// ```
///
/// `profile` names the profile; without it, `url` is served by the profile ``ProfileChoice`` chooses; with neither,
/// the `default` profile answers. `min_ttl` is how long the access token must stay valid, in seconds. The operation
/// (``Operation``) says what is asked of that profile. A field the version does not know is ignored (a new field is
/// fine; a changed one is a new version).
package struct AgentRequest: Sendable, Equatable {
    /// The protocol version this type reads and writes.
    package static let version = 1
    /// The longest request line, its line feed included: 8 KiB. A longer one closes the connection.
    package static let maximumLineLength = 8192
    /// The longest `min_ttl`: a year, as `token --min-ttl`.
    package static let maximumLifetime = 86_400 * 365

    /// The profile asked for, or nil.
    package var profile: String?
    /// The URL to serve, or nil.
    package var url: URLBinding?
    /// How long the token must stay valid, in seconds.
    package var minimumLifetime: Int
    /// What is asked.
    package var operation: Operation

    /// What a request asks of the profile that answers it.
    package enum Operation: Sendable, Equatable {
        /// `token`: its access token.
        case token
        /// `dpop`: its access token with a DPoP proof the agent makes for one request (RFC 9449 §4.2: `htm`, `htu`,
        /// `iat`, `jti`, `ath`, and `nonce` when the resource server asked for one, §9). The key never leaves the
        /// agent. For a profile that does not use DPoP, the token alone.
        case proof(method: String, url: URL, nonce: String?)
        /// `erase`: the server refused this access token (git's `erase`): the agent marks it expired if it is still
        /// the one it holds, so the next request refreshes it.
        case erase(accessToken: String)
        /// `list`: the profiles held (each one's name, user name and bindings), no token: Docker's `list`.
        case list

        /// The wire name, `op`.
        package var name: String {
            switch self {
            case .token: return "token"
            case .proof: return "dpop"
            case .erase: return "erase"
            case .list: return "list"
            }
        }
    }

    /// A request for `profile` or for the profile that serves `url`.
    package init(profile: String?, url: URLBinding?, minimumLifetime: Int, operation: Operation = .token) {
        self.profile = profile
        self.url = url
        self.minimumLifetime = min(max(0, minimumLifetime), Self.maximumLifetime)
        self.operation = operation
    }

    /// Reads a request line (without its line feed).
    /// - Throws: ``AgentProtocolError`` for anything but a version 1 `token` request with valid fields.
    package init(line: [UInt8]) throws(AgentProtocolError) {
        guard line.count < Self.maximumLineLength else { throw AgentProtocolError("request longer than 8 KiB") }
        guard case .object(let object)? = try? JSONParser.parse(line) else {
            throw AgentProtocolError("request is not a JSON object")
        }
        guard object["v"] == .number(Double(Self.version)) else { throw AgentProtocolError("unknown version") }
        func text(_ key: String) throws(AgentProtocolError) -> String? {
            switch object[key] {
            case nil, .null?: return nil
            case .string(let value)?: return value
            default: throw AgentProtocolError("\(key) is not a string")
            }
        }
        let operation: Operation
        switch object["op"] {
        case .string("token")?: operation = .token
        case .string("list")?: operation = .list
        case .string("dpop")?:
            guard let htu = try text("htu"), let url = DPoPProof.requestURL(htu) else {
                throw AgentProtocolError("invalid htu")
            }
            guard let method = DPoPProof.requestMethod(try text("htm") ?? "GET") else {
                throw AgentProtocolError("invalid htm")
            }
            let nonce = try text("nonce")
            if let nonce, !DPoPProver.isWellFormedNonce(nonce) { throw AgentProtocolError("invalid nonce") }
            operation = .proof(method: method, url: url, nonce: nonce)
        case .string("erase")?:
            guard let token = try text("access_token"), !token.isEmpty else {
                throw AgentProtocolError("erase lacks access_token")
            }
            operation = .erase(accessToken: token)
        default: throw AgentProtocolError("unknown op")
        }
        var profile: String?
        switch object["profile"] {
        case nil, .null?: profile = nil
        case .string(let name)?:
            guard (try? Profile.validate(name: name)) != nil else { throw AgentProtocolError("invalid profile name") }
            profile = name
        default: throw AgentProtocolError("profile is not a string")
        }
        var url: URLBinding?
        switch object["url"] {
        case nil, .null?: url = nil
        case .string(let text)?:
            guard let binding = try? URLBinding(text) else { throw AgentProtocolError("invalid url") }
            url = binding
        default: throw AgentProtocolError("url is not a string")
        }
        var lifetime = 0
        switch object["min_ttl"] {
        case nil, .null?: lifetime = 0
        case .number(let seconds)?:
            guard seconds >= 0, seconds <= Double(Self.maximumLifetime), seconds == seconds.rounded() else {
                throw AgentProtocolError("min_ttl out of range")
            }
            lifetime = Int(seconds)
        default: throw AgentProtocolError("min_ttl is not a number")
        }
        self.init(profile: profile, url: url, minimumLifetime: lifetime, operation: operation)
    }

    /// The request as its line, with the line feed.
    package var line: String {
        var writer = JSONWriter()
        writer.add("v", integer: Self.version)
        writer.add("op", .string(operation.name))
        if let profile { writer.add("profile", string: profile) }
        if let url { writer.add("url", string: url.description) }
        switch operation {
        case .token, .list: break
        case .proof(let method, let url, let nonce):
            writer.add("htm", string: method)
            writer.add("htu", string: url.absoluteString)
            if let nonce { writer.add("nonce", string: nonce) }
        case .erase(let token): writer.add("access_token", string: token)
        }
        writer.add("min_ttl", integer: minimumLifetime)
        return writer.object + "\n"
    }

    /// The profile that answers, among the profiles the agent holds: the one ``profile`` names; else the one
    /// ``ProfileChoice`` chooses for ``url``; else `default`. The pure decision of the agent's side.
    /// - Parameter profiles: Each held profile's name, bindings and whether it allows plain HTTP off loopback.
    package func choice(among profiles: [(name: String, bindings: [URLBinding], allowInsecureHTTP: Bool)])
        -> Choice
    {
        if let profile {
            guard let held = profiles.first(where: { $0.name == profile }) else { return .missing(profile) }
            if let url, url.isPlainHTTPOffLoopback, !held.allowInsecureHTTP { return .plainHTTP(profile) }
            return .profile(profile)
        }
        guard let url else {
            return profiles.contains { $0.name == Profile.defaultName }
                ? .profile(Profile.defaultName) : .missing(Profile.defaultName)
        }
        switch ProfileChoice(serving: url, among: profiles.map { ($0.name, Optional($0.bindings)) }) {
        case .none: return .none
        case .profile(let name): return .profile(name)
        case .tie(let names, let binding): return .tie(names, binding)
        }
    }

    /// Which held profile answers a request.
    package enum Choice: Sendable, Equatable {
        /// This profile answers.
        case profile(String)
        /// No profile serves the URL (git asks its next helper).
        case none
        /// The agent holds no profile of this name.
        case missing(String)
        /// The named profile would send its token over plain HTTP to a host off loopback.
        case plainHTTP(String)
        /// These profiles serve the URL equally well, by this binding.
        case tie([String], URLBinding)
    }
}

/// A request or reply line that breaks the agent protocol (docs/agent.md): the connection is closed.
package struct AgentProtocolError: Error, Equatable, CustomStringConvertible {
    /// What is wrong, without any of the line's text.
    package let description: String

    package init(_ description: String) { self.description = description }
}
