import Foundation
import Testing

@testable import DeviceLogin

@Suite struct TokenStateTests {
    @Test func anEmptyStoreMeansNoSession() async throws {
        let harness = try TokenStateHarness(tokens: nil)
        #expect(await harness.state.status == .unknown)
        #expect(try await harness.state.load() == .noSession)
        let error = await expectError(.noSession) { _ = try await harness.state.freshAccessToken() }
        #expect(error?.hint?.contains("sign in") == true)
        #expect(harness.transport.requests.isEmpty)
    }

    @Test func loadFindsTheStoredTokens() async throws {
        let harness = try TokenStateHarness()
        #expect(try await harness.state.load() == .authenticated(Fixtures.tokens()))
        #expect(await harness.state.tokens == Fixtures.tokens())
    }

    @Test func storeReplacesTheTokensAndSavesTheProfileUnderTheLock() async throws {
        let harness = try TokenStateHarness()
        harness.wall.advance(seconds: 10)
        let response = TokenResponse(accessToken: "AT-new", expiresIn: 600, refreshToken: "RT-new")
        try await harness.state.store(response)
        let expected = TokenSet(response: response, receivedAt: harness.wall.date)
        #expect(await harness.state.status == .authenticated(expected))
        let record = try await harness.memory.load(profile: "default")
        #expect(record?.tokens == expected)
        #expect(record?.tokens?.expiresAt == Fixtures.start.addingTimeInterval(610))
        #expect(record?.profile == (try Fixtures.profile()))
        #expect(harness.store.count("lock") == 1)
        #expect(try await harness.state.freshAccessToken() == "AT-new")
    }

    // Issue 8: tokens that could not be saved after the person approved were dropped while still valid at the server.
    @Test(arguments: [
        (200, "the new tokens were not saved, so they were revoked at the server"),
        (503, "could not all be revoked: the refresh token (failed: "),
    ])
    func tokensThatCannotBeSavedAreRevokedWhenAsked(status: Int, outcome: String) async throws {
        let (root, files) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: root)
        let transport = ScriptedTransport([ScriptedTransport.status(status), ScriptedTransport.status(status)])
        let state = TokenState(
            profile: try Fixtures.profile(), client: Fixtures.client, store: files, transport: transport,
            now: WallClock().now
        )
        let response = TokenResponse(accessToken: "AT-new", expiresIn: 600, refreshToken: "RT-new")
        let error = await expectError(.storage) { try await state.store(response, revokingIfNotSaved: true) }
        #expect(error?.message.contains("can be accessed by other users") == true)
        #expect(error?.message.contains(outcome) == true, "\(String(describing: error))")
        #expect(
            transport.requests.map(\.bodyText) == [
                "token=RT-new&token_type_hint=refresh_token&client_id=cli",
                "token=AT-new&token_type_hint=access_token&client_id=cli",
            ])
        #expect(await state.status == .noSession)
    }

    @Test func tokensThatCannotBeSavedStayInMemoryByDefault() async throws {
        let (root, files) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: root)
        let transport = ScriptedTransport()
        let state = TokenState(
            profile: try Fixtures.profile(), client: Fixtures.client, store: files, transport: transport,
            now: WallClock().now
        )
        _ = await expectError(.storage) { try await state.store(TokenResponse(accessToken: "AT-new")) }
        #expect(try await state.freshAccessToken() == "AT-new")
        #expect(transport.requests.isEmpty)
    }

    @Test func withoutAStorePersistenceIsOff() async throws {
        let state = TokenState(
            profile: try Fixtures.profile(), client: Fixtures.client, store: nil, transport: ScriptedTransport(),
            now: WallClock().now
        )
        #expect(try await state.load() == .noSession)
        try await state.store(TokenResponse(accessToken: "AT", expiresIn: 3600))
        #expect(try await state.freshAccessToken() == "AT")
        try await state.clearCredentials()
        #expect(await state.status == .noSession)
    }

    @Test func clearCredentialsIsLocalAndKeepsTheProfile() async throws {
        let harness = try TokenStateHarness()
        try await harness.state.load()
        try await harness.state.clearCredentials()
        #expect(await harness.state.status == .noSession)
        let record = try await harness.memory.load(profile: "default")
        #expect(record != nil)
        #expect(record?.tokens == nil)
        #expect(harness.transport.requests.isEmpty)
    }

    // Issue 17: a token whose expires_in could not be read was used for ever; it is refreshed once its assumed
    // lifetime is over.
    @Test func aTokenWithAnUnreadableExpiresInIsRefreshedAfterTheAssumedLifetime() async throws {
        let first = #"{"access_token":"AT-1","token_type":"Bearer","refresh_token":"RT-1","expires_in":"soon"}"#
        let harness = try TokenStateHarness(
            tokens: nil, replies: [ScriptedTransport.json(Fixtures.tokenJSON(access: "AT-2"))])
        try await harness.state.load()
        let response = try TokenResponse(jsonObject: try JSONValue.decodeObject(from: Data(first.utf8)))
        try await harness.state.store(response)
        #expect(try await harness.state.freshAccessToken() == "AT-1")
        #expect(harness.transport.requests.isEmpty)
        harness.wall.advance(seconds: 3600)
        #expect(try await harness.state.freshAccessToken() == "AT-2")
        #expect(harness.transport.requests.map(\.bodyText) == [TokenStateHarness.refreshBody("RT-1")])
    }

    @Test func eachObserverGetsTheCurrentStatusThenEveryChangeInOrder() async throws {
        let refreshed = Fixtures.tokenJSON(access: "AT-2", refresh: "RT-2")
        let harness = try TokenStateHarness(replies: [ScriptedTransport.json(refreshed)])
        let first = await harness.state.states
        try await harness.state.load()
        let second = await harness.state.states
        harness.wall.advance(seconds: 3600)
        _ = try await harness.state.freshAccessToken()
        let afterRefresh = try #require(await harness.state.tokens)
        try await harness.state.clearCredentials()

        let loaded = TokenState.Status.authenticated(Fixtures.tokens())
        let expected: [TokenState.Status] = [.unknown, loaded, .authenticated(afterRefresh), .noSession]
        #expect(await collect(first, count: 4) == expected)
        #expect(await collect(second, count: 3) == Array(expected.dropFirst()))
        #expect(afterRefresh.accessToken == "AT-2")
    }

    @Test func streamsFinishWhenTheStateIsReleased() async throws {
        var state: TokenState? = TokenState(
            profile: try Fixtures.profile(), client: Fixtures.client, store: nil, transport: ScriptedTransport()
        )
        let stream = try #require(await state?.states)
        state = nil
        var received: [TokenState.Status] = []
        for await status in stream { received.append(status) }
        #expect(received == [.unknown])
    }

    /// The CLI's `token` command: a stored, valid token costs one file read and no network.
    @Test func aValidStoredTokenCostsOneReadAndNoNetwork() async throws {
        let (root, files) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await files.save(try Fixtures.record(tokens: Fixtures.tokens()))
        let store = CountingStore(files)
        let transport = ScriptedTransport()
        let wall = WallClock()

        let lazy = TokenState(
            profile: try Fixtures.profile(), client: Fixtures.client, store: store, transport: transport, now: wall.now
        )
        #expect(try await lazy.freshAccessToken() == "AT-1")
        #expect(store.count("load") == 1)

        let record = try #require(try await store.load(profile: "default"))
        let restored = TokenState(
            record: record, client: try record.profile.clientConfiguration(), store: store, transport: transport,
            now: wall.now
        )
        #expect(try await restored.freshAccessToken() == "AT-1")
        #expect(store.count("load") == 2)
        #expect(store.count("lock") == 0)
        #expect(store.count("save") == 0)
        #expect(transport.requests.isEmpty)
    }
}

/// The first `count` elements of a stream.
func collect<Element>(_ stream: AsyncStream<Element>, count: Int) async -> [Element] {
    var elements: [Element] = []
    for await element in stream.prefix(count) { elements.append(element) }
    return elements
}
