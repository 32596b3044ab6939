import DeviceLogin

extension MockServerState {
    /// The token endpoint: device code polls (RFC 8628 §3.4, §3.5) and refreshes (RFC 6749 §6).
    mutating func token(_ incoming: Incoming) throws(ReplyError) -> Reply {
        let writer = writer(for: incoming)
        try checkOAuthPost(incoming, writer)
        switch incoming.value("grant_type") {
        case DeviceAccessTokenRequest.grantType:
            return try poll(incoming, writer)
        case "refresh_token":
            return try refresh(incoming, writer)
        case "authorization_code":
            return try redeem(incoming, writer)
        case nil:
            return writer.oauthError(.invalidRequest, "The grant_type parameter is missing.")
        default:
            return writer.oauthError(.unsupportedGrantType)
        }
    }

    // MARK: - Polling

    private mutating func poll(_ incoming: Incoming, _ writer: WireWriter) throws(ReplyError) -> Reply {
        let clientID = try authenticateClient(incoming, writer)
        guard let sent = incoming.value("device_code") else {
            return writer.oauthError(.invalidRequest, "The device_code parameter is missing.")
        }
        guard let index = deviceCodes.index(forKey: sent) else {
            return writer.oauthError(.invalidGrant, "The device code is unknown.")
        }
        // The stored key, so that records share its storage instead of holding a copy per poll.
        let deviceCode = deviceCodes.keys[index]
        let code = deviceCodes.values[index]
        guard code.clientID == clientID else {
            return writer.oauthError(.invalidGrant, "The device code was issued to another client.")
        }
        // The proof is checked before the request counts as a poll: one refused for want of a nonce is sent again at
        // once (RFC 9449 §8), and that is no poll too soon. A device code proven at the device authorization request
        // is bound to that key (draft-parecki-oauth-dpop-device-flow).
        let dpopKey = try proofKey(
            incoming, writer, required: requiresDPoP(client: clientID), boundTo: code.dpopKey
        )
        code.polls += 1
        let number = code.polls
        let now = incoming.time

        func violation(_ kind: Server.Violation.Kind) {
            violations.append(Server.Violation(kind: kind, time: now, pollNumber: number, userCode: code.userCode))
        }
        if code.inFlight > 0 { violation(.overlappingPoll) }
        if code.expiryAnswered || (!code.consumed && now >= code.expiresAt) { violation(.pollAfterExpiry) }
        // RFC 8628 §3.5: "the client MUST wait at least the number of seconds specified by the interval
        // parameter" between requests; the server answers an early poll with slow_down.
        var tooSoon = false
        if let previous = code.lastPollAt, now - previous < code.interval {
            tooSoon = true
            violation(.pollTooSoon(sincePrevious: now - previous, interval: code.interval))
        }
        code.lastPollAt = now

        var reply: Reply
        switch effect(of: code.script.faults[number], incoming, writer) {
        case .replace(let faulted):
            reply = faulted
        case .delay(let delay):
            reply = answerPoll(code, number: number, at: now, slowDown: tooSoon, dpopKey: dpopKey, writer)
            reply.delay = delay
        case .slowDown:
            reply = answerPoll(code, number: number, at: now, slowDown: true, dpopKey: dpopKey, writer)
        case .none:
            reply = answerPoll(code, number: number, at: now, slowDown: tooSoon, dpopKey: dpopKey, writer)
        }
        reply.deviceCode = deviceCode
        reply.pollNumber = number
        return reply
    }

    /// The protocol's answer to one poll, in RFC 8628 §3.5's order of precedence.
    private mutating func answerPoll(
        _ code: DeviceCode, number: Int, at now: Duration, slowDown: Bool, dpopKey: String?,
        _ writer: WireWriter
    ) -> Reply {
        if code.consumed {
            return writer.oauthError(.invalidGrant, "The device code was already used.")
        }
        if code.isExpired(at: now) {
            code.expiryAnswered = true
            return writer.oauthError(.expiredToken)
        }
        if slowDown {
            // RFC 8628 §3.5: "the interval MUST be increased by 5 seconds for this and all subsequent requests".
            code.interval += .seconds(5)
            var extra: JSONObject = [:]
            if configuration.dialect == .github {
                // GitHub names the new interval in the slow_down answer.
                extra["interval"] = .number(Double(code.interval.components.seconds))
            }
            return writer.oauthError(.slowDown, status: 400, extra: extra)
        }
        if code.decision == .none, code.script.decisionIsDue(poll: number, sinceIssue: now - code.issuedAt) {
            if case .deny = code.script.decision { code.decision = .denied } else { code.decision = .approved }
        }
        switch code.decision {
        case .approved:
            code.consumed = true
            let grantID = makeGrant(
                clientID: code.clientID, scopes: code.scopes, resources: code.resources, dpopKey: dpopKey
            )
            let refreshToken = grants[grantID]?.refreshToken
            return writer.success(tokenObject(grantID: grantID, at: now, newRefreshToken: refreshToken))
        case .denied:
            return writer.oauthError(.accessDenied)
        case .none:
            return writer.oauthError(.authorizationPending)
        }
    }

    // MARK: - Refreshing

    private mutating func refresh(_ incoming: Incoming, _ writer: WireWriter) throws(ReplyError) -> Reply {
        refreshRequestCount += 1
        let delay = try delay(for: configuration.refreshFaults[refreshRequestCount], incoming, writer)
        let clientID = try authenticateClient(incoming, writer)
        guard let refreshToken = incoming.value("refresh_token") else {
            return writer.oauthError(.invalidRequest, "The refresh_token parameter is missing.")
        }
        guard let grantID = refreshTokens[refreshToken], let grant = grants[grantID], grant.clientID == clientID else {
            return writer.oauthError(.invalidGrant, "The refresh token is invalid, revoked or was replaced.")
        }
        // RFC 9449 §5: a refresh token bound to a key is refused without a proof made with that key.
        if let dpopKey = try proofKey(
            incoming, writer, required: requiresDPoP(client: clientID), boundTo: grant.dpopKey
        ), grant.dpopKey == nil {
            grant.dpopKey = dpopKey
        }
        // RFC 6749 §6: a narrower scope may be asked for, never a wider one.
        var scopes = grant.scopes
        if let asked = incoming.value("scope")?.split(separator: " ").map(String.init) {
            guard asked.allSatisfy(grant.scopes.contains) else {
                return writer.oauthError(.invalidScope, "The scope exceeds what was granted.")
            }
            scopes = asked
        }
        // RFC 8707 §2: a refresh may ask for a token restricted to resources of the grant.
        let resources = incoming.values("resource")
        guard resources.allSatisfy(grant.resources.contains) else {
            return writer.oauthError(.invalidTarget, "The resource was not part of the grant.")
        }
        var newRefreshToken: String?
        if configuration.rotatesRefreshTokens {
            let rotated = generator.token()
            refreshTokens[refreshToken] = nil
            refreshTokens[rotated] = grantID
            grant.refreshToken = rotated
            newRefreshToken = rotated
        }
        var reply = writer.success(
            tokenObject(grantID: grantID, scopes: scopes, at: incoming.time, newRefreshToken: newRefreshToken)
        )
        reply.delay = delay
        return reply
    }

    // MARK: - Issuing

    /// Records a grant for an approved device code, with its refresh token when the server issues them.
    mutating func makeGrant(clientID: String, scopes: [String], resources: [String], dpopKey: String?) -> Int {
        nextGrantID += 1
        let grant = Grant(clientID: clientID, scopes: scopes, resources: resources, dpopKey: dpopKey)
        if configuration.issuesRefreshTokens {
            let refreshToken = generator.token()
            grant.refreshToken = refreshToken
            refreshTokens[refreshToken] = nextGrantID
        }
        grants[nextGrantID] = grant
        return nextGrantID
    }

    /// Issues an access token (and an ID token for `openid`) under a grant, as a token response in the dialect.
    mutating func tokenObject(
        grantID: Int, scopes: [String]? = nil, at now: Duration, newRefreshToken: String?, nonce: String? = nil
    ) -> JSONObject {
        guard let grant = grants[grantID] else { return [:] }
        let granted = scopes ?? grant.scopes
        let lifetime = configuration.accessTokenLifetime
        let accessToken = generator.token()
        accessTokens[accessToken] = AccessToken(
            grantID: grantID, expiresAt: now + .seconds(lifetime), dpopKey: grant.dpopKey
        )
        grant.accessTokens.insert(accessToken)

        let dialect = configuration.dialect
        var idToken: String?
        if granted.contains("openid"), dialect != .github {
            idToken = MockIDToken.make(
                issuer: layout.issuer, clientID: grant.clientID, user: configuration.user, issuedAt: wallClock(),
                lifetime: lifetime, signing: configuration.idTokenSigning, key: currentSigningKey(), nonce: nonce
            )
        }
        let response = TokenResponse(
            accessToken: accessToken,
            // RFC 9449 §5: a token bound to the proof's key is of type DPoP. GitHub writes Bearer in lower case
            // (RFC 6749 §5.1: case-insensitive).
            tokenType: grant.dpopKey != nil ? "DPoP" : dialect == .github ? "bearer" : "Bearer",
            expiresIn: lifetime,
            refreshToken: newRefreshToken,
            scope: granted.isEmpty ? nil : granted.joined(separator: " "),
            idToken: idToken
        )
        var object = response.jsonObject
        if dialect == .microsoft {
            // Microsoft's v1 endpoint: numbers as strings, and `ext_expires_in`.
            object["expires_in"] = .string(String(lifetime))
            object["ext_expires_in"] = .string(String(lifetime))
        }
        return object
    }
}
