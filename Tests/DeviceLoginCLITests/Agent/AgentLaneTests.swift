import DeviceLogin
import Foundation
import Testing

@testable import DeviceLoginCLI

/// A scripted agent in process: a real listener on a socket in a private folder, answering each request with
/// `answer` (the requests it got are kept).
final class ScriptedAgent: Sendable {
    let socket: String
    private let folder: String
    private let place: AgentPlace
    private let listening: Int32
    private let listener: AgentListener
    private let asked = Locked<[AgentRequest]>([])

    init(_ answer: @escaping @Sendable (AgentRequest) -> AgentReply) throws {
        var template = Array((NSTemporaryDirectory() + "/agent-lane.XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        try #require(made != nil)
        folder = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        place = try AgentPlace.make(folder + "/agent.sock", environment: [:])
        socket = place.socket
        listening = try place.listen()
        listener = try AgentListener(listening: listening, owner: getuid(), requestSeconds: 300)
        try listener.start()
        let listener = listener
        let asked = asked
        Task {
            for await job in listener.requests {
                asked.withLock { $0.append(job.request) }
                listener.reply(answer(job.request), to: job)
            }
        }
    }

    /// The requests answered so far.
    var requests: [AgentRequest] { asked.withLock { $0 } }

    func stop() {
        listener.stop()
        close(listening)
        place.remove()
        rmdir(folder)
    }
}

/// The agent's lane on the full path: with `DEVICE_LOGIN_AGENT_SOCK` set, a helper run by
/// ``CLI/run(_:context:commands:)`` (what runs when the fast lane was skipped: stdout closed, hardening failed) asks
/// the agent and never the local store.
@Suite("Agent lane: one decision for both paths")
struct AgentLaneTests {
    static let agentToken = AgentReply.Token(
        profile: "default", accessToken: "agent-token", tokenType: "Bearer", expiresAt: 4_102_444_800, username: nil)

    /// A home holding a valid local token, which no helper may give while an agent is named.
    static func localHome() async throws -> ProfileFixture {
        let fixture = try ProfileFixture()
        try await fixture.save(
            TokenSet(accessToken: "local-token", expiresAt: Date().addingTimeInterval(3600), issuedAt: Date()))
        return fixture
    }

    /// Runs `arguments` in process over a home with a local token, with `agent` named; the fixture is removed.
    static func run(_ arguments: [String], agent: ScriptedAgent, input: String = "") async throws
        -> (code: ExitCode, stdout: String, stderr: String)
    {
        let fixture = try await localHome()
        defer { fixture.remove() }
        var environment = fixture.environment
        environment[AgentSocket.variable] = agent.socket
        return await CLIHarness.run(arguments, environment: environment, stdin: .bytes(Array(input.utf8)))
    }

    @Test("the socket is the variable's value; unset or empty names none")
    func socketDecision() {
        #expect(AgentSocket.named { $0 == AgentSocket.variable ? "/run/a.sock" : nil } == "/run/a.sock")
        #expect(AgentSocket.named { $0 == AgentSocket.variable ? "" : nil } == nil)
        #expect(AgentSocket.named { _ in nil } == nil)
        #expect(AgentLane.helper("token")?.name == "token" && AgentLane.helper("exec")?.name == "exec")
        #expect(AgentLane.helper("login") == nil && AgentLane.helper("agent") == nil)
    }

    @Test(
        "the full path with an unreachable agent: exit 77 for every helper, never the local token",
        arguments: [
            (["token"], ""), (["curl-config"], ""), (["kubectl-credential"], ""),
            (["git-credential", "get"], "protocol=https\nhost=git.example.test\n\n"),
            (["docker-credential", "get"], "https://registry.example.test"),
            (["exec", "--", "/bin/true"], ""),
        ])
    func unreachableAgent(arguments: [String], input: String) async throws {
        let fixture = try await Self.localHome()
        defer { fixture.remove() }
        var environment = fixture.environment
        environment[AgentSocket.variable] = NSTemporaryDirectory() + "/no-agent-\(UUID().uuidString).sock"
        let run = await CLIHarness.run(arguments, environment: environment, stdin: .bytes(Array(input.utf8)))
        #expect(run.code == .notSignedIn, "\(arguments): \(run.stderr)")
        #expect(run.stdout == (arguments[0] == "git-credential" ? "quit=1\n" : ""))
        #expect(!run.stdout.contains("local-token"))
        #expect(run.stderr.contains("cannot reach the agent"))
    }

    @Test("the full path answers with the agent's token, and traces the exchange with --verbose")
    func agentAnswersOnTheFullPath() async throws {
        let agent = try ScriptedAgent { _ in .token(Self.agentToken) }
        defer { agent.stop() }
        let token = try await Self.run(["token", "--min-ttl", "120", "--verbose"], agent: agent)
        #expect(token.code == .success && token.stdout == "agent-token\n", "\(token.stderr)")
        #expect(token.stderr.contains("device-login: agent: asking "))
        #expect(!token.stderr.contains("agent-token"))
        let curl = try await Self.run(["curl-config"], agent: agent)
        #expect(curl.stdout == "header = \"Authorization: Bearer agent-token\"\n")
        #expect(agent.requests.map(\.minimumLifetime) == [120, 60])
    }

    @Test(
        "words the helper refuses are its usage errors on the full path, and ask no agent",
        arguments: [["token", "--min-ttl", "soon"], ["exec"], ["git-credential"], ["docker-credential", "copy"]])
    func usageErrors(arguments: [String]) async throws {
        let agent = try ScriptedAgent { _ in .token(Self.agentToken) }
        defer { agent.stop() }
        let run = try await Self.run(arguments, agent: agent)
        #expect(run.code == .usage, "\(arguments): \(run.stderr)")
        #expect(run.stdout.isEmpty && agent.requests.isEmpty)
    }

    @Test("DPoP: the helpers ask the agent for a proof of their request, and refuse a token that has none")
    func proofsFromTheAgent() async throws {
        let agent = try ScriptedAgent { request in
            guard case .proof(let method, _, _) = request.operation else {
                return .token(
                    AgentReply.Token(
                        profile: "api", accessToken: "dpop-token", tokenType: "DPoP", expiresAt: nil, username: nil))
            }
            return .token(
                AgentReply.Token(
                    profile: "api", accessToken: "dpop-token", tokenType: "DPoP", expiresAt: nil, username: nil,
                    proof: "proof-for-\(method)"))
        }
        defer { agent.stop() }
        let url = "https://api.example.test/v1/items"
        let curl = try await Self.run(["curl-config", "--url", url, "--method", "post"], agent: agent)
        #expect(
            curl.stdout
                == "header = \"Authorization: DPoP dpop-token\"\nheader = \"DPoP: proof-for-POST\"\n", "\(curl.stderr)")
        let proof = try await Self.run(["dpop-proof", "--url", url, "--nonce", "n-1"], agent: agent)
        #expect(proof.code == .success && proof.stdout == "proof-for-GET\n")
        let exec = try await Self.run(
            ["exec", "--dpop-url", url, "--", "/bin/sh", "-c", #"test "$DEVICE_LOGIN_DPOP_PROOF" = proof-for-GET"#],
            agent: agent)
        #expect(exec.code == .success, "\(exec.stderr)")
        // A DPoP token without --url: the proof's request is needed, as without an agent.
        #expect(try await Self.run(["curl-config"], agent: agent).code == .usage)
        let target = try #require(URL(string: url))
        #expect(
            agent.requests.map(\.operation) == [
                .proof(method: "POST", url: target, nonce: nil), .proof(method: "GET", url: target, nonce: "n-1"),
                .proof(method: "GET", url: target, nonce: nil), .token,
            ])
    }

    @Test("a proof asked of a Bearer profile is refused (78), as without an agent")
    func bearerProfileHasNoProof() async throws {
        let agent = try ScriptedAgent { _ in .token(Self.agentToken) }
        defer { agent.stop() }
        let run = try await Self.run(["dpop-proof", "--url", "https://api.example.test/"], agent: agent)
        #expect(run.code == .configuration && run.stdout.isEmpty)
        #expect(run.stderr.contains("does not use DPoP"))
        let curl = try await Self.run(["curl-config", "--url", "https://api.example.test/"], agent: agent)
        #expect(curl.stdout == "header = \"Authorization: Bearer agent-token\"\n")
    }

    @Test("git: erase sends the refused password to the agent; store, erase without one, and others send nothing")
    func gitErase() async throws {
        let agent = try ScriptedAgent { request in
            if case .erase = request.operation { return .erased(true) }
            return .token(Self.agentToken)
        }
        defer { agent.stop() }
        let request = "protocol=https\nhost=git.example.test\npath=team\n"
        let erase = try await Self.run(
            ["git-credential", "erase"], agent: agent, input: request + "password=refused\n\n")
        #expect(erase.code == .success && erase.stdout.isEmpty, "\(erase.stderr)")
        for (operation, input) in [("erase", request + "\n"), ("store", request + "password=p\n\n"), ("other", "")] {
            let run = try await Self.run(["git-credential", operation], agent: agent, input: input)
            #expect(run.code == .success && run.stdout.isEmpty, "\(operation): \(run.stderr)")
        }
        #expect(agent.requests.map(\.operation) == [.erase(accessToken: "refused")])
        #expect(agent.requests.first?.url == (try URLBinding("https://git.example.test/team")))
    }

    @Test("docker: list from the agent's profiles; store and erase by the profile that serves the URL")
    func docker() async throws {
        let agent = try ScriptedAgent { _ in
            .profiles([
                AgentReply.Listed(name: "default", username: nil, bindings: ["https://registry.example.test"]),
                AgentReply.Listed(
                    name: "work", username: "alice",
                    bindings: ["https://registry.example.test", "https://git.example.test/team"]),
            ])
        }
        defer { agent.stop() }
        let list = try await Self.run(["docker-credential", "list"], agent: agent, input: "unused")
        let listed = try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: String]
        #expect(
            listed == ["https://registry.example.test": "oauth2", "https://git.example.test/team": "alice"],
            "\(list.stderr)")
        #expect(list.stderr.contains("profiles 'default' and 'work' both serve https://registry.example.test"))
        let served = #"{"ServerURL":"https://git.example.test/team","Username":"u","Secret":"s"}"#
        #expect(try await Self.run(["docker-credential", "store"], agent: agent, input: served).code == .success)
        let other = #"{"ServerURL":"https://other.example.test","Username":"u","Secret":"s"}"#
        let refused = try await Self.run(["docker-credential", "store"], agent: agent, input: other)
        #expect(refused.code == .configuration && refused.stderr.contains("no profile serves that ServerURL"))
        let tie = try await Self.run(
            ["docker-credential", "erase"], agent: agent, input: "https://registry.example.test")
        #expect(tie.code == .configuration && tie.stderr.contains("both serve"))
        let erase = try await Self.run(
            ["docker-credential", "erase"], agent: agent, input: "https://git.example.test/team/x")
        #expect(erase.code == .success && erase.stderr.contains("does not sign out of profile 'work'"))
        #expect(agent.requests.allSatisfy { $0.operation == .list })
    }
}
