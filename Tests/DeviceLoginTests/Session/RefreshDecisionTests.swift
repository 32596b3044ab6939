import Foundation
import Testing

@testable import DeviceLogin

@Suite("RefreshDecision: the pure refresh decision (RFC 6749 §5.1, §5.2, §6)")
struct RefreshDecisionTests {
    /// The reply arrives when the current access token has just expired.
    static let received = Fixtures.start.addingTimeInterval(3600)
    /// AT-1 and RT-1, scope `openid offline_access`, issued at `Fixtures.start` for an hour.
    static let current = Fixtures.tokens()
    /// The session's issuer, client and requested scopes.
    static let grant = RefreshDecision.Grant(
        issuer: Fixtures.issuer, clientID: Fixtures.clientID, requestedScopes: ["openid", "offline_access"]
    )

    /// A decision's case, for tables.
    enum Kind: Sendable {
        case store, useCurrent, retryLater, refuse, unreadable, reject, endSession
    }

    static func kind(_ decision: RefreshDecision) -> Kind {
        switch decision {
        case .store: return .store
        case .useCurrent: return .useCurrent
        case .retryLater: return .retryLater
        case .refuse: return .refuse
        case .unreadable: return .unreadable
        case .reject: return .reject
        case .endSession: return .endSession
        }
    }

    /// The error a decision gives the caller, if any.
    static func error(_ decision: RefreshDecision) -> DeviceLoginError? {
        switch decision {
        case .store, .useCurrent: return nil
        case .retryLater(let error, _), .refuse(let error), .unreadable(let error), .reject(let error),
            .endSession(let error):
            return error
        }
    }

    /// The pause a decision asks for before the next refresh, if any.
    static func pause(_ decision: RefreshDecision) -> Duration? {
        guard case .retryLater(_, let pause) = decision else { return nil }
        return pause
    }

    static func decide(
        _ reply: ServerReply, resource: String? = nil, current: TokenSet = current, grant: RefreshDecision.Grant = grant
    ) -> RefreshDecision {
        RefreshDecision.decide(reply: reply, current: current, resource: resource, grant: grant, receivedAt: received)
    }

    static func success(_ json: String) throws -> ServerReply {
        .success(try JSONValue.decodeObject(from: Data(json.utf8)))
    }

    static func oauthError(_ code: String, status: Int) -> ServerReply {
        .oauthError(OAuthError(code: OAuthError.Code(rawValue: code), description: "because", httpStatus: status))
    }

    // MARK: New tokens

    @Test(
        "a refresh of the main token stores the new access token; the refresh token only when rotated",
        arguments: [("RT-2", "RT-2"), (nil, "RT-1")])
    func mainTokenRefreshed(sentRefreshToken: String?, storedRefreshToken: String) throws {
        let reply = try Self.success(Fixtures.tokenJSON(access: "AT-2", refresh: sentRefreshToken, expiresIn: 600))
        let expected = TokenSet(
            accessToken: "AT-2", expiresAt: Self.received.addingTimeInterval(600), refreshToken: storedRefreshToken,
            scope: "openid offline_access", issuedAt: Self.received
        )
        #expect(Self.decide(reply) == .store(expected))
    }

    @Test("a rotated ID token replaces the old one; the scope is kept when the reply has none")
    func idTokenRotatedScopeKept() throws {
        let reply = try Self.success(Fixtures.tokenJSON(access: "AT-2", idToken: Self.idToken()))
        guard case .store(let next) = Self.decide(reply) else {
            Issue.record("expected new tokens to store")
            return
        }
        #expect(next.idToken == Self.idToken())
        #expect(next.scope == "openid offline_access")
        #expect(next.refreshToken == "RT-1")
    }

    @Test(
        "a refresh for a resource stores its token beside the main one; the refresh token only when rotated",
        arguments: [("RT-2", "RT-2"), (nil, "RT-1")])
    func resourceTokenRefreshed(sentRefreshToken: String?, storedRefreshToken: String) throws {
        let reply = try Self.success(Fixtures.tokenJSON(access: "API-1", refresh: sentRefreshToken, expiresIn: 600))
        var expected = Self.current
        expected.refreshToken = storedRefreshToken
        expected.resourceTokens[Fixtures.api] = TokenSet.ResourceToken(
            accessToken: "API-1", expiresAt: Self.received.addingTimeInterval(600), issuedAt: Self.received
        )
        let decision = Self.decide(reply, resource: Fixtures.api)
        #expect(decision == .store(expected))
        guard case .store(let next) = decision else { return }
        #expect(next.accessToken == "AT-1", "the main access token is left alone")
        #expect(next.expiresAt == Self.current.expiresAt)
    }

    @Test("a 2xx reply without access_token is unreadable: the session goes on", arguments: [nil, Fixtures.api])
    func replyWithoutAccessToken(resource: String?) throws {
        let reply = try Self.success("{\"token_type\":\"Bearer\",\"refresh_token\":\"RT-2\"}")
        let decision = Self.decide(reply, resource: resource)
        #expect(Self.kind(decision) == .unreadable)
        #expect(Self.error(decision)?.code == .invalidResponse)
        #expect(Self.error(decision)?.message.contains("access_token") == true)
    }

    // Issue 8: a refreshed token the client cannot use was stored and failed at its first use.
    @Test(
        "a refreshed token of another type, or with CR/LF/NUL, is unreadable: the session goes on",
        arguments: [
            #"{"access_token":"AT-2","token_type":"mac"}"#, #"{"access_token":"AT-2\nX: y","token_type":"Bearer"}"#,
            #"{"access_token":"AT-2","token_type":"Bearer","refresh_token":"RT\u0000"}"#,
        ])
    func unusableRefreshedToken(json: String) throws {
        let decision = Self.decide(try Self.success(json))
        #expect(Self.kind(decision) == .unreadable)
        #expect(Self.error(decision)?.code == .invalidResponse)
    }

    @Test("a 2xx reply that is not a JSON object is unreadable")
    func malformedReply() {
        let decision = Self.decide(.malformed(status: 200, reason: "the body is empty", bodyExcerpt: ""))
        #expect(Self.kind(decision) == .unreadable)
        #expect(Self.error(decision)?.code == .invalidResponse)
        #expect(Self.error(decision)?.message.contains("HTTP 200") == true)
        #expect(Self.error(decision)?.message.contains("the body is empty") == true)
    }

    // MARK: OAuth errors

    @Test(
        "OAuth errors: final ones end the session, server trouble is transient, scope and target refuse this request",
        arguments: [
            ("invalid_grant", 400, Kind.endSession, DeviceLoginError.Code.sessionEnded),
            ("invalid_client", 401, .endSession, .sessionEnded),
            ("unauthorized_client", 400, .endSession, .sessionEnded),
            ("unsupported_grant_type", 400, .endSession, .sessionEnded),
            ("invalid_request", 400, .endSession, .sessionEnded),
            ("something_new", 400, .endSession, .sessionEnded),
            ("invalid_grant", 499, .endSession, .sessionEnded),
            ("invalid_grant", 500, .retryLater, .transport),
            ("invalid_client", 503, .retryLater, .transport),
            ("server_error", 400, .retryLater, .transport),
            ("server_error", 500, .retryLater, .transport),
            ("temporarily_unavailable", 400, .retryLater, .transport),
            ("temporarily_unavailable", 503, .retryLater, .transport),
            ("invalid_scope", 400, .refuse, .oauth),
            ("invalid_target", 400, .refuse, .oauth),
            ("invalid_target", 499, .refuse, .oauth),
            ("invalid_target", 502, .retryLater, .transport),
        ])
    func oauthErrors(code: String, status: Int, kind: Kind, errorCode: DeviceLoginError.Code) {
        let decision = Self.decide(Self.oauthError(code, status: status))
        #expect(Self.kind(decision) == kind)
        let error = Self.error(decision)
        #expect(error?.code == errorCode)
        #expect(error?.oauthError?.code.rawValue == code)
        #expect(error?.oauthError?.httpStatus == status)
        #expect(Self.pause(decision) == nil, "an OAuth error never pauses the next refresh")
        if kind == .endSession { #expect(error?.message.contains("sign in again") == true) }
    }

    // MARK: HTTP errors and Retry-After

    @Test(
        "an HTTP error without an OAuth body is transient; only 429 and 503 pause, at most 300 s",
        arguments: [
            (429, 30, Duration?.some(.seconds(30))),
            (503, 30, .seconds(30)),
            (502, 30, nil),
            (500, 30, nil),
            (504, 30, nil),
            (429, nil, nil),
            (503, nil, nil),
            (503, 0, .zero),
            (503, 299, .seconds(299)),
            (503, 300, .seconds(300)),
            (503, 301, .seconds(300)),
            (429, 86_400, .seconds(300)),
            (499, nil, nil),
            (500, nil, nil),
            (404, 30, nil),
        ])
    func httpErrors(status: Int, retryAfter: Int?, pause: Duration?) {
        let decision = Self.decide(.httpError(status: status, retryAfterSeconds: retryAfter, bodyExcerpt: "busy"))
        #expect(Self.kind(decision) == .retryLater)
        #expect(Self.pause(decision) == pause)
        #expect(Self.error(decision)?.code == .transport)
        #expect(Self.error(decision)?.message.contains("HTTP \(status)") == true)
    }

    @Test("the Retry-After cap is TokenState.maximumRetryAfter, polling's cap")
    func retryAfterCap() {
        #expect(TokenState.maximumRetryAfter == .seconds(300))
        #expect(RefreshDecision.pause(status: 429, retryAfterSeconds: 1_000) == TokenState.maximumRetryAfter)
        #expect(RefreshDecision.pause(status: 503, retryAfterSeconds: 300) == TokenState.maximumRetryAfter)
    }

    // MARK: No reply

    @Test(
        "a transport failure keeps the session, without a pause",
        arguments: [TransportError.Kind.connectionFailed, .timedOut, .dnsFailure, .tlsFailure])
    func transportFailures(kind: TransportError.Kind) {
        let decision = RefreshDecision.decide(transportFailure: TransportError(kind, "reset"))
        #expect(Self.kind(decision) == .retryLater)
        #expect(Self.pause(decision) == nil)
        #expect(Self.error(decision)?.code == .transport)
        #expect(Self.error(decision)?.transportError?.kind == kind)
    }

    // MARK: No refresh token

    @Test(
        "without a refresh token: the access token while it lasts and is not rejected, then the session ends",
        arguments: [
            (3599.0, nil, Kind.useCurrent),
            (3600.0, nil, .endSession),
            (7200.0, nil, .endSession),
            (0.0, "AT-1", .endSession),
            (0.0, "AT-other", .useCurrent),
        ])
    func withoutRefreshToken(secondsAfterIssue: TimeInterval, rejected: String?, kind: Kind) {
        let tokens = Fixtures.tokens(refresh: nil)
        let decision = RefreshDecision.withoutRefreshToken(
            current: tokens, resource: nil, now: Fixtures.start.addingTimeInterval(secondsAfterIssue),
            rejecting: rejected
        )
        #expect(Self.kind(decision) == kind)
        if kind == .useCurrent { #expect(decision == .useCurrent(tokens)) }
        if kind == .endSession { #expect(Self.error(decision)?.code == .sessionEnded) }
    }

    @Test("without a refresh token, a token of unknown expiry is used until it is rejected")
    func withoutRefreshTokenOrExpiry() {
        var tokens = Fixtures.tokens(refresh: nil)
        tokens.expiresAt = nil
        let later = Fixtures.start.addingTimeInterval(86_400 * 365)
        #expect(
            RefreshDecision.withoutRefreshToken(current: tokens, resource: nil, now: later, rejecting: nil)
                == .useCurrent(tokens))
        #expect(
            Self.kind(
                RefreshDecision.withoutRefreshToken(
                    current: tokens, resource: nil, now: later, rejecting: "AT-1"
                )) == .endSession)
    }

    @Test("without a refresh token, a resource token cannot be asked for: refused, the session goes on")
    func withoutRefreshTokenForAResource() {
        let decision = RefreshDecision.withoutRefreshToken(
            current: Fixtures.tokens(refresh: nil), resource: Fixtures.api, now: Fixtures.start, rejecting: nil
        )
        #expect(Self.kind(decision) == .refuse)
        #expect(Self.error(decision)?.code == .configuration)
        #expect(Self.error(decision)?.message.contains(Fixtures.api) == true)
    }
}

// MARK: - The refreshed session is the same session (OpenID Connect Core §12.2, RFC 6749 §6)

extension RefreshDecisionTests {
    /// An ID token for `Fixtures.clientID` from `Fixtures.issuer` about user-1, expiring an hour after the reply.
    static func idToken(
        sub: String = "user-1", iss: String = Fixtures.issuer, aud: JSONValue = .string(Fixtures.clientID),
        expiresAfterReply seconds: TimeInterval = 3600
    ) -> String {
        Fixtures.jwt([
            "iss": .string(iss), "sub": .string(sub), "aud": aud,
            "exp": .number(received.timeIntervalSince1970 + seconds), "iat": .number(received.timeIntervalSince1970),
        ])
    }

    /// The current tokens, holding an ID token about user-1 issued at sign-in.
    static let signedInAsUser1 = Fixtures.tokens(idToken: Fixtures.jwt(Fixtures.idClaims(subject: "user-1")))

    static func reply(idToken: String? = nil, scope: String? = nil) throws -> ServerReply {
        var object: JSONObject = [
            "access_token": .string("AT-2"), "token_type": .string("Bearer"), "expires_in": .number(3600),
            "refresh_token": .string("RT-2"),
        ]
        if let idToken { object["id_token"] = .string(idToken) }
        if let scope { object["scope"] = .string(scope) }
        return .success(object)
    }

    // Issue 8, bug 6: a refreshed ID token of another user, issuer or client, or already expired, replaced the
    // session's silently.
    @Test(
        "a refreshed ID token must keep iss, sub and aud, name the client in aud, and not have expired",
        arguments: [
            (idToken(), Kind.store, nil as String?),
            (idToken(aud: .array([.string(Fixtures.clientID)])), .store, nil),
            // §12.2: "its aud Claim Value MUST be the same as in the ID Token issued when the original
            // authentication occurred".
            (
                idToken(aud: .array([.string("other"), .string(Fixtures.clientID)])), .reject,
                "for other audiences (\"other\", \"cli\"; the session's: \"cli\")"
            ),
            (idToken(expiresAfterReply: -59), .store, nil),
            (idToken(sub: "user-2"), .reject, "for another user (sub \"user-2\", the session's is \"user-1\")"),
            (idToken(iss: "https://evil.example.com"), .reject, "issued by https://evil.example.com"),
            (idToken(iss: Fixtures.issuer + "/"), .reject, "issued by \"\(Fixtures.issuer)/\", the session's by"),
            (idToken(aud: .string("other-client")), .reject, "not for client cli"),
            (idToken(aud: .array([.string("other-client")])), .reject, "not for client cli"),
            (idToken(expiresAfterReply: -60), .reject, "expired"),
            (idToken(expiresAfterReply: -86_400), .reject, "expired"),
            ("not-a-jwt", .reject, "malformed"),
        ])
    func refreshedIDToken(idToken: String, kind: Kind, reason: String?) throws {
        let decision = Self.decide(try Self.reply(idToken: idToken), current: Self.signedInAsUser1)
        #expect(Self.kind(decision) == kind)
        if case .store(let next) = decision { #expect(next.idToken == idToken) }
        guard let reason else { return }
        let error = try #require(Self.error(decision))
        #expect(error.code == .invalidIDToken)
        #expect(error.message.hasPrefix("refused the tokens of a refresh: "), "\(error.message)")
        #expect(error.message.contains(reason), "\(error.message)")
        #expect(error.message.hasSuffix("(OpenID Connect Core §12.2); the session is kept as it was"))
    }

    @Test("an ID token of another user is refused in a refresh for a resource too")
    func refreshedIDTokenForAResource() throws {
        let decision = Self.decide(
            try Self.reply(idToken: Self.idToken(sub: "user-2")), resource: Fixtures.api, current: Self.signedInAsUser1
        )
        #expect(Self.kind(decision) == .reject)
        #expect(Self.error(decision)?.code == .invalidIDToken)
    }

    @Test(
        "without an ID token to compare with, the new one is only checked against the profile",
        arguments: [
            (nil as String?, "user-2", "https://auth.example.com", Kind.store),
            ("garbage", "user-2", "https://auth.example.com", .store),
            (nil, "user-2", "https://evil.example.com", .reject),
            ("garbage", "user-1", "https://evil.example.com", .reject),
        ])
    func nothingToCompareWith(original: String?, sub: String, iss: String, kind: Kind) throws {
        let decision = Self.decide(
            try Self.reply(idToken: Self.idToken(sub: sub, iss: iss)), current: Fixtures.tokens(idToken: original)
        )
        #expect(Self.kind(decision) == kind)
    }

    @Test("with no issuer known for the profile, iss is compared with the session's ID token only")
    func noIssuerKnown() throws {
        var grant = Self.grant
        grant.issuer = nil
        let same = Self.idToken(iss: Fixtures.issuer)
        let other = Self.idToken(iss: "https://evil.example.com")
        #expect(
            Self.kind(Self.decide(try Self.reply(idToken: same), current: Self.signedInAsUser1, grant: grant))
                == .store)
        #expect(
            Self.kind(Self.decide(try Self.reply(idToken: other), current: Self.signedInAsUser1, grant: grant))
                == .reject)
    }

    // Issue 8, bug 6: a wider scope than the session's was stored without notice.
    @Test(
        "a refresh may narrow the scope held, never widen it",
        arguments: [
            ("openid offline_access" as String?, "openid offline_access", Kind.store),
            ("openid offline_access", "offline_access openid", .store),
            ("openid offline_access", "openid", .store),
            ("openid offline_access", "openid offline_access admin", .reject),
            ("openid offline_access", "admin openid", .reject),
            ("openid", "openid offline_access", .reject),
            // The server never named a scope: the one held is the one asked for (RFC 6749 §5.1).
            (nil, "openid offline_access", .store),
            (nil, "openid", .store),
            (nil, "openid profile", .reject),
        ])
    func scopeHeld(held: String?, granted: String, kind: Kind) throws {
        var current = Self.current
        current.scope = held
        let decision = Self.decide(try Self.reply(scope: granted), current: current)
        #expect(Self.kind(decision) == kind)
        if case .store(let next) = decision { #expect(next.scope == granted) }
        guard kind == .reject else { return }
        let error = try #require(Self.error(decision))
        #expect(error.code == .invalidResponse)
        #expect(error.message.contains("the server granted scope the session does not hold ("))
        #expect(
            error.message.contains("\"admin\"") || error.message.contains("\"profile\"")
                || error.message.contains("\"offline_access\""))
        #expect(error.message.contains("(RFC 6749 §6); the session is kept as it was"))
    }

    @Test("a reply without scope keeps the one held; with no scope held or asked for, any scope is taken")
    func scopeUnknown() throws {
        #expect(Self.kind(Self.decide(try Self.reply())) == .store)
        var current = Self.current
        current.scope = nil
        var grant = Self.grant
        grant.requestedScopes = []
        let decision = Self.decide(try Self.reply(scope: "whatever the server grants"), current: current, grant: grant)
        #expect(Self.kind(decision) == .store)
    }

    @Test("a wider scope is refused in a refresh for a resource too")
    func widerScopeForAResource() throws {
        let decision = Self.decide(try Self.reply(scope: "openid admin"), resource: Fixtures.api)
        #expect(Self.kind(decision) == .reject)
    }

    @Test("a scope list in the error is bounded: at most 8 names of at most 64 characters")
    func boundedScopeList() throws {
        let many = (1...20).map { "s\($0)" }.joined(separator: " ") + " " + String(repeating: "a", count: 500)
        let error = try #require(Self.error(Self.decide(try Self.reply(scope: many))))
        #expect(error.message.count < 400)
        #expect(error.message.contains("\"" + String(repeating: "a", count: 64) + "…\""))
    }
}

// MARK: - Tokens another process refreshed after this call began (issue 8: N processes, N refreshes)

extension RefreshDecisionTests {
    /// The call began at `Fixtures.start + 3600`; "now" is 10 s later.
    static let askedAt = received
    static let now = received.addingTimeInterval(10)

    @Test(
        "a stored token issued after the call began is the answer while valid and not rejected",
        arguments: [
            (1.0, 3600.0, nil as String?, true),
            (0.001, 3600.0, nil, true),
            (0.0, 3600.0, nil, false),
            (-1.0, 3600.0, nil, false),
            (1.0, 10.0, nil, false),
            (1.0, 9.0, nil, false),
            (1.0, 11.0, nil, true),
            (1.0, 3600.0, "AT-2", false),
            (1.0, 3600.0, "AT-1", true),
        ])
    func issuedSinceTheCallBegan(
        issuedAfterAsking: TimeInterval, expiresAfterAsking: TimeInterval,
        rejected: String?, adopted: Bool
    ) {
        var stored = Fixtures.tokens(access: "AT-2", receivedAt: Self.askedAt.addingTimeInterval(issuedAfterAsking))
        stored.expiresAt = Self.askedAt.addingTimeInterval(expiresAfterAsking)
        let decision = RefreshDecision.issuedSince(
            stored: stored, resource: nil, askedAt: Self.askedAt, now: Self.now, rejecting: rejected
        )
        #expect(decision == (adopted ? .useCurrent(stored) : nil))
    }

    @Test("a token of unknown expiry issued after the call began is the answer")
    func issuedSinceWithoutExpiry() {
        var stored = Fixtures.tokens(access: "AT-2", receivedAt: Self.askedAt.addingTimeInterval(1))
        stored.expiresAt = nil
        #expect(
            RefreshDecision.issuedSince(
                stored: stored, resource: nil, askedAt: Self.askedAt, now: Self.now, rejecting: nil
            ) == .useCurrent(stored))
    }

    @Test(
        "for a resource, its own token's issue time counts, not the main token's",
        arguments: [
            (1.0 as TimeInterval?, -100.0, true),
            (-1.0, 100.0, false),
            (nil, 100.0, false),
        ])
    func issuedSinceForAResource(resourceIssuedAfter: TimeInterval?, mainIssuedAfter: TimeInterval, adopted: Bool) {
        var stored = Fixtures.tokens(receivedAt: Self.askedAt.addingTimeInterval(mainIssuedAfter))
        if let resourceIssuedAfter {
            let issued = Self.askedAt.addingTimeInterval(resourceIssuedAfter)
            stored.resourceTokens[Fixtures.api] = .init(
                accessToken: "API-2", expiresAt: issued.addingTimeInterval(600), issuedAt: issued
            )
        }
        let decision = RefreshDecision.issuedSince(
            stored: stored, resource: Fixtures.api, askedAt: Self.askedAt, now: Self.now, rejecting: nil
        )
        #expect(decision == (adopted ? .useCurrent(stored) : nil))
    }
}
