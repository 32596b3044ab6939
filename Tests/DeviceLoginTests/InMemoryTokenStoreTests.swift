@testable import DeviceLogin
import Testing

@Suite struct InMemoryTokenStoreTests {
    @Test func savesLoadsListsAndRemoves() async throws {
        let store = InMemoryTokenStore(records: [try Fixtures.record(name: "b", tokens: nil)])
        #expect(try await store.load(profile: "a") == nil)
        let record = try Fixtures.record(name: "a", tokens: Fixtures.tokens())
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
