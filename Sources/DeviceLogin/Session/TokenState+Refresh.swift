#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension TokenState {
    /// The longest `Retry-After` honoured before the next refresh: ``PollingPolicy/defaultMaximumRetryAfter``
    /// (5 minutes), the same cap as polling's.
    public static let maximumRetryAfter = PollingPolicy.defaultMaximumRetryAfter

    /// How long a refresh that failed without an answer (time-out, no connection, server trouble) is the answer for
    /// the callers that were already waiting for the profile's lock, in this process or another: 30 seconds. They
    /// fail with it at once instead of each sending a request and waiting out the whole time-out in turn; a caller
    /// that asks after the failure sends its own.
    public static let sharedFailureWindow = Duration.seconds(30)

    /// What a caller needs from a refresh: which token, for how long, not which one, and since when it has asked.
    struct TokenNeed: Sendable {
        /// The resource the access token is for, or nil for the main access token.
        var resource: String?
        /// How long the token must stay valid: the refresh margin or the caller's `minimumTTL`, the longer.
        var lifetime: Duration
        /// An access token a resource server rejected, which does not count as valid.
        var rejected: String?
        /// When the call began, from the injected `now`: a token stored after it is as fresh as the server gives.
        var askedAt: Date
    }

    /// How a refresh ended, settled while holding the profile's lock: the store's answer, or the applied
    /// ``RefreshDecision``.
    enum RefreshResult: Sendable {
        /// The server issued new tokens; they are stored.
        case refreshed(TokenSet)
        /// No request was needed: another process had refreshed, or the current token is the best there is.
        case adopted(TokenSet)
        /// The session is over; the stored tokens are removed.
        case ended(DeviceLoginError)
        /// The refresh failed; the session goes on with `keeping`.
        case failed(any Error, keeping: TokenSet)
    }

    /// Returns an access token valid for more than ``refreshMargin`` (or `minimumTTL`, when longer), refreshing
    /// it first when needed.
    ///
    /// ```swift
    /// let token = try await state.freshAccessToken()
    /// request.headers.append(HTTPHeader("Authorization", "Bearer \(token)"))
    /// ```
    /// - Parameter minimumTTL: How long the caller needs the token to stay valid; the margin applies when it is
    ///   shorter. A refreshed token is returned even if the server made it live less than this.
    /// - Returns: The access token.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/noSession`` when not signed in,
    ///   ``DeviceLoginError/Code/sessionEnded`` when the server ended the session (sign in again),
    ///   ``DeviceLoginError/Code/transport`` when the refresh failed but the session goes on,
    ///   ``DeviceLoginError/Code/storage``; `CancellationError` as soon as the caller is cancelled.
    public func freshAccessToken(minimumTTL: Duration = .zero) async throws -> String {
        try await accessToken(for: nil, minimumTTL: minimumTTL, rejecting: nil)
    }

    /// Returns an access token for one resource (RFC 8707), refreshing with `resource` when there is no valid one.
    ///
    /// Like Logto's `getAccessToken(for:)`: the token is audience-restricted to `resource` and kept in
    /// ``TokenSet/resourceTokens``.
    /// - Parameters:
    ///   - resource: The resource indicator, an absolute URI.
    ///   - minimumTTL: How long the caller needs the token to stay valid.
    /// - Returns: The access token for `resource`.
    /// - Throws: As ``freshAccessToken(minimumTTL:)``; ``DeviceLoginError/Code/oauth`` with `invalid_target` when
    ///   the server refuses the resource (the session goes on).
    public func freshAccessToken(for resource: String, minimumTTL: Duration = .zero) async throws -> String {
        try await accessToken(for: resource, minimumTTL: minimumTTL, rejecting: nil)
    }

    /// Returns a new access token after a resource server rejected `rejectedToken` (RFC 6750 `invalid_token`).
    ///
    /// Refreshes even though the token looks valid — unless another caller or process already replaced it.
    /// - Parameters:
    ///   - rejectedToken: The token the resource server rejected.
    ///   - resource: The resource it was for, or nil for the main access token.
    /// - Returns: A different access token.
    /// - Throws: As ``freshAccessToken(minimumTTL:)``.
    public func freshAccessToken(replacing rejectedToken: String, for resource: String? = nil) async throws -> String {
        try await accessToken(for: resource, minimumTTL: .zero, rejecting: rejectedToken)
    }

    /// Refreshes the main access token when it is within ``refreshMargin`` of expiry; does nothing otherwise.
    /// - Throws: As ``freshAccessToken(minimumTTL:)``.
    public func refreshAccessTokenIfNeeded() async throws {
        _ = try await freshAccessToken()
    }

    /// How many callers wait on the refresh in flight (0 when none): lets tests line callers up behind one.
    var refreshWaiterCount: Int {
        guard case .refreshing(_, let flight) = phase else { return 0 }
        return flight.outcome.waiterCount
    }

    /// The token for `resource` (nil: the main one) in `tokens`, whatever its expiry.
    static func token(in tokens: TokenSet, for resource: String?) -> String? {
        guard let resource else { return tokens.accessToken }
        return tokens.resourceTokens[resource]?.accessToken
    }

    /// The token `need` asks for in `tokens` when it is valid for the lifetime needed and is not the rejected one.
    func usableToken(in tokens: TokenSet, for need: TokenNeed) -> String? {
        let validAfter = now().addingTimeInterval(need.lifetime.timeInterval)
        let token =
            need.resource.map { tokens.accessToken(for: $0, validAfter: validAfter) }
            ?? tokens.accessToken(validAfter: validAfter)
        guard let token, token != need.rejected else { return nil }
        return token
    }

    /// What a refreshed session must keep: its issuer, client and the scopes asked for.
    var refreshGrant: RefreshDecision.Grant {
        RefreshDecision.Grant(
            issuer: profile.issuer ?? profile.endpoints.issuer, clientID: client.clientID,
            requestedScopes: client.effectiveScopes(for: profile.endpoints),
            leeway: Self.idTokenLeeway
        )
    }

    func accessToken(for resource: String?, minimumTTL: Duration, rejecting rejected: String?) async throws -> String {
        let need = TokenNeed(
            resource: resource, lifetime: max(refreshMargin, minimumTTL), rejected: rejected, askedAt: now()
        )
        while true {
            try Task.checkCancellation()
            switch phase {
            case .unknown:
                try await load()
            case .noSession:
                throw notSignedIn
            case .authenticated(let tokens):
                if let token = usableToken(in: tokens, for: need) { return token }
                startRefresh(for: need, from: tokens)
            case .refreshing(_, let flight):
                do {
                    let tokens = try await flight.outcome.value()
                    // The flight was for this token: its result is the answer, even if short-lived.
                    if flight.resource == resource, let token = Self.token(in: tokens, for: resource) {
                        return token
                    }
                } catch is CancellationError {
                    throw CancellationError()
                } catch {
                    // Its error is ours when it was our refresh, or when it ended the session.
                    if flight.resource == resource { throw error }
                    if case .noSession = phase { throw error }
                }
            }
        }
    }

    /// Starts the one refresh: a stored task that every caller waits on.
    private func startRefresh(for need: TokenNeed, from tokens: TokenSet) {
        let outcome = SharedOutcome<TokenSet>()
        // Not a child task on purpose: it is shared by many callers and must finish (and store a rotated refresh
        // token) even when the caller that started it is cancelled. It runs where the process runs its work.
        let task = Task(executorPreference: ProcessExecutor.preferred) {
            await self.runRefresh(for: need, from: tokens, outcome: outcome)
        }
        setPhase(.refreshing(tokens, RefreshFlight(resource: need.resource, outcome: outcome, task: task)))
    }

    private func runRefresh(for need: TokenNeed, from tokens: TokenSet, outcome: SharedOutcome<TokenSet>) async {
        let result: RefreshResult
        if let tokenStore {
            do {
                result = try await tokenStore.withExclusiveAccess(profile: profile.name) {
                    await self.refreshHoldingLock(for: need, from: tokens)
                }
            } catch {
                result = .failed(error, keeping: tokens)
            }
        } else {
            result = await refreshHoldingLock(for: need, from: tokens)
        }
        // The phase changes before any waiter resumes: a caller never sees a token the state does not hold.
        switch result {
        case .refreshed(let next), .adopted(let next):
            setPhase(.authenticated(next))
            outcome.finish(.success(next))
        case .ended(let error):
            setPhase(.noSession)
            outcome.finish(.failure(error))
        case .failed(let error, let current):
            setPhase(.authenticated(current))
            outcome.finish(.failure(error))
        }
    }

    /// Re-reads the store, then refreshes unless another process already did. Runs inside the exclusive section.
    func refreshHoldingLock(for need: TokenNeed, from memory: TokenSet) async -> RefreshResult {
        let resource = need.resource
        var current = memory
        var storedProfile = profile
        if let tokenStore {
            let record: ProfileRecord?
            do {
                record = try await tokenStore.load(profile: profile.name)
            } catch {
                return .failed(error, keeping: memory)
            }
            guard let stored = record?.tokens else {
                return .ended(
                    DeviceLoginError(
                        .noSession, "signed out: the stored tokens of profile \(profile.name) were removed",
                        hint: "sign in again"
                    ))
            }
            current = stored
            storedProfile = record?.profile ?? profile
            if usableToken(in: stored, for: need) != nil {
                return .adopted(stored)
            }
            // Another process refreshed after this call began: its token is as long-lived as the server gives.
            if let decision = RefreshDecision.issuedSince(
                stored: stored, resource: resource, askedAt: need.askedAt, now: now(), rejecting: need.rejected
            ) {
                return await apply(decision, current: stored, profile: storedProfile)
            }
        }
        if let pause = retryNotBefore, clock.elapsed() < pause.instant {
            return .failed(pause.error, keeping: current)
        }
        // Another process's refresh failed while this one waited for the lock: that is this one's answer too.
        if let tokenStore, let shared = await tokenStore.lastRefreshFailure(profile: profile.name),
            shared.at >= need.askedAt, now() < shared.at.addingTimeInterval(Self.sharedFailureWindow.timeInterval)
        {
            return .failed(
                DeviceLoginError(
                    .transport,
                    "another process's refresh of profile \(profile.name) failed just now: \(shared.message)",
                    hint: "try again later"),
                keeping: current)
        }
        guard let refreshToken = current.refreshToken else {
            let decision = RefreshDecision.withoutRefreshToken(
                current: current, resource: resource, now: now(), rejecting: need.rejected
            )
            return await apply(decision, current: current, profile: storedProfile)
        }
        let request = RefreshTokenRequest(refreshToken: refreshToken, resources: resource.map { [$0] } ?? [])
        let decision: RefreshDecision
        do {
            try EndpointPolicy.check(profile.endpoints.token, allowInsecureHTTP: client.allowInsecureHTTP)
            let response = try await sendRefresh(
                client.formRequest(to: profile.endpoints.token, parameters: request.formParameters),
                profile: storedProfile
            )
            decision = RefreshDecision.requiringDPoP(
                RefreshDecision.decide(
                    reply: ServerReply(response), current: current, resource: resource, grant: refreshGrant,
                    receivedAt: now()
                ), resource: resource, provenWithDPoP: client.dpop != nil
            )
        } catch let error as TransportError {
            decision = RefreshDecision.decide(transportFailure: error)
        } catch {
            return .failed(error, keeping: current)
        }
        return await apply(decision, current: current, profile: storedProfile)
    }

    /// Carries out a ``RefreshDecision``: saves new tokens, forgets ended ones, holds back the next refresh after a
    /// `Retry-After`. Runs inside the exclusive section.
    private func apply(
        _ decision: RefreshDecision, current: TokenSet, profile storedProfile: Profile
    ) async -> RefreshResult {
        switch decision {
        case .store(let refreshed):
            retryNotBefore = nil
            let next = await judgingIDToken(of: refreshed)
            guard let tokenStore else { return .refreshed(next) }
            do {
                try await tokenStore.save(ProfileRecord(profile: storedProfile, tokens: next))
            } catch {
                // The server may have rotated the refresh token: the old one is spent, so the new tokens stay in
                // memory even though they could not be stored.
                return .failed(error, keeping: next)
            }
            return .refreshed(next)
        case .useCurrent(let tokens):
            return .adopted(tokens)
        case .retryLater(let error, let pause):
            if let pause { retryNotBefore = (clock.elapsed() + pause, error) }
            await tokenStore?.recordRefreshFailure(profile: profile.name, at: now(), message: error.message)
            return .failed(error, keeping: current)
        case .refuse(let error), .unreadable(let error), .reject(let error):
            // Nothing is stored: the session, in memory and in the store, stays exactly as it was.
            return .failed(error, keeping: current)
        case .endSession(var error):
            await forgetStoredTokens()
            // The decision knows the reply; the state knows whose session it was.
            if error.reason == nil { error.reason = .notSignedIn(profile: profile.name) }
            return .ended(error)
        }
    }

    /// Removes the stored tokens of an ended session. Called inside the exclusive section. A failure is not
    /// reported: the server has already refused these tokens, so leaving them stored is harmless.
    private func forgetStoredTokens() async {
        guard let tokenStore else { return }
        try? await Self.removeTokens(from: tokenStore, profile: profile.name)
    }
}

extension TokenState {
    /// The access token a stored profile may answer with, without a token state or any request: a bearer token of
    /// a profile that can make its client configuration without a secret given now, valid for `lifetime` or
    /// ``defaultRefreshMargin`` after `now`, the longer; nil when the full path must answer (a refresh, a DPoP
    /// proof, a secret). The one rule of the CLI's fast lane and of the C library's `dl_token`.
    /// - Parameters:
    ///   - glance: What the store's read on the calling thread gave of the profile.
    ///   - now: The wall-clock time.
    ///   - lifetime: How long the token must stay valid (`--min-ttl`).
    /// - Returns: The token and its expiry, or nil.
    package static func storedToken(
        _ glance: ProfileGlance, now: Date, lifetime: Duration
    ) -> (token: String, expiresAt: Date?)? {
        // The full path makes the client configuration before it looks at the tokens, and fails when the profile
        // needs a client secret it does not store: so does the fast answer, by leaving it to the full path.
        let profile = glance.profile
        guard ClientAuthentication(profile.clientAuthentication, secret: profile.clientSecret) != nil,
            let stored = glance.accessToken,
            // A bearer token only: a DPoP-bound one needs a proof made with its key (RFC 9449), which the full path
            // makes.
            stored.isBearer
        else { return nil }
        let validAfter = now.addingTimeInterval(max(defaultRefreshMargin, lifetime).timeInterval)
        guard let token = stored.value(validAfter: validAfter) else { return nil }
        return (token, stored.expiresAt)
    }
}
