import DeviceLoginTesting
import Foundation
import Testing

@testable import DeviceLogin

@Suite struct JSONWebKeySetCacheTests {
    static let url = URL(string: "https://auth.example.com/jwks")

    @Test func keepsTheSetAndFetchesAgainAtMostOncePerInterval() async throws {
        let url = try #require(Self.url)
        let clock = ManualClock()
        let transport = ScriptedTransport(otherwise: ScriptedTransport.json(#"{"keys":[]}"#))
        let fetcher = JSONWebKeySetFetcher(transport: transport)
        let cache = JSONWebKeySetCache(clock: clock, refetchInterval: .seconds(300))
        #expect(await cache.cached(url) == nil)
        _ = try await cache.keySet(url, using: fetcher)
        _ = try await cache.keySet(url, using: fetcher)
        #expect(transport.requests.count == 1)
        #expect(await cache.cached(url) != nil)
        // The first fetch does not count against the allowance.
        #expect(try await cache.refetch(url, using: fetcher) != nil)
        #expect(transport.requests.count == 2)
        clock.advance(by: .seconds(299))
        #expect(try await cache.refetch(url, using: fetcher) == nil)
        #expect(transport.requests.count == 2)
        clock.advance(by: .seconds(1))
        #expect(try await cache.refetch(url, using: fetcher) != nil)
        #expect(transport.requests.count == 3)
    }

    @Test func aFailedRefetchSpendsTheAllowanceAndKeepsTheSet() async throws {
        let url = try #require(Self.url)
        let clock = ManualClock()
        let transport = ScriptedTransport(
            [ScriptedTransport.json(#"{"keys":[]}"#), ScriptedTransport.status(503)],
            otherwise: ScriptedTransport.json(#"{"keys":[]}"#)
        )
        let fetcher = JSONWebKeySetFetcher(transport: transport)
        let cache = JSONWebKeySetCache(clock: clock)
        #expect(cache.refetchInterval == JSONWebKeySetCache.defaultRefetchInterval)
        _ = try await cache.keySet(url, using: fetcher)
        await #expect(throws: DeviceLoginError.self) { _ = try await cache.refetch(url, using: fetcher) }
        #expect(try await cache.refetch(url, using: fetcher) == nil)
        #expect(await cache.cached(url) != nil)
        #expect(transport.requests.count == 2)
    }

    @Test func eachKeySetIsItsOwn() async throws {
        let first = try #require(Self.url)
        let second = try #require(URL(string: "https://other.example.com/jwks"))
        let cache = JSONWebKeySetCache(clock: ManualClock())
        await cache.store(JSONWebKeySet(keys: [], skipped: 1), for: first)
        #expect(await cache.cached(first)?.skipped == 1)
        #expect(await cache.cached(second) == nil)
        let fetcher = JSONWebKeySetFetcher(
            transport: ScriptedTransport(otherwise: ScriptedTransport.json(#"{"keys":[]}"#)))
        #expect(try await cache.refetch(first, using: fetcher) != nil)
        #expect(try await cache.refetch(second, using: fetcher) != nil, "the allowance is per key set")
    }
}
