import DeviceLoginTesting
import Foundation
import Testing

@testable import DeviceLogin

/// The token state judges ID tokens: at sign-in, at a refresh when it holds the keys, and on demand; and keeps the
/// verdict with the tokens.
@Suite struct TokenStateIDTokenTests {
    /// A mock server and a token state of a profile of it, over an in-memory store, in time the test moves.
    struct Harness {
        let clock = ManualClock()
        let wall = WallClock(VerifierHarness.now)
        let server: MockAuthorizationServer
        let memory = InMemoryTokenStore()
        let profile: Profile
        let client = ClientConfiguration(clientID: VerifierHarness.clientID)

        init(_ signing: MockAuthorizationServer.IDTokenSigning = .signed(.rs256)) throws {
            server = MockAuthorizationServer(
                configuration: .init(idTokenSigning: signing), clock: clock, now: wall.now
            )
            profile = try Profile(endpoints: try server.endpoints(), clientID: VerifierHarness.clientID)
        }

        /// A new token state, as a new process would make: holding no keys.
        func state(record: ProfileRecord? = nil) -> TokenState {
            let transport = InProcessTransport(server: server)
            if let record {
                return TokenState(
                    record: record, client: client, store: memory, transport: transport, clock: clock, now: wall.now
                )
            }
            return TokenState(
                profile: profile, client: client, store: memory, transport: transport, clock: clock, now: wall.now
            )
        }

        func signIn() async throws -> TokenResponse {
            try await VerifierHarness.signInResponse(to: server)
        }

        func stored() async throws -> TokenSet? {
            try await memory.load(profile: profile.name)?.tokens
        }

        var fetches: Int { server.requests(to: .jwks).count }
    }

    @Test func signingInVerifiesTheIDTokenAndKeepsTheVerdict() async throws {
        let harness = try Harness(.signed(.ps256))
        let state = harness.state()
        let response = try await harness.signIn()
        try await state.store(response)
        let verdict = try #require(await state.tokens?.idTokenVerification)
        #expect(verdict.outcome == .verified, "\(verdict)")
        #expect(verdict.algorithm == "PS256")
        #expect(verdict.isAbout(try #require(response.idToken)))
        #expect(try await harness.stored()?.idTokenVerification == verdict)
        #expect(try await state.idTokenVerification() == verdict)
        #expect(try await state.verifiedIDTokenClaims().email == "ada@example.test")
        #expect(harness.fetches == 1)
    }

    @Test func anUnverifiedIDTokenGivesNoVerifiedClaims() async throws {
        let harness = try Harness(.hs256(key: "secret"))
        let state = harness.state()
        try await state.store(try await harness.signIn())
        #expect(try await state.idTokenVerification()?.outcome == .refused)
        let error = await expectError(.invalidIDToken) { _ = try await state.verifiedIDTokenClaims() }
        #expect(error?.message.contains("is not verified: the ID token is signed with \"HS256\"") == true)
        #expect(error?.hint == "sign in again")
        #expect(try await state.unverifiedIDTokenClaims().email == "ada@example.test", "only by asking for it")
    }

    @Test func withoutAnIDTokenThereIsNoVerdict() async throws {
        let harness = try Harness()
        let state = harness.state()
        try await state.store(TokenResponse(accessToken: "at", expiresIn: 3600))
        #expect(try await state.idTokenVerification() == nil)
        _ = await expectError(.invalidIDToken) { _ = try await state.verifiedIDTokenClaims() }
        _ = await expectError(.noSession) {
            _ = try await TokenState(
                profile: harness.profile, client: harness.client, store: nil,
                transport: InProcessTransport(server: harness.server)
            ).idTokenVerification()
        }
    }

    /// A refresh brings a new ID token: the state that holds the issuer's keys judges it at once, without a request
    /// for the keys.
    @Test func aRefreshJudgesTheNewIDTokenWithTheKeysAtHand() async throws {
        let harness = try Harness(.signed(.es256))
        let state = harness.state()
        let response = try await harness.signIn()
        try await state.store(response)
        harness.wall.advance(seconds: 7200)
        _ = try await state.freshAccessToken()
        let refreshed = try #require(await state.tokens)
        #expect(refreshed.idToken != response.idToken)
        #expect(refreshed.idTokenVerification?.outcome == .verified)
        #expect(refreshed.idTokenVerification?.isAbout(try #require(refreshed.idToken)) == true)
        #expect(try await harness.stored()?.idTokenVerification == refreshed.idTokenVerification)
        #expect(harness.fetches == 1)
    }

    /// A refresh in a state that holds no keys (a new process: `device-login token`) leaves the new ID token
    /// unjudged, fetching nothing; asked later, the state judges it and keeps the verdict.
    @Test func aRefreshWithoutTheKeysLeavesTheNewIDTokenToBeJudgedWhenAsked() async throws {
        let harness = try Harness()
        try await harness.state().store(try await harness.signIn())
        #expect(harness.fetches == 1)
        harness.wall.advance(seconds: 7200)
        let record = try #require(try await harness.memory.load(profile: harness.profile.name))
        let later = harness.state(record: record)
        _ = try await later.freshAccessToken()
        #expect(harness.server.refreshRequestCount == 1)
        #expect(await later.tokens?.idTokenVerification == nil, "the old verdict was about the old token")
        #expect(try await harness.stored()?.idTokenVerification == nil)
        #expect(harness.fetches == 1, "a refresh fetches no keys")

        let verdict = try #require(try await later.idTokenVerification())
        #expect(verdict.isVerified, "\(verdict)")
        #expect(harness.fetches == 2)
        #expect(try await harness.stored()?.idTokenVerification == verdict)
        #expect(try await later.idTokenVerification() == verdict)
        #expect(harness.fetches == 2)
    }

    @Test func aVerdictAboutAnotherTokenIsNotBelieved() async throws {
        let harness = try Harness()
        try await harness.state().store(try await harness.signIn())
        var record = try #require(try await harness.memory.load(profile: harness.profile.name))
        let forged = try harness.server.signIDToken(
            [
                "iss": .string(harness.server.issuer), "aud": .string("someone-else"), "sub": .string("s"),
                "iat": .number(VerifierHarness.now.timeIntervalSince1970),
                "exp": .number(VerifierHarness.now.timeIntervalSince1970 + 60),
            ]
        )
        record.tokens?.idToken = forged
        try await harness.memory.save(record)
        let state = harness.state(record: record)
        let verdict = try #require(try await state.idTokenVerification())
        #expect(verdict.outcome == .refused)
        #expect(verdict.problem?.contains("not for client") == true, "\(verdict)")
        #expect(verdict.isAbout(forged))
        #expect(try await harness.stored()?.idTokenVerification == verdict)
    }

    // Issue 17: an unreachable key set made every later `status` wait for it again (up to the fetch's bound).
    @Test func keysThatCouldNotBeFetchedAreNotAskedForAgainWithinTheRecheckInterval() async throws {
        let harness = try Harness()
        let jwks = Locked(0)
        let transport = JWKSDownTransport(server: harness.server, fetches: jwks)
        let signIn = TokenState(
            profile: harness.profile, client: harness.client, store: harness.memory, transport: transport,
            clock: harness.clock, now: harness.wall.now)
        try await signIn.store(try await harness.signIn())
        let first = try #require(await signIn.tokens?.idTokenVerification)
        #expect(first.outcome == .undetermined, "\(first)")
        #expect(first.keysUnavailableAt == harness.wall.date)
        #expect(try await harness.stored()?.idTokenVerification == first, "kept with the tokens")
        #expect(jwks.withLock { $0 } == 1)
        // Later processes (`status`), as long as the interval lasts: the kept verdict, and no request.
        let interval = JSONWebKeySetCache.defaultRefetchInterval
        harness.clock.advance(by: interval - .seconds(1))
        harness.wall.advance(seconds: Double(interval.components.seconds) - 1)
        let record = try #require(try await harness.memory.load(profile: harness.profile.name))
        let within = TokenState(
            record: record, client: harness.client, store: harness.memory, transport: transport, clock: harness.clock,
            now: harness.wall.now)
        #expect(try await within.idTokenVerification() == first)
        #expect(jwks.withLock { $0 } == 1, "the key set was asked for again within the interval")
        // Once it has passed: asked for again, and the new verdict says when.
        harness.clock.advance(by: .seconds(1))
        harness.wall.advance(seconds: 1)
        let after = TokenState(
            record: record, client: harness.client, store: harness.memory, transport: transport, clock: harness.clock,
            now: harness.wall.now)
        let second = try #require(try await after.idTokenVerification())
        #expect(jwks.withLock { $0 } == 2)
        #expect(second.keysUnavailableAt == harness.wall.date)
        #expect(try await harness.stored()?.idTokenVerification == second)
    }

    @Test func aVerdictTheStoreCannotKeepIsStillGiven() async throws {
        let harness = try Harness()
        let response = try await harness.signIn()
        let tokens = TokenSet(response: response, receivedAt: harness.wall.date)
        let state = TokenState(
            record: ProfileRecord(profile: harness.profile, tokens: tokens), client: harness.client,
            store: FailingSaveStore(), transport: InProcessTransport(server: harness.server), clock: harness.clock,
            now: harness.wall.now
        )
        #expect(try await state.idTokenVerification()?.isVerified == true)
        #expect(await state.tokens?.idTokenVerification?.isVerified == true, "kept in memory")
    }
}

/// A store whose every save fails.
private struct FailingSaveStore: TokenStore {
    func load(profile name: String) async throws -> ProfileRecord? { nil }
    func save(_ record: ProfileRecord) async throws { throw DeviceLoginError(.storage, "read-only") }
    func remove(profile name: String) async throws {}
    func profileNames() async throws -> [String] { [] }
    func withExclusiveAccess<Value: Sendable>(
        profile name: String, _ body: @Sendable () async throws -> Value
    ) async throws -> Value {
        try await body()
    }
}

/// The mock server, except that its key set cannot be fetched: each request for it fails, and is counted.
private struct JWKSDownTransport: HTTPTransport {
    let server: MockAuthorizationServer
    let fetches: Locked<Int>

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        if request.url.path == server.configuration.paths.jwks {
            fetches.withLock { $0 += 1 }
            throw TransportError(.timedOut, "the key set did not answer")
        }
        return try await InProcessTransport(server: server).send(request)
    }
}
