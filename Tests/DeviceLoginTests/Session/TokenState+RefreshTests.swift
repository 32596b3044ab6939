import DeviceLoginTesting
import Foundation
import Testing

@testable import DeviceLogin

@Suite struct TokenStateRefreshTests {
    static let rotated = ScriptedTransport.json(Fixtures.tokenJSON(access: "AT-2", refresh: "RT-2"))

    /// The rotated answer, held until `release` opens.
    static func rotated(after release: Gate) -> ScriptedTransport.Reply {
        { request in
            await release.wait()
            return try await rotated(request)
        }
    }

    /// A harness whose first refresh is answered when `release` opens, loaded, with its token expired.
    static func expiredHarness(answeringAfter release: Gate, then replies: [ScriptedTransport.Reply] = [])
        async throws -> TokenStateHarness
    {
        let harness = try TokenStateHarness(replies: [rotated(after: release)] + replies)
        try await harness.state.load()
        harness.wall.advance(seconds: 3600)
        return harness
    }

    // MARK: When to refresh

    /// The default margin is 60 s: a token with more left is returned as is; at exactly 60 s or less, refreshed.
    @Test(arguments: [(61.0, false), (60.0, true), (59.0, true)])
    func refreshMarginBoundary(secondsLeft: TimeInterval, refreshes: Bool) async throws {
        let harness = try TokenStateHarness(replies: [Self.rotated])
        harness.wall.advance(seconds: 3600 - secondsLeft)
        let token = try await harness.state.freshAccessToken()
        #expect(token == (refreshes ? "AT-2" : "AT-1"))
        #expect(harness.transport.requests.count == (refreshes ? 1 : 0))
    }

    @Test(arguments: [(100, false), (119, false), (120, true), (300, true)])
    func minimumTTLLongerThanTheMargin(minimumSeconds: Int, refreshes: Bool) async throws {
        let harness = try TokenStateHarness(replies: [Self.rotated])
        harness.wall.advance(seconds: 3600 - 120)
        let token = try await harness.state.freshAccessToken(minimumTTL: .seconds(minimumSeconds))
        #expect(token == (refreshes ? "AT-2" : "AT-1"))
    }

    @Test func refreshAccessTokenIfNeededDoesNothingWhileFresh() async throws {
        let harness = try TokenStateHarness()
        try await harness.state.refreshAccessTokenIfNeeded()
        #expect(harness.transport.requests.isEmpty)
    }

    // MARK: The request

    @Test func refreshRequestIsExactOnTheWire() async throws {
        let harness = try TokenStateHarness(replies: [Self.rotated])
        harness.wall.advance(seconds: 3600)
        _ = try await harness.state.freshAccessToken()
        let request = try #require(harness.transport.requests.first)
        #expect(request.method == .post)
        #expect(request.url == Fixtures.url("/token"))
        #expect(request.bodyText == "grant_type=refresh_token&refresh_token=RT-1&client_id=cli")
        #expect(request.header("Content-Type") == "application/x-www-form-urlencoded")
        #expect(request.header("Accept") == "application/json")
    }

    @Test func confidentialClientsAuthenticateTheRefresh() async throws {
        let client = ClientConfiguration(clientID: "cli", authentication: .clientSecretBasic(secret: "s3cret"))
        let harness = try TokenStateHarness(replies: [Self.rotated], client: client)
        harness.wall.advance(seconds: 3600)
        _ = try await harness.state.freshAccessToken()
        let request = try #require(harness.transport.requests.first)
        #expect(request.header("Authorization") == "Basic Y2xpOnMzY3JldA==")
        #expect(request.bodyText == "grant_type=refresh_token&refresh_token=RT-1")
    }

    // MARK: Single flight

    /// 1,000 callers ask for a fresh token while it is expired: one refresh request, one token for all, and each
    /// caller finds the rotated refresh token already stored when it gets the access token.
    @Test(.timeLimit(.minutes(1)))
    func oneThousandConcurrentCallersShareOneRefresh() async throws {
        let release = Gate()
        let harness = try await Self.expiredHarness(answeringAfter: release)
        let state = harness.state
        let memory = harness.memory

        let results = try await withThrowingTaskGroup(of: (String, String?).self) { group in
            for _ in 0..<1000 {
                group.addTask {
                    let token = try await state.freshAccessToken()
                    return (token, try await memory.load(profile: "default")?.tokens?.refreshToken)
                }
            }
            while await state.refreshWaiterCount < 1000 { await Task.yield() }
            release.open()
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 1000)
        #expect(results.allSatisfy { $0.0 == "AT-2" && $0.1 == "RT-2" })
        #expect(harness.transport.requests.count == 1)
    }

    @Test func rotatedRefreshTokenIsStoredBeforeAnyCallerGetsTheNewToken() async throws {
        let log = EventLog()
        let harness = try TokenStateHarness(
            replies: [
                { request in
                    log.append("server answered")
                    return try await Self.rotated(request)
                }
            ],
            onSave: { log.append("saved \($0.tokens?.refreshToken ?? "nothing")") }
        )
        harness.wall.advance(seconds: 3600)
        let token = try await harness.state.freshAccessToken()
        log.append("caller got \(token)")
        #expect(log.events == ["server answered", "saved RT-2", "caller got AT-2"])
    }

    @Test func aResponseWithoutRefreshTokenKeepsTheOldOne() async throws {
        let harness = try TokenStateHarness(replies: [ScriptedTransport.json(Fixtures.tokenJSON(access: "AT-2"))])
        harness.wall.advance(seconds: 3600)
        #expect(try await harness.state.freshAccessToken() == "AT-2")
        let stored = try await harness.stored()
        #expect(stored?.refreshToken == "RT-1")
        #expect(stored?.expiresAt == harness.wall.date.addingTimeInterval(3600))
    }

    /// Cancelling one waiter ends its wait at once; the refresh goes on for the others and is stored.
    @Test(.timeLimit(.minutes(1)))
    func aCancelledCallerStopsWaitingButTheRefreshCompletes() async throws {
        let release = Gate()
        let harness = try await Self.expiredHarness(answeringAfter: release)
        let state = harness.state
        let cancelled = Task { try await state.freshAccessToken() }
        let patient = Task { try await state.freshAccessToken() }
        while await state.refreshWaiterCount < 2 { await Task.yield() }

        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        release.open()
        #expect(try await patient.value == "AT-2")
        #expect(try await harness.stored()?.refreshToken == "RT-2")
    }

    // MARK: Across processes

    @Test func tokensRefreshedByAnotherProcessAreUsedWithoutARequest() async throws {
        let harness = try TokenStateHarness()
        try await harness.state.load()
        harness.wall.advance(seconds: 3600)
        let theirs = Fixtures.tokens(access: "AT-theirs", refresh: "RT-theirs", receivedAt: harness.wall.date)
        try await harness.memory.save(try Fixtures.record(tokens: theirs))

        #expect(try await harness.state.freshAccessToken() == "AT-theirs")
        #expect(harness.transport.requests.isEmpty)
        #expect(await harness.state.tokens == theirs)
        #expect(harness.store.count("lock") == 1)
    }

    @Test func theNewestStoredRefreshTokenIsTheOneSpent() async throws {
        let harness = try TokenStateHarness(replies: [Self.rotated])
        try await harness.state.load()
        harness.wall.advance(seconds: 3600)
        // Another process refreshed earlier: its access token has expired too, but its refresh token is newer.
        let theirs = Fixtures.tokens(access: "AT-old", refresh: "RT-theirs", expiresIn: 10)
        try await harness.memory.save(try Fixtures.record(tokens: theirs))
        _ = try await harness.state.freshAccessToken()
        #expect(harness.transport.requests.first?.bodyText == TokenStateHarness.refreshBody("RT-theirs"))
    }

    @Test func signedOutElsewhereEndsTheSessionWithoutARequest() async throws {
        let harness = try TokenStateHarness()
        try await harness.state.load()
        harness.wall.advance(seconds: 3600)
        try await harness.memory.save(try Fixtures.record(tokens: nil))
        _ = await expectError(.noSession) { _ = try await harness.state.freshAccessToken() }
        #expect(await harness.state.status == .noSession)
        #expect(harness.transport.requests.isEmpty)
    }

    // MARK: Failures

    @Test(arguments: ["invalid_grant", "invalid_client", "unauthorized_client"])
    func oauthErrorsEndTheSession(code: String) async throws {
        let body = "{\"error\":\"\(code)\",\"error_description\":\"gone\"}"
        let harness = try TokenStateHarness(replies: [ScriptedTransport.json(body, status: 400)])
        harness.wall.advance(seconds: 3600)
        let error = await expectError(.sessionEnded) { _ = try await harness.state.freshAccessToken() }
        #expect(error?.message.contains("sign in again") == true)
        #expect(error?.oauthError?.code.rawValue == code)
        #expect(await harness.state.status == .noSession)
        #expect(try await harness.stored() == nil)
        #expect(try await harness.memory.load(profile: "default") != nil, "the profile itself is kept")

        _ = await expectError(.noSession) { _ = try await harness.state.freshAccessToken() }
        #expect(harness.transport.requests.count == 1)
    }

    @Test(arguments: [
        ScriptedTransport.failure(.connectionFailed),
        ScriptedTransport.failure(.timedOut),
        ScriptedTransport.status(503),
        ScriptedTransport.json("{\"error\":\"server_error\"}", status: 500),
        ScriptedTransport.json("{\"error\":\"temporarily_unavailable\"}", status: 400),
    ])
    func transientFailuresKeepTheSession(reply: @escaping ScriptedTransport.Reply) async throws {
        let harness = try TokenStateHarness(replies: [reply, Self.rotated])
        harness.wall.advance(seconds: 3600)
        _ = await expectError(.transport) { _ = try await harness.state.freshAccessToken() }
        #expect(await harness.state.tokens == Fixtures.tokens())
        #expect(try await harness.stored() == Fixtures.tokens())
        #expect(try await harness.state.freshAccessToken() == "AT-2")
        #expect(harness.transport.requests.count == 2)
    }

    @Test func retryAfterIsHonouredOnTheInjectedClock() async throws {
        let busy = ScriptedTransport.status(503, headers: [HTTPHeader("Retry-After", "30")])
        let harness = try TokenStateHarness(replies: [busy, Self.rotated])
        harness.wall.advance(seconds: 3600)
        _ = await expectError(.transport) { _ = try await harness.state.freshAccessToken() }
        harness.clock.advance(by: .seconds(29))
        _ = await expectError(.transport) { _ = try await harness.state.freshAccessToken() }
        #expect(harness.transport.requests.count == 1)
        harness.clock.advance(by: .seconds(1))
        #expect(try await harness.state.freshAccessToken() == "AT-2")
        #expect(harness.transport.requests.count == 2)
    }

    /// A `Retry-After` longer than ``TokenState/maximumRetryAfter`` holds refreshes back for the cap only.
    @Test func retryAfterIsCappedAtFiveMinutes() async throws {
        let busy = ScriptedTransport.status(429, headers: [HTTPHeader("Retry-After", "3600")])
        let harness = try TokenStateHarness(replies: [busy, Self.rotated])
        harness.wall.advance(seconds: 3600)
        _ = await expectError(.transport) { _ = try await harness.state.freshAccessToken() }
        harness.clock.advance(by: TokenState.maximumRetryAfter - .seconds(1))
        _ = await expectError(.transport) { _ = try await harness.state.freshAccessToken() }
        #expect(harness.transport.requests.count == 1)
        harness.clock.advance(by: .seconds(1))
        #expect(try await harness.state.freshAccessToken() == "AT-2")
        #expect(harness.transport.requests.count == 2)
    }

    @Test func anUnreadableAnswerKeepsTheSession() async throws {
        let harness = try TokenStateHarness(replies: [ScriptedTransport.json("{\"token_type\":\"Bearer\"}")])
        harness.wall.advance(seconds: 3600)
        _ = await expectError(.invalidResponse) { _ = try await harness.state.freshAccessToken() }
        #expect(await harness.state.tokens == Fixtures.tokens())
    }

    // MARK: The same session (issue 8, bug 6)

    /// The tokens of user-1's session, with its ID token.
    static let user1 = Fixtures.tokens(idToken: Fixtures.jwt(Fixtures.idClaims(subject: "user-1")))

    /// A refresh answer whose ID token (valid, from the right issuer for the right client) is about `subject`.
    static func answer(subject: String, scope: String = "openid offline_access") -> ScriptedTransport.Reply {
        var claims = Fixtures.idClaims(subject: subject)
        claims["exp"] = .number(Fixtures.start.timeIntervalSince1970 + 7200)
        let idToken = Fixtures.jwt(claims)
        return ScriptedTransport.json(
            #"{"access_token":"AT-2","token_type":"Bearer","expires_in":3600,"refresh_token":"RT-2","#
                + #""scope":"\#(scope)","id_token":"\#(idToken)"}"#
        )
    }

    // Issue 8, bug 6: a refresh that named another user, or granted a wider scope, replaced the stored session.
    @Test(arguments: [
        (answer(subject: "user-2"), DeviceLoginError.Code.invalidIDToken),
        (answer(subject: "user-1", scope: "openid offline_access admin"), .invalidResponse),
    ])
    func aRefreshThatWouldChangeTheSessionStoresNothing(
        reply: @escaping ScriptedTransport.Reply, code: DeviceLoginError.Code
    ) async throws {
        let harness = try TokenStateHarness(tokens: Self.user1, replies: [reply])
        harness.wall.advance(seconds: 3600)
        let error = await expectError(code) { _ = try await harness.state.freshAccessToken() }
        #expect(error?.message.hasSuffix("the session is kept as it was") == true, "\(String(describing: error))")
        #expect(try await harness.stored() == Self.user1)
        #expect(harness.store.count("save") == 0)
        #expect(await harness.state.status == .authenticated(Self.user1))
        #expect(harness.transport.requests.count == 1)
    }

    @Test func aRefreshOfTheSameUserWithTheSameScopeIsStored() async throws {
        let harness = try TokenStateHarness(tokens: Self.user1, replies: [Self.answer(subject: "user-1")])
        harness.wall.advance(seconds: 3600)
        #expect(try await harness.state.freshAccessToken() == "AT-2")
        #expect(try await harness.stored()?.refreshToken == "RT-2")
    }

    // MARK: A minimum TTL beyond the server's token lifetime (issue 8)

    /// Another process stored tokens after this call began (issued 1 s later by the wall clock): they are the answer,
    /// though shorter-lived than `minimumTTL`, since the server gives no longer-lived token. Tokens stored before the
    /// call began are refreshed as usual.
    @Test(arguments: [(1.0, true), (0.0, false), (-1.0, false)])
    func aTokenStoredSinceTheCallBeganIsTakenDespiteMinimumTTL(issuedAfterAsking: TimeInterval, adopted: Bool)
        async throws
    {
        let harness = try TokenStateHarness(replies: [Self.rotated])
        try await harness.state.load()
        harness.wall.advance(seconds: 3600)
        let issued = harness.wall.date.addingTimeInterval(issuedAfterAsking)
        let theirs = Fixtures.tokens(access: "AT-theirs", refresh: "RT-theirs", receivedAt: issued)
        try await harness.memory.save(try Fixtures.record(tokens: theirs))
        let token = try await harness.state.freshAccessToken(minimumTTL: .seconds(7200))
        #expect(token == (adopted ? "AT-theirs" : "AT-2"))
        #expect(harness.transport.requests.count == (adopted ? 0 : 1))
    }

    // MARK: Without a refresh token

    @Test func withoutRefreshTokenAValidTokenIsStillReturned() async throws {
        let harness = try TokenStateHarness(tokens: Fixtures.tokens(refresh: nil))
        harness.wall.advance(seconds: 3600 - 30)
        #expect(try await harness.state.freshAccessToken() == "AT-1")
        #expect(harness.transport.requests.isEmpty)
    }

    @Test func withoutRefreshTokenAnExpiredTokenEndsTheSession() async throws {
        let harness = try TokenStateHarness(tokens: Fixtures.tokens(refresh: nil))
        harness.wall.advance(seconds: 3600)
        _ = await expectError(.sessionEnded) { _ = try await harness.state.freshAccessToken() }
        #expect(await harness.state.status == .noSession)
        #expect(try await harness.stored() == nil)
    }

    // MARK: Resources (RFC 8707)

    @Test func resourceTokensAreRequestedStoredAndCached() async throws {
        let answer = ScriptedTransport.json(Fixtures.tokenJSON(access: "API-1", refresh: "RT-2", expiresIn: 600))
        let harness = try TokenStateHarness(replies: [answer])
        #expect(try await harness.state.freshAccessToken(for: Fixtures.api) == "API-1")
        #expect(try await harness.state.freshAccessToken(for: Fixtures.api) == "API-1")
        #expect(try await harness.state.freshAccessToken() == "AT-1")
        let requests = harness.transport.requests
        #expect(requests.map(\.bodyText) == [TokenStateHarness.refreshBody("RT-1", resource: Fixtures.api)])
        let stored = try await harness.stored()
        #expect(stored?.resourceTokens[Fixtures.api]?.accessToken == "API-1")
        #expect(stored?.refreshToken == "RT-2")
        #expect(stored?.accessToken == "AT-1")
    }

    @Test func aRefusedResourceKeepsTheSession() async throws {
        let refusal = ScriptedTransport.json("{\"error\":\"invalid_target\"}", status: 400)
        let harness = try TokenStateHarness(replies: [refusal])
        let error = await expectError(.oauth) { _ = try await harness.state.freshAccessToken(for: Fixtures.api) }
        #expect(error?.oauthError?.code == .invalidTarget)
        #expect(try await harness.state.freshAccessToken() == "AT-1")
    }

    @Test func aResourceRefreshWaitsForTheMainOneInsteadOfSpendingTheSameRefreshToken() async throws {
        let release = Gate()
        let resource = ScriptedTransport.json(Fixtures.tokenJSON(access: "API-1", refresh: "RT-3"))
        let harness = try await Self.expiredHarness(answeringAfter: release, then: [resource])
        let state = harness.state
        let first = Task { try await state.freshAccessToken() }
        while await state.refreshWaiterCount < 1 { await Task.yield() }
        let second = Task { try await state.freshAccessToken(for: Fixtures.api) }
        while await state.refreshWaiterCount < 2 { await Task.yield() }
        release.open()
        #expect(try await first.value == "AT-2")
        #expect(try await second.value == "API-1")
        #expect(
            harness.transport.requests.map(\.bodyText) == [
                TokenStateHarness.refreshBody("RT-1"), TokenStateHarness.refreshBody("RT-2", resource: Fixtures.api),
            ])
    }

    /// A token endpoint that hangs until `gate` opens, then fails as a time-out would; it counts the requests.
    final class HangingTokenEndpoint: HTTPTransport {
        let gate = Gate()
        let count = Locked(0)

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            count.withLock { $0 += 1 }
            await gate.wait()
            throw TransportError(.timedOut, "the token endpoint did not answer")
        }
    }

    // Issue 17: four helpers waiting on a hanging token endpoint took 30, 60, 61 and 89 s, each sending its own
    // request after the one before it had timed out.
    @Test(
        "a refresh that failed unanswered is the answer of those waiting on the lock, through any store of the folder",
        .timeLimit(.minutes(1)))
    func aFailedRefreshIsSharedWithTheWaiters() async throws {
        let (root, seed) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await seed.save(try Fixtures.record(tokens: Fixtures.tokens(access: "AT-old", expiresIn: 60)))
        let endpoint = HangingTokenEndpoint()
        let lockClock = ManualClock()
        let asked = Fixtures.start.addingTimeInterval(3_600)
        // One state per store, as in separate processes.
        func state(now: Date) throws -> TokenState {
            TokenState(
                profile: try Fixtures.profile(), client: Fixtures.client,
                store: FileTokenStore(directory: root, clock: lockClock), transport: endpoint, now: { now })
        }
        let first = try state(now: asked)
        let firstCall = Task { try await first.freshAccessToken() }
        while endpoint.count.withLock({ $0 }) == 0 { try await Task.sleep(for: .milliseconds(1)) }
        let waiters = try (0..<3).map { _ in try state(now: asked) }
        let finished = Locked(0)
        let waiting = waiters.map { waiter in
            Task {
                defer { finished.withLock { $0 += 1 } }
                return try await waiter.freshAccessToken()
            }
        }
        // All three wait for the lock the first one holds while its request hangs.
        await lockClock.sleepers(atLeast: 3)
        endpoint.gate.open()
        let firstError = await expectError(.transport) { _ = try await firstCall.value }
        #expect(firstError?.message.contains("did not answer") == true)
        while finished.withLock({ $0 }) < 3 {
            lockClock.advance(by: .milliseconds(100))
            try await Task.sleep(for: .milliseconds(1))
        }
        for call in waiting {
            let error = await expectError(.transport) { _ = try await call.value }
            #expect(error?.message.contains("another process's refresh of profile default failed just now") == true)
        }
        #expect(endpoint.count.withLock { $0 } == 1, "the token endpoint got more than one request")

        // Whoever asks after the failure sends a request of its own.
        let later = try state(now: asked.addingTimeInterval(1))
        _ = await expectError(.transport) { _ = try await later.freshAccessToken() }
        #expect(endpoint.count.withLock { $0 } == 2)
    }
}
