/// What ``TokenState/signOut(whenRevocationFails:)`` revoked at the server, token by token (RFC 7009).
///
/// Local credentials are cleared unless ``keptTokens`` says otherwise; a token listed here as not revoked may still
/// be valid at the server until it expires.
///
/// ```swift
/// let result = try await state.signOut()
/// for revocation in result.unrevoked { print("not revoked: \(revocation.token): \(revocation.outcome)") }
/// ```
public struct SignOutResult: Sendable, Hashable {
    /// Which token a revocation was about.
    public enum Token: Sendable, Hashable, CustomStringConvertible {
        /// The refresh token (revoked first: RFC 7009 §2.1 says revoking it may also revoke its access tokens).
        case refreshToken
        /// The main access token.
        case accessToken
        /// The access token for one RFC 8707 resource.
        case resourceAccessToken(resource: String)

        /// The token's name in words, e.g. "refresh token"; never the token.
        public var description: String {
            switch self {
            case .refreshToken: return "refresh token"
            case .accessToken: return "access token"
            case .resourceAccessToken(let resource): return "access token for \(resource)"
            }
        }
    }

    /// How a revocation ended.
    public enum Outcome: Sendable, Hashable, CustomStringConvertible {
        /// The server answered 200: revoked, or already invalid (RFC 7009 §2.2).
        case revoked
        /// The request failed; the error says how.
        case failed(DeviceLoginError)
        /// No request was sent, for the reason given (the server has no revocation endpoint).
        case skipped(reason: String)

        /// The outcome in words.
        public var description: String {
            switch self {
            case .revoked: return "revoked"
            case .failed(let error): return "failed: \(error)"
            case .skipped(let reason): return "skipped: \(reason)"
            }
        }
    }

    /// One token and what happened to it.
    public struct Revocation: Sendable, Hashable {
        /// The token.
        public var token: Token
        /// What happened.
        public var outcome: Outcome

        /// Creates a revocation entry.
        public init(token: Token, outcome: Outcome) {
            self.token = token
            self.outcome = outcome
        }
    }

    /// The revocations, in the order they were attempted.
    public var revocations: [Revocation]
    /// Whether the tokens were kept, here and in the store, because a revocation failed
    /// (``TokenState/WhenRevocationFails/keepTokens``); false when they were cleared.
    public var keptTokens: Bool

    /// Creates a result.
    /// - Parameters:
    ///   - revocations: The revocations, in order.
    ///   - keptTokens: Whether the tokens were kept; default false.
    public init(revocations: [Revocation], keptTokens: Bool = false) {
        self.revocations = revocations
        self.keptTokens = keptTokens
    }

    /// The revocations that did not end in ``Outcome/revoked``.
    public var unrevoked: [Revocation] {
        revocations.filter { $0.outcome != .revoked }
    }

    /// Whether a revocation request failed (``Outcome/failed(_:)``); one skipped for want of an endpoint is not a
    /// failure, since it could never be sent.
    public var hasFailures: Bool {
        revocations.contains { revocation in
            if case .failed = revocation.outcome { return true }
            return false
        }
    }

    /// Whether every token was revoked (true also when there was nothing to revoke).
    public var isComplete: Bool { unrevoked.isEmpty }
}
