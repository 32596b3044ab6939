import Foundation
import Testing

@testable import DeviceLogin

@Suite struct TokenStateSignOutTests {
    static func tokensWithResource() -> TokenSet {
        var tokens = Fixtures.tokens()
        tokens.resourceTokens[Fixtures.api] = .init(accessToken: "API-1", expiresAt: nil, issuedAt: Fixtures.start)
        return tokens
    }

    @Test func revokesRefreshTokenFirstThenAccessTokensThenClears() async throws {
        let ok = ScriptedTransport.status(200)
        let harness = try TokenStateHarness(tokens: Self.tokensWithResource(), replies: [ok, ok, ok])
        let result = try await harness.state.signOut()

        let requests = harness.transport.requests
        #expect(requests.map(\.url) == Array(repeating: Fixtures.url("/revoke"), count: 3))
        #expect(
            requests.map(\.bodyText) == [
                "token=RT-1&token_type_hint=refresh_token&client_id=cli",
                "token=AT-1&token_type_hint=access_token&client_id=cli",
                "token=API-1&token_type_hint=access_token&client_id=cli",
            ])
        #expect(requests.allSatisfy { $0.header("Content-Type") == "application/x-www-form-urlencoded" })
        #expect(
            result.revocations == [
                .init(token: .refreshToken, outcome: .revoked),
                .init(token: .accessToken, outcome: .revoked),
                .init(token: .resourceAccessToken(resource: Fixtures.api), outcome: .revoked),
            ])
        #expect(result.isComplete)
        #expect(await harness.state.status == .noSession)
        #expect(try await harness.stored() == nil)
    }

    @Test func revocationUsesTheClientAuthenticationOfTheTokenEndpoint() async throws {
        let client = ClientConfiguration(clientID: "cli", authentication: .clientSecretPost(secret: "s"))
        let ok = ScriptedTransport.status(200)
        let harness = try TokenStateHarness(replies: [ok, ok], client: client)
        try await harness.state.signOut()
        #expect(
            harness.transport.requests.first?.bodyText
                == "token=RT-1&token_type_hint=refresh_token&client_id=cli&client_secret=s")
    }

    @Test func failedRevocationsAreReportedAndLocalStateIsClearedAnyway() async throws {
        let refused = ScriptedTransport.json("{\"error\":\"unsupported_token_type\"}", status: 400)
        let harness = try TokenStateHarness(replies: [ScriptedTransport.status(503), refused])
        let result = try await harness.state.signOut()
        #expect(!result.isComplete)
        #expect(result.unrevoked.map(\.token) == [.refreshToken, .accessToken])
        guard case .failed(let first) = result.revocations[0].outcome,
            case .failed(let second) = result.revocations[1].outcome
        else {
            Issue.record("expected two failures, got \(result.revocations)")
            return
        }
        #expect(first.code == .transport)
        #expect(first.message.contains("503"))
        #expect(second.oauthError?.code == .unsupportedTokenType)
        #expect(await harness.state.status == .noSession)
        #expect(try await harness.stored() == nil)
    }

    // MARK: Keeping the tokens when the server could not revoke them (issue 8: logout deleted them anyway)

    @Test(arguments: [
        [ScriptedTransport.status(503), ScriptedTransport.status(503)],
        [ScriptedTransport.status(503), ScriptedTransport.status(200)],
        [ScriptedTransport.status(200), ScriptedTransport.failure(.connectionFailed)],
        [ScriptedTransport.json("{\"error\":\"invalid_client\"}", status: 401), ScriptedTransport.status(200)],
    ])
    func aFailedRevocationKeepsTheTokensWhenAsked(replies: [ScriptedTransport.Reply]) async throws {
        let harness = try TokenStateHarness(replies: replies)
        try await harness.state.load()
        let result = try await harness.state.signOut(whenRevocationFails: .keepTokens)
        #expect(result.keptTokens)
        #expect(result.hasFailures)
        #expect(result.revocations.count == 2)
        #expect(try await harness.stored() == Fixtures.tokens())
        #expect(await harness.state.status == .authenticated(Fixtures.tokens()))
        #expect(harness.store.count("save") == 0)
    }

    @Test func keepingTokensOnFailureStillClearsThemWhenAllAreRevoked() async throws {
        let ok = ScriptedTransport.status(200)
        let harness = try TokenStateHarness(replies: [ok, ok])
        let result = try await harness.state.signOut(whenRevocationFails: .keepTokens)
        #expect(!result.keptTokens)
        #expect(result.isComplete)
        #expect(try await harness.stored() == nil)
        #expect(await harness.state.status == .noSession)
    }

    @Test func withoutARevocationEndpointKeepingTokensOnFailureStillClearsThem() async throws {
        var endpoints = Fixtures.endpoints
        endpoints.revocation = nil
        let harness = try TokenStateHarness(profile: try Fixtures.profile(endpoints: endpoints))
        let result = try await harness.state.signOut(whenRevocationFails: .keepTokens)
        #expect(!result.keptTokens)
        #expect(!result.hasFailures)
        #expect(!result.isComplete)
        #expect(try await harness.stored() == nil)
    }

    @Test func aTransportFailureIsReportedPerToken() async throws {
        let harness = try TokenStateHarness(
            replies: [ScriptedTransport.failure(.connectionFailed), ScriptedTransport.status(200)]
        )
        let result = try await harness.state.signOut()
        #expect(result.unrevoked.map(\.token) == [.refreshToken])
        #expect(result.revocations.last?.outcome == .revoked)
    }

    @Test func withoutARevocationEndpointNothingIsSentAndEverythingIsReported() async throws {
        var endpoints = Fixtures.endpoints
        endpoints.revocation = nil
        let harness = try TokenStateHarness(profile: try Fixtures.profile(endpoints: endpoints))
        let result = try await harness.state.signOut()
        #expect(harness.transport.requests.isEmpty)
        #expect(
            result.revocations.map(\.outcome) == [
                .skipped(reason: "the server has no revocation endpoint"),
                .skipped(reason: "the server has no revocation endpoint"),
            ])
        #expect(try await harness.stored() == nil)
    }

    @Test func revokesTheNewestStoredTokensNotStaleOnesInMemory() async throws {
        let ok = ScriptedTransport.status(200)
        let harness = try TokenStateHarness(replies: [ok, ok])
        try await harness.state.load()
        try await harness.memory.save(try Fixtures.record(tokens: Fixtures.tokens(access: "AT-9", refresh: "RT-9")))
        try await harness.state.signOut()
        #expect(
            harness.transport.requests.map(\.bodyText).first
                == "token=RT-9&token_type_hint=refresh_token&client_id=cli")
    }

    @Test func signingOutWithoutASessionSendsNothing() async throws {
        let harness = try TokenStateHarness(tokens: nil)
        let result = try await harness.state.signOut()
        #expect(result.revocations.isEmpty)
        #expect(result.isComplete)
        #expect(harness.transport.requests.isEmpty)
    }

    /// Cancelling stops the revocation at once; by default the tokens are cleared anyway, with `.keepTokens` they
    /// stay as they were (nothing was revoked for sure).
    @Test(arguments: [TokenState.WhenRevocationFails.clearTokens, .keepTokens])
    func cancellationStopsRevoking(whenRevocationFails policy: TokenState.WhenRevocationFails) async throws {
        let arrived = Gate()
        let harness = try TokenStateHarness(replies: [
            { _ in
                arrived.open()
                try await Task.sleep(for: .seconds(3600))
                return HTTPResponse(status: 200)
            }
        ])
        let state = harness.state
        try await state.load()
        let signOut = Task { try await state.signOut(whenRevocationFails: policy) }
        await arrived.wait()
        signOut.cancel()
        await #expect(throws: CancellationError.self) { try await signOut.value }
        #expect(harness.transport.requests.count == 1)
        let kept = policy == .keepTokens
        #expect(await harness.state.status == (kept ? .authenticated(Fixtures.tokens()) : .noSession))
        #expect(try await harness.stored() == (kept ? Fixtures.tokens() : nil))
    }
}
