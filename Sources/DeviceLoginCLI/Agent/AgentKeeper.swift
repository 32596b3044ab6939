import DeviceLogin

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What `device-login agent` holds: one ``TokenState`` per profile, loaded at start, and the answer to each request.
///
/// The refresh token stays in this process: a reply carries an access token, its type and expiry, never more.
/// Concurrent requests for a profile share its token state, whose refresh is single-flight. After ``forget()``
/// (`--lifetime`), every request is told to sign in again.
actor AgentKeeper {
    /// A held profile.
    struct Held: Sendable {
        let profile: Profile
        let state: TokenState
    }

    private var held: [String: Held]
    private(set) var forgotten = false

    init(_ held: [Held]) {
        var byName: [String: Held] = [:]
        for entry in held { byName[entry.profile.name] = entry }
        self.held = byName
    }

    /// The names of the profiles held, sorted.
    var names: [String] { held.keys.sorted() }

    /// Drops every token state: the refresh tokens leave this process's memory (as far as Swift lets go of them).
    func forget() {
        held = [:]
        forgotten = true
    }

    /// The profile that answers `request`, or the reply that refuses it.
    func profile(for request: AgentRequest) -> Result<Held?, AgentReply.Failure> {
        let profiles = held.values.sorted { $0.profile.name < $1.profile.name }.map {
            (name: $0.profile.name, bindings: $0.profile.bindings, allowInsecureHTTP: $0.profile.allowInsecureHTTP)
        }
        switch request.choice(among: profiles) {
        case .profile(let name): return .success(held[name])
        case .none: return .success(nil)
        case .missing(let name):
            let why = forgotten ? "the agent's lifetime ended: it forgot its tokens" : "the agent holds no profile"
            return .failure(
                AgentReply.Failure(AgentReply.Failure.signInNeeded, profile: name, message: "\(why) '\(name)'"))
        case .plainHTTP(let name):
            return .failure(
                AgentReply.Failure(
                    AgentReply.Failure.configuration, profile: name,
                    message: "refusing to send profile '\(name)''s token over plain HTTP"))
        case .tie(let names, let binding):
            return .failure(
                AgentReply.Failure(
                    AgentReply.Failure.configuration, profile: nil,
                    message: "profiles \(names.map { "'\($0)'" }.joined(separator: " and ")) both serve \(binding)"))
        }
    }

    /// The profiles held, for `list` (only the one `request` names, when it names one); no token.
    func listing(_ request: AgentRequest) -> AgentReply {
        var chosen = held.values.sorted { $0.profile.name < $1.profile.name }
        if let name = request.profile {
            guard let one = held[name] else {
                let why = forgotten ? "the agent's lifetime ended: it forgot its tokens" : "the agent holds no profile"
                return .failure(
                    AgentReply.Failure(AgentReply.Failure.signInNeeded, profile: name, message: "\(why) '\(name)'"))
            }
            chosen = [one]
        }
        let reply = AgentReply.profiles(
            chosen.map {
                AgentReply.Listed(
                    name: $0.profile.name, username: $0.profile.username,
                    bindings: $0.profile.bindings.map(\.description), allowInsecureHTTP: $0.profile.allowInsecureHTTP)
            })
        guard reply.line.utf8.count <= AgentReply.maximumLineLength else {
            return .failure(
                AgentReply.Failure(
                    AgentReply.Failure.configuration, profile: nil,
                    message: "the profiles' bindings are too many to list in one reply (32 KiB)"))
        }
        return reply
    }

    /// The answer of `held` to `request`: a token valid for its lifetime (refreshed first when needed), with a DPoP
    /// proof when it asks for one; or, for `erase`, whether the refused token was marked expired.
    static func answer(_ held: Held, to request: AgentRequest) async -> AgentReply {
        let name = held.profile.name
        do {
            switch request.operation {
            case .list:
                return .failure(
                    AgentReply.Failure(
                        AgentReply.Failure.configuration, profile: name, message: "list names no profile"))
            case .erase(let refused):
                return .erased(try await held.state.markAccessTokenStale(refused))
            case .token:
                let token = try await held.state.freshAccessToken(minimumTTL: .seconds(request.minimumLifetime))
                let tokens = await held.state.tokens
                return .token(
                    AgentReply.Token(
                        profile: name, accessToken: token, tokenType: tokens?.tokenType ?? "Bearer",
                        expiresAt: tokens?.expiresAt.flatMap { GitCredentialCommand.unixSeconds($0) },
                        username: held.profile.username))
            case .proof(let method, let url, let nonce):
                // The proof is made here, with the key this process holds: only the proof leaves (RFC 9449 §4).
                let authorization = try await held.state.authorization(
                    method: method, url: url, minimumTTL: .seconds(request.minimumLifetime), nonce: nonce)
                return .token(
                    AgentReply.Token(
                        profile: name, accessToken: authorization.accessToken, tokenType: authorization.scheme,
                        expiresAt: authorization.expiresAt.flatMap { GitCredentialCommand.unixSeconds($0) },
                        username: held.profile.username, proof: authorization.proof))
            }
        } catch let error as DeviceLoginError {
            let code: String
            switch ExitCode(error) {
            case .notSignedIn: code = AgentReply.Failure.signInNeeded
            case .unavailable: code = AgentReply.Failure.unavailable
            default: code = AgentReply.Failure.configuration
            }
            return .failure(AgentReply.Failure(code, profile: name, message: error.message))
        } catch {
            return .failure(
                AgentReply.Failure(AgentReply.Failure.unavailable, profile: name, message: String(describing: error)))
        }
    }
}
