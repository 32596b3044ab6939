import DeviceLogin
import DeviceLoginTesting
import Foundation
import Testing

@testable import DeviceLoginCLI

/// What the agent holds and answers, over real token states signed in at the testing kit's mock (in process):
/// git's `erase` marks the refused token expired so the next token is a refreshed one; `list` names the profiles.
@Suite("Agent keeper: erase and list")
struct AgentKeeperTests {
    static let team = "https://git.example.test/team"

    /// A keeper holding the fixture's profiles, each with a token state over the mock.
    static func keeper(_ fixture: HelperFixture, names: [String]) async throws -> AgentKeeper {
        let store = FileTokenStore(directory: fixture.profiles.home.path)
        var held: [AgentKeeper.Held] = []
        for name in names {
            let record = try #require(try await store.load(profile: name))
            let state = TokenState(
                record: record, client: try record.profile.clientConfiguration(secret: nil), store: store,
                transport: fixture.transport, clock: fixture.clock)
            held.append(AgentKeeper.Held(profile: record.profile, state: state))
        }
        return AgentKeeper(held)
    }

    static func request(_ operation: AgentRequest.Operation, url: String? = team, profile: String? = nil) throws
        -> AgentRequest
    {
        AgentRequest(profile: profile, url: try url.map(URLBinding.init), minimumLifetime: 60, operation: operation)
    }

    static func answer(_ keeper: AgentKeeper, _ request: AgentRequest) async throws -> AgentReply {
        guard case .success(let held?) = await keeper.profile(for: request) else {
            Issue.record("no profile answers")
            return .none
        }
        return await AgentKeeper.answer(held, to: request)
    }

    @Test("erase marks the refused token expired (only that one); the next token is refreshed")
    func erase() async throws {
        let fixture = try HelperFixture()
        defer { fixture.remove() }
        let first = try await fixture.signIn(bindings: [Self.team])
        let keeper = try await Self.keeper(fixture, names: ["default"])
        #expect(try await Self.answer(keeper, Self.request(.erase(accessToken: "another"))) == .erased(false))
        guard case .token(let same) = try await Self.answer(keeper, Self.request(.token)) else {
            Issue.record("no token")
            return
        }
        #expect(same.accessToken == first)
        #expect(try await Self.answer(keeper, Self.request(.erase(accessToken: first))) == .erased(true))
        guard case .token(let fresh) = try await Self.answer(keeper, Self.request(.token)) else {
            Issue.record("no token")
            return
        }
        #expect(fresh.accessToken != first)
    }

    @Test("list names every profile held (or the one asked for), with user names and bindings, and no token")
    func listing() async throws {
        let fixture = try HelperFixture()
        defer { fixture.remove() }
        try await fixture.signIn("work", bindings: [Self.team], username: "alice")
        try await fixture.signIn("default", bindings: [])
        let keeper = try await Self.keeper(fixture, names: ["work", "default"])
        let all = await keeper.listing(try Self.request(.list, url: nil))
        #expect(
            all
                == .profiles([
                    AgentReply.Listed(name: "default", username: nil, bindings: []),
                    AgentReply.Listed(name: "work", username: "alice", bindings: [Self.team]),
                ]))
        #expect(!all.line.contains("access_token"))
        let one = await keeper.listing(try Self.request(.list, url: nil, profile: "work"))
        #expect(one == .profiles([AgentReply.Listed(name: "work", username: "alice", bindings: [Self.team])]))
        guard case .failure(let missing) = await keeper.listing(try Self.request(.list, url: nil, profile: "gone"))
        else {
            Issue.record("a missing profile listed")
            return
        }
        #expect(missing.error == AgentReply.Failure.signInNeeded)
    }
}
