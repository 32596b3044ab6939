import DeviceLogin

extension MockAuthorizationServer {
    /// The server's endpoints, as requests are classified.
    public enum Endpoint: String, Sendable, Hashable, CaseIterable {
        /// `/.well-known/openid-configuration` (OpenID Connect Discovery 1.0 §4).
        case openIDConfiguration
        /// `/.well-known/oauth-authorization-server` (RFC 8414 §3).
        case authorizationServerMetadata
        /// The device authorization endpoint (RFC 8628 §3.1).
        case deviceAuthorization
        /// The token endpoint: device code polls and refreshes.
        case token
        /// The authorization endpoint of the code grant (RFC 6749 §3.1), when ``Configuration/codeGrant`` is set.
        case authorization
        /// The revocation endpoint (RFC 7009).
        case revocation
        /// The userinfo endpoint (OpenID Connect Core §5.3).
        case userinfo
        /// The key set of the ID tokens' keys (`jwks_uri`).
        case jwks
        /// The DPoP-checking resource endpoint (``MockAuthorizationServer/resourceEndpoint()``).
        case resource
        /// The approval page at the verification URI.
        case verificationPage
        /// Any other path (answered 404).
        case unknown
    }

    /// One request as the server saw it, with what it answered.
    public struct RecordedRequest: Sendable, Hashable {
        /// One form field, in the order sent.
        public struct Field: Sendable, Hashable {
            /// The decoded name.
            public var name: String
            /// The decoded value.
            public var value: String
        }

        /// What the server answered.
        public enum Answer: Sendable, Hashable {
            /// A successful answer: a document, a device code, a token, userinfo, a page.
            case success(status: Int)
            /// An OAuth error, with the status it was sent with (the dialect decides: GitHub's are 200).
            case oauthError(OAuthError.Code, status: Int)
            /// A plain HTTP failure (scripted 5xx or 429, 404, 405, 401 at userinfo without a token).
            case httpError(status: Int)
            /// A body that is not JSON (scripted).
            case malformedBody
            /// A body too large for any client (scripted).
            case oversizedBody(bytes: Int)
            /// No answer: the connection was dropped (scripted).
            case droppedConnection

            /// The OAuth error code, if the answer was one.
            public var errorCode: OAuthError.Code? {
                if case .oauthError(let code, _) = self { return code }
                return nil
            }
        }

        /// When the request arrived, on the server's clock, since the server was created.
        public var time: Duration
        /// The request method.
        public var method: HTTPRequest.Method
        /// The request path, without the query.
        public var path: String
        /// The endpoint the path names.
        public var endpoint: Endpoint
        /// `grant_type` of a token request.
        public var grantType: String?
        /// The device code a token request polled with, or the one a device authorization issued.
        public var deviceCode: String?
        /// The poll's number for its device code, from 1, for device code token requests.
        public var pollNumber: Int?
        /// The request headers (empty unless recording is ``Recording/full``).
        public var headers: [HTTPHeader]
        /// The form fields of the body (empty unless recording is ``Recording/full``).
        public var formFields: [Field]
        /// What the server answered.
        public var answer: Answer
        /// How long the answer was held back (scripted or configured), if at all.
        public var delay: Duration?
        /// What the request's DPoP proof came to, when it carried one or needed one (kept with every
        /// ``Recording`` but ``Recording/off``).
        public var dpop: ProofCheck? = nil

        /// The first value of the form field `name`, if sent (and recorded).
        public func formValue(_ name: String) -> String? {
            formFields.first { $0.name == name }?.value
        }

        /// Whether this is a device code poll.
        public var isPoll: Bool { pollNumber != nil }
    }

    /// A client behaviour RFC 8628 forbids, as the server noticed it.
    public struct Violation: Sendable, Hashable, CustomStringConvertible {
        /// What the client did.
        public enum Kind: Sendable, Hashable {
            /// Polled `sincePrevious` after its previous poll while `interval` was in force (§3.4, §3.5). The
            /// server answered `slow_down` and added 5 seconds.
            case pollTooSoon(sincePrevious: Duration, interval: Duration)
            /// Polled at or after the device code's expiry (`expires_in` has passed, or the server already said
            /// `expired_token`).
            case pollAfterExpiry
            /// Polled while another poll with the same device code was still waiting for its answer.
            case overlappingPoll
            /// Broke a rule of the code grant (RFC 6749 §4.1, RFC 7636, RFC 9700 §2.1.1): no PKCE or `plain`, no
            /// `state`, an unregistered redirect URI, a code used twice, a wrong verifier or redirect URI at the token
            /// endpoint. The sentence names the rule.
            case codeGrant(String)
        }

        /// What the client did.
        public var kind: Kind
        /// When, on the server's clock.
        public var time: Duration
        /// The poll's number for its device code.
        public var pollNumber: Int
        /// The user code of the device code concerned (the device code itself is a secret).
        public var userCode: String

        /// A sentence for a failing test, without the device code.
        public var description: String {
            let what: String
            switch kind {
            case .pollTooSoon(let since, let interval):
                what = "polled \(since) after the previous poll while the interval was \(interval)"
            case .pollAfterExpiry:
                what = "polled after the device code expired"
            case .overlappingPoll:
                what = "polled while another poll for the same code was in flight"
            case .codeGrant(let rule):
                return "code grant at \(time): \(rule)"
            }
            return "poll \(pollNumber) for \(userCode) at \(time): \(what)"
        }
    }

    /// One revocation request (RFC 7009) as the server handled it.
    public struct Revocation: Sendable, Hashable {
        /// What the revoked token was.
        public enum TokenKind: Sendable, Hashable {
            /// An access token: only it was revoked.
            case accessToken
            /// A refresh token: it and every access token of its grant were revoked.
            case refreshToken
            /// Unknown, expired or already revoked: nothing happened, and the answer was 200 all the same.
            case unknown
        }

        /// When, on the server's clock.
        public var time: Duration
        /// The token sent.
        public var token: String
        /// `token_type_hint`, if sent.
        public var tokenTypeHint: String?
        /// What the token turned out to be.
        public var kind: TokenKind
    }

    /// A device code the server issued, as it stands now.
    public struct Authorization: Sendable, Hashable {
        /// Where the device code stands.
        public enum Status: Sendable, Hashable {
            /// Waiting for the user.
            case pending
            /// Approved; the next poll gets the token.
            case approved
            /// Denied; polls get `access_denied`.
            case denied
            /// A token was issued; the code is spent.
            case consumed
            /// Expired (by time or by ``MockAuthorizationServer/expire(deviceCode:)``).
            case expired
        }

        /// `device_code`.
        public var deviceCode: String
        /// `user_code`.
        public var userCode: String
        /// The client it was issued to.
        public var clientID: String
        /// The scopes asked for.
        public var scopes: [String]
        /// The RFC 8707 resources asked for.
        public var resources: [String]
        /// When it was issued, on the server's clock.
        public var issuedAt: Duration
        /// When it expires, on the server's clock.
        public var expiresAt: Duration
        /// The polling interval in force now (grows by 5 seconds with each `slow_down`).
        public var interval: Duration
        /// How many polls it has seen.
        public var pollCount: Int
        /// Where it stands. A scripted decision counts from the first poll that sees it.
        public var status: Status
    }
}

extension MockAuthorizationServer.RecordedRequest: CustomStringConvertible {
    /// One line for a transcript: the time, method, path, grant or poll, the answer, and the DPoP check. No token,
    /// code, header or form value.
    public var description: String {
        let milliseconds = time.components.seconds * 1000 + time.components.attoseconds / 1_000_000_000_000_000
        let fraction = String(milliseconds % 1000)
        var line = "\(milliseconds / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction + " s  "
        line += "\(method.rawValue) \(path)"
        if let pollNumber {
            line += " (poll \(pollNumber))"
        } else if let grantType {
            line += " (\(grantType))"
        }
        switch answer {
        case .success(let status): line += " → \(status)"
        case .oauthError(let code, let status): line += " → \(status) \(code.rawValue)"
        case .httpError(let status): line += " → \(status)"
        case .malformedBody: line += " → malformed body"
        case .oversizedBody(let bytes): line += " → \(bytes)-byte body"
        case .droppedConnection: line += " → dropped"
        }
        if let dpop { line += "; " + dpop.description }
        return line
    }
}
