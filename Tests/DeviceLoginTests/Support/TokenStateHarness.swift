import DeviceLoginTesting
import Foundation
import Testing

@testable import DeviceLogin

/// A ``TokenState`` wired to a scripted transport, an in-memory store (counted) and time the test controls.
struct TokenStateHarness {
    let transport: ScriptedTransport
    let memory: InMemoryTokenStore
    let store: CountingStore
    let wall = WallClock()
    let clock = ManualClock()
    let state: TokenState

    /// - Parameters:
    ///   - tokens: The stored tokens (a record without tokens when nil).
    ///   - replies: The transport's replies in order.
    ///   - profile: The profile; default ``Fixtures/profile(name:endpoints:)``.
    ///   - client: The client configuration.
    ///   - onSave: Called after each save, with the record saved.
    init(
        tokens: TokenSet? = Fixtures.tokens(),
        replies: [ScriptedTransport.Reply] = [],
        profile: Profile? = nil,
        client: ClientConfiguration = Fixtures.client,
        onSave: @escaping @Sendable (ProfileRecord) -> Void = { _ in }
    ) throws {
        let profile = try profile ?? Fixtures.profile()
        transport = ScriptedTransport(replies)
        memory = InMemoryTokenStore(records: [ProfileRecord(profile: profile, tokens: tokens)])
        store = CountingStore(memory, onSave: onSave)
        state = TokenState(
            profile: profile, client: client, store: store, transport: transport, clock: clock, now: wall.now
        )
    }

    /// The tokens in the store now.
    func stored() async throws -> TokenSet? {
        try await memory.load(profile: "default")?.tokens
    }

    /// The refresh request body for `refreshToken`, byte for byte.
    static func refreshBody(_ refreshToken: String, resource: String? = nil) -> String {
        let resourcePart = resource.map { "&resource=" + FormEncoding.escape($0) } ?? ""
        return "grant_type=refresh_token&refresh_token=\(refreshToken)\(resourcePart)&client_id=cli"
    }
}

/// Runs `body`, expecting a ``DeviceLoginError`` with `code`, and returns it.
func expectError(
    _ code: DeviceLoginError.Code, _ body: () async throws -> Void
) async -> DeviceLoginError? {
    do {
        try await body()
        Issue.record("expected \(code), got no error")
    } catch let error as DeviceLoginError {
        #expect(error.code == code, "\(error)")
        return error
    } catch {
        Issue.record("expected \(code), got \(error)")
    }
    return nil
}
