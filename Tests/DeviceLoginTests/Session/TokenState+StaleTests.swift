import Foundation
import Testing

@testable import DeviceLogin

@Suite("TokenState.markAccessTokenStale: git's erase")
struct TokenStateStaleTests {
    @Test("the rejected token is marked expired in the store, under the lock; the next call refreshes")
    func marksAndRefreshes() async throws {
        let harness = try TokenStateHarness(replies: [
            ScriptedTransport.json(Fixtures.tokenJSON(access: "AT-2", refresh: "RT-2"))
        ])
        #expect(try await harness.state.freshAccessToken() == "AT-1")
        #expect(try await harness.state.markAccessTokenStale("AT-1"))
        #expect(harness.store.count("lock") == 1)
        let stored = try #require(try await harness.stored())
        #expect(stored.accessToken == "AT-1")
        #expect(stored.refreshToken == "RT-1")
        #expect(stored.expiresAt == Date(timeIntervalSince1970: 0))
        #expect(harness.transport.requests.isEmpty)
        #expect(try await harness.state.freshAccessToken() == "AT-2")
        #expect(harness.transport.requests.count == 1)
        #expect(
            harness.transport.requests.first?.body.map { String(decoding: $0, as: UTF8.self) }
                == TokenStateHarness.refreshBody("RT-1"))
    }

    @Test("a token already replaced is left alone: its successor is not thrown away")
    func leavesASuccessor() async throws {
        let harness = try TokenStateHarness(tokens: Fixtures.tokens(access: "AT-9"))
        #expect(try await harness.state.markAccessTokenStale("AT-1") == false)
        #expect(try await harness.stored() == Fixtures.tokens(access: "AT-9"))
        #expect(try await harness.state.freshAccessToken() == "AT-9")
        #expect(harness.transport.requests.isEmpty)
    }

    @Test("nil marks whichever token is held; without tokens nothing is marked and nothing is signed out")
    func nilAndNoTokens() async throws {
        let harness = try TokenStateHarness()
        #expect(try await harness.state.markAccessTokenStale(nil))
        #expect(try await harness.stored()?.expiresAt == Date(timeIntervalSince1970: 0))

        let empty = try TokenStateHarness(tokens: nil)
        #expect(try await empty.state.markAccessTokenStale(nil) == false)
        #expect(try await empty.memory.load(profile: "default") != nil)
    }

    @Test("without a store, the tokens in memory are marked")
    func inMemory() async throws {
        let state = TokenState(
            record: try Fixtures.record(tokens: Fixtures.tokens()), client: Fixtures.client, store: nil,
            transport: ScriptedTransport([]), now: WallClock().now)
        #expect(try await state.markAccessTokenStale("AT-1"))
        #expect(await state.tokens?.expiresAt == Date(timeIntervalSince1970: 0))
    }
}
