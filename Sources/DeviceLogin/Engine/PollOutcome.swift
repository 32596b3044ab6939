/// What one poll of the token endpoint came to, classified from the response or the transport failure.
public enum PollOutcome: Sendable, Hashable {
    /// The token response (RFC 6749 §5.1).
    case token(TokenResponse)
    /// `authorization_pending` (RFC 8628 §3.5).
    case pending
    /// `slow_down` (RFC 8628 §3.5), with the `interval` the server sent along, if any (GitHub does).
    case slowDown(serverInterval: Int?)
    /// `access_denied`.
    case denied(OAuthError)
    /// `expired_token`.
    case expired(OAuthError)
    /// `use_dpop_nonce` with a `DPoP-Nonce` header (RFC 9449 §8): the proof needs the server's nonce; send the poll
    /// again at once with it. Without the header the error is ``oauthError(_:)``: there is nothing to retry with.
    case useDPoPNonce(OAuthError)
    /// Any other OAuth error: final.
    case oauthError(OAuthError)
    /// A failure that may pass: the network, HTTP 5xx, 408 or 429. `retryAfterSeconds` from `Retry-After`.
    case transient(reason: String, retryAfterSeconds: Int?)
    /// A failure that will not pass by retrying (malformed answer, TLS failure, oversized body).
    case fatal(DeviceLoginError)

    /// Classifies a token endpoint response.
    public init(_ response: HTTPResponse) {
        switch ServerReply(response) {
        case .success(let object):
            do {
                self = .token(try TokenResponse(accepting: object))
            } catch let error as DeviceLoginError {
                self = .fatal(error)
            } catch {
                self = .fatal(DeviceLoginError(.invalidResponse, "the token response could not be read"))
            }
        case .oauthError(let error):
            switch error.code {
            case .authorizationPending: self = .pending
            case .slowDown: self = .slowDown(serverInterval: error.interval)
            case .accessDenied: self = .denied(error)
            case .expiredToken: self = .expired(error)
            case .useDPoPNonce where response.header("DPoP-Nonce").map(DPoPProver.isWellFormedNonce) == true:
                self = .useDPoPNonce(error)
            default: self = .oauthError(error)
            }
        case .httpError(let status, let retryAfter, _) where status >= 500 || status == 429 || status == 408:
            self = .transient(reason: "the server answered HTTP \(status)", retryAfterSeconds: retryAfter)
        case .httpError(let status, _, _):
            self = .fatal(
                DeviceLoginError(
                    .invalidResponse, "the token endpoint answered HTTP \(status) without an OAuth error",
                    hint: "check the token endpoint URL"
                ))
        case .malformed(let status, let reason, _):
            self = .fatal(
                DeviceLoginError(
                    .invalidResponse, "the token endpoint answered HTTP \(status) but \(reason)"
                ))
        }
    }

    /// Classifies a transport failure: DNS, connection and timeout failures are transient (RFC 8628 §3.5 asks the
    /// client to back off and retry); the rest are final.
    public init(_ error: TransportError) {
        if error.kind.isTransient {
            self = .transient(reason: error.message, retryAfterSeconds: nil)
        } else {
            self = .fatal(DeviceLoginError.wrapping(error, while: "polling the token endpoint"))
        }
    }
}
