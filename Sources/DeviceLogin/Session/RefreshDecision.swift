#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The refresh decision: a pure function from the token endpoint's reply and the current tokens to what happens
/// next (RFC 6749 §5.1, §5.2 and §6).
///
/// ``TokenState`` is a thin shell around it, as ``DeviceFlow`` is around ``PollScheduler``: it sends the refresh,
/// asks here what the answer means, and applies the result — the store I/O, the phase change, the pause before
/// the next refresh. Every rule of a refresh lives here and is tested with tables.
enum RefreshDecision: Sendable, Hashable {
    /// The server issued tokens: save `tokens`, then hand them out.
    ///
    /// A rotated refresh token is in them, and the old one is spent: they are saved before any caller gets the new
    /// access token. A reply without `refresh_token` keeps the old one.
    case store(TokenSet)
    /// No request can do better than the current tokens: hand them out as they are.
    case useCurrent(TokenSet)
    /// A failure that may pass — the network, a 5xx or other HTTP status without an OAuth error, `server_error`,
    /// `temporarily_unavailable`: the session goes on with the current tokens and this caller gets `error`. When
    /// `pause` is set (a 429 or 503 with `Retry-After`, capped at ``TokenState/maximumRetryAfter``), no refresh is
    /// sent before that much time has passed; callers get `error` meanwhile.
    case retryLater(DeviceLoginError, pause: Duration?)
    /// The server refused this request, not the session (`invalid_scope`; RFC 8707 `invalid_target`), or there is
    /// no refresh token to ask for a resource with: the session goes on and this caller gets `error`.
    case refuse(DeviceLoginError)
    /// The reply could not be read (no `access_token`, not a JSON object): the session goes on, this caller gets
    /// `error`.
    case unreadable(DeviceLoginError)
    /// The reply's tokens would change the session: an ID token of another user or issuer, for another client or
    /// already expired, or a wider scope (see ``refusal(of:replacing:grant:receivedAt:)``). Nothing is stored: the
    /// session goes on exactly as it was, and this caller gets `error`.
    case reject(DeviceLoginError)
    /// The session is over: the stored tokens are forgotten, and every caller waiting on the refresh gets `error`
    /// (``DeviceLoginError/Code/sessionEnded``).
    case endSession(DeviceLoginError)

    /// The action the errors name.
    private static let action = "refreshing the access token"

    /// Decides what the token endpoint's reply to a refresh means.
    /// - Parameters:
    ///   - reply: The reply, classified.
    ///   - current: The tokens whose refresh token was sent.
    ///   - resource: The resource indicator (RFC 8707) the refresh asked for, or nil for the main access token.
    ///   - grant: The issuer, client and scopes the session belongs to, which new tokens must fit.
    ///   - receivedAt: When the reply arrived, from the injected `now`; new expiry times count from it.
    /// - Returns: What to do.
    static func decide(
        reply: ServerReply, current: TokenSet, resource: String?, grant: Grant, receivedAt: Date
    ) -> RefreshDecision {
        switch reply {
        case .success(let object):
            let response: TokenResponse
            do {
                response = try TokenResponse(accepting: object)
            } catch let error as DeviceLoginError {
                return .unreadable(error)
            } catch {
                return .unreadable(DeviceLoginError(.invalidResponse, "the token response to a refresh is unreadable"))
            }
            if let refusal = refusal(of: response, replacing: current, grant: grant, receivedAt: receivedAt) {
                return .reject(refusal)
            }
            let next =
                resource.map { current.refreshed(with: response, for: $0, receivedAt: receivedAt) }
                ?? current.refreshed(with: response, receivedAt: receivedAt)
            return .store(next)
        case .oauthError(let error):
            if isServerTrouble(error) {
                return .retryLater(
                    DeviceLoginError(
                        .transport, "the token endpoint failed while \(action): \(error.summary)",
                        hint: "the server may be busy or down; try again later", oauthError: error
                    ), pause: nil)
            }
            if refusesOnlyThisRequest(error) {
                return .refuse(DeviceLoginError.server(error, while: action))
            }
            return .endSession(
                DeviceLoginError(
                    .sessionEnded, "the server ended the session (\(error.summary)); sign in again",
                    hint: "sign in again", oauthError: error
                ))
        case .httpError(let status, let retryAfterSeconds, _):
            let error = DeviceLoginError(
                .transport, "the token endpoint answered HTTP \(status) while \(action)",
                hint: "the server may be busy or down; try again later"
            )
            return .retryLater(error, pause: pause(status: status, retryAfterSeconds: retryAfterSeconds))
        case .malformed(let status, let reason, _):
            return .unreadable(
                DeviceLoginError(
                    .invalidResponse,
                    "the token endpoint's answer to a refresh (HTTP \(status)) is unreadable: \(reason)"
                ))
        }
    }

    /// Decides what a refresh that never got a reply means: the session goes on, without a pause.
    /// - Parameter error: The transport's failure.
    /// - Returns: ``retryLater(_:pause:)``.
    static func decide(transportFailure error: TransportError) -> RefreshDecision {
        .retryLater(DeviceLoginError.wrapping(error, while: action), pause: nil)
    }

    /// Decides what to do when the tokens hold no refresh token: the access token is the best there is while it
    /// lasts; after that the session is over.
    /// - Parameters:
    ///   - current: The tokens.
    ///   - resource: The resource asked for, or nil for the main access token.
    ///   - now: The wall-clock time now.
    ///   - rejected: An access token a resource server rejected, which does not count as valid.
    /// - Returns: ``refuse(_:)`` for a resource, ``useCurrent(_:)`` while the access token lasts, else
    ///   ``endSession(_:)``.
    static func withoutRefreshToken(
        current: TokenSet, resource: String?, now: Date, rejecting rejected: String?
    ) -> RefreshDecision {
        if let resource {
            return .refuse(
                DeviceLoginError(
                    .configuration, "there is no refresh token to ask for an access token for \(resource)",
                    hint: "sign in with the resource, or with the offline_access scope"
                ))
        }
        if let token = current.accessToken(validAfter: now), token != rejected {
            return .useCurrent(current)
        }
        return .endSession(
            DeviceLoginError(
                .sessionEnded, "the access token has expired and the server issued no refresh token; sign in again",
                hint: "ask for the offline_access scope to stay signed in"
            ))
    }

    /// Decides whether tokens another process stored after this call asked for a refresh are the answer, though
    /// they live less than the caller wanted.
    ///
    /// A caller with a `minimumTTL` longer than the server's token lifetime would otherwise refresh again and again
    /// — N processes, N refreshes in a row — each finding the token just refreshed still too short. A token issued
    /// after the call began is as long-lived as the server gives: it is used while it is valid and not `rejected`.
    /// - Parameters:
    ///   - stored: The tokens in the store, re-read under the profile's lock.
    ///   - resource: The resource asked for, or nil for the main access token.
    ///   - askedAt: When the call that needs the refresh began, from the injected `now`.
    ///   - now: The wall-clock time now.
    ///   - rejected: An access token a resource server rejected, which is never the answer.
    /// - Returns: ``useCurrent(_:)`` with `stored` when its token was issued after `askedAt`, is still valid and is
    ///   not `rejected`; nil when a refresh is still needed.
    static func issuedSince(
        stored: TokenSet, resource: String?, askedAt: Date, now: Date, rejecting rejected: String?
    ) -> RefreshDecision? {
        let token: (value: String, expiresAt: Date?, issuedAt: Date)
        if let resource {
            guard let entry = stored.resourceTokens[resource] else { return nil }
            token = (entry.accessToken, entry.expiresAt, entry.issuedAt)
        } else {
            token = (stored.accessToken, stored.expiresAt, stored.issuedAt)
        }
        guard token.issuedAt > askedAt, token.value != rejected, TokenSet.isValid(until: token.expiresAt, after: now)
        else { return nil }
        return .useCurrent(stored)
    }

    /// How long a `Retry-After` holds back the next refresh: only with 429 (RFC 6585 §4) or 503 (RFC 9110
    /// §15.6.4), at most ``TokenState/maximumRetryAfter``.
    static func pause(status: Int, retryAfterSeconds: Int?) -> Duration? {
        guard let retryAfterSeconds, status == 429 || status == 503 else { return nil }
        return min(.seconds(retryAfterSeconds), TokenState.maximumRetryAfter)
    }

    /// Whether an OAuth error reports trouble at the server rather than a verdict on the request: a 5xx status,
    /// `server_error` or `temporarily_unavailable` (sent by some servers at the token endpoint). Reported as
    /// ``DeviceLoginError/Code/transport``, like a 5xx.
    static func isServerTrouble(_ error: OAuthError) -> Bool {
        error.httpStatus >= 500 || error.code.rawValue == "server_error"
            || error.code.rawValue == "temporarily_unavailable"
    }

    /// Whether an OAuth error refuses this request but not the session: `invalid_scope`, and `invalid_target`
    /// (RFC 8707). Every other OAuth error — `invalid_grant` (an expired, revoked or already-used refresh token),
    /// `invalid_client`, codes this library does not know — means the refresh token will never work again.
    static func refusesOnlyThisRequest(_ error: OAuthError) -> Bool {
        error.code == .invalidScope || error.code == .invalidTarget
    }
}
