import DeviceLogin
import DeviceLoginTesting
import Testing

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

@Suite struct InMemoryTokenStoreTests {
    @Test func savesLoadsListsAndRemoves() async throws {
        let store = InMemoryTokenStore(records: [try record(name: "b", tokens: nil)])
        #expect(try await store.load(profile: "a") == nil)
        let issued = Date(timeIntervalSince1970: 1_000_000)
        let tokens = TokenSet(accessToken: "AT-1", expiresAt: issued.addingTimeInterval(3600), issuedAt: issued)
        let record = try record(name: "a", tokens: tokens)
        try await store.save(record)
        #expect(try await store.load(profile: "a") == record)
        #expect(try await store.profileNames() == ["a", "b"])
        try await store.remove(profile: "a")
        try await store.remove(profile: "a")
        #expect(try await store.load(profile: "a") == nil)
    }

    @Test func exclusiveAccessRunsTheBodyAndPassesItsResult() async throws {
        let store = InMemoryTokenStore()
        let value = try await store.withExclusiveAccess(profile: "a") { 42 }
        #expect(value == 42)
    }
}

/// A record for the profile `name` on a fixed example server.
private func record(name: String, tokens: TokenSet?) throws -> ProfileRecord {
    let endpoints = ServerEndpoints(
        deviceAuthorization: URL(string: "https://auth.example.com/device")!,
        token: URL(string: "https://auth.example.com/token")!
    )
    return ProfileRecord(profile: try Profile(name: name, endpoints: endpoints, clientID: "cli"), tokens: tokens)
}
