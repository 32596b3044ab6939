import DeviceLogin
import DeviceLoginTesting
import Foundation
import Testing

@testable import DeviceLoginCLI

/// The fast lane answers exactly what the full path answers, or leaves the answer to it: each case runs both on
/// the same home and compares them.
@Suite("Fast lane")
struct FastLaneTests {
    /// The lane's answer to `arguments` with `input` on stdin and `environment` added to the fixture's.
    private static func lane(
        _ arguments: [String], input: String = "", environment: [String: String] = [:], in fixture: HelperFixture
    ) -> (answer: FastLane.Answer?, inputRead: [UInt8]) {
        let variables = fixture.profiles.environment.merging(environment) { $1 }
        let process = FastLane.Process(
            environment: { variables[$0] }, stdin: .bytes(Array(input.utf8), chunkSize: 7),
            stdout: .failing(EBADF), now: Date())
        return (FastLane.answer(to: arguments, process: process), process.inputRead)
    }

    /// The full path's answer, in process.
    private static func full(
        _ arguments: [String], input: String = "", environment: [String: String] = [:], in fixture: HelperFixture
    ) async -> (code: ExitCode, stdout: String, stderr: String) {
        await CLIHarness.run(
            arguments, environment: fixture.profiles.environment.merging(environment) { $1 },
            transport: fixture.transport, stdin: .bytes(Array(input.utf8)))
    }

    /// Checks that the lane answers `arguments` as the full path does.
    private static func expectSameAnswer(
        _ arguments: [String], input: String = "", environment: [String: String] = [:], in fixture: HelperFixture,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let lane = try #require(
            lane(arguments, input: input, environment: environment, in: fixture).answer,
            "the lane left \(arguments) to the full path", sourceLocation: sourceLocation)
        let full = await full(arguments, input: input, environment: environment, in: fixture)
        #expect(lane.text == full.stdout, sourceLocation: sourceLocation)
        #expect(lane.code == full.code, "stderr: \(full.stderr)", sourceLocation: sourceLocation)
    }

    private static let gitRequest = "protocol=https\nhost=git.example.test\n\n"

    @Test func answersTokenAndEveryHelperAsTheFullPathDoes() async throws {
        let fixture = try HelperFixture()
        defer { fixture.remove() }
        let token = try await fixture.signIn(
            "work", bindings: ["https://git.example.test", "https://registry.example.test"])

        try await Self.expectSameAnswer(["token", "--profile", "work"], in: fixture)
        try await Self.expectSameAnswer(["token", "--profile", "work", "--min-ttl", "120"], in: fixture)
        try await Self.expectSameAnswer(["token"], environment: ["DEVICE_LOGIN_PROFILE": "work"], in: fixture)
        try await Self.expectSameAnswer(["curl-config", "--profile", "work"], in: fixture)
        try await Self.expectSameAnswer(["kubectl-credential", "--profile", "work"], in: fixture)
        let v1 =
            #"{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","spec":{"interactive":false}}"#
        try await Self.expectSameAnswer(
            ["kubectl-credential", "--profile", "work"], environment: ["KUBERNETES_EXEC_INFO": v1], in: fixture)
        try await Self.expectSameAnswer(["git-credential", "get"], input: Self.gitRequest, in: fixture)
        try await Self.expectSameAnswer(
            ["docker-credential", "get"], input: "https://registry.example.test", in: fixture)
        // And the answers carry the stored token.
        #expect(Self.lane(["token", "--profile", "work"], in: fixture).answer?.text == token + "\n")
        let git = Self.lane(["git-credential", "get"], input: Self.gitRequest, in: fixture).answer
        #expect(git?.text.contains("password=\(token)\n") == true)
    }

    @Test func answersAURLNoProfileServesAsTheFullPathDoes() async throws {
        let fixture = try HelperFixture()
        defer { fixture.remove() }
        try await fixture.signIn("work", bindings: ["https://git.example.test"])

        // git: nothing, exit 0; Docker: its "not found", exit 1.
        try await Self.expectSameAnswer(
            ["git-credential", "get"], input: "protocol=https\nhost=elsewhere.test\n\n", in: fixture)
        try await Self.expectSameAnswer(
            ["git-credential", "get"], input: "protocol=smtp\nhost=git.example.test\n\n", in: fixture)
        try await Self.expectSameAnswer(["docker-credential", "get"], input: "https://elsewhere.test", in: fixture)
        #expect(
            Self.lane(["docker-credential", "get"], input: "https://elsewhere.test", in: fixture).answer
                == FastLane.Answer(text: DockerCredentialProtocol.notFound + "\n", code: .failure))
        // A user name the profile does not answer for: nothing.
        try await Self.expectSameAnswer(
            ["git-credential", "get"], input: "protocol=https\nhost=git.example.test\nusername=alice\n\n",
            in: fixture)
    }

    @Test func leavesToTheFullPathWhatItCannotAnswerFromTheStore() async throws {
        let fixture = try HelperFixture()
        defer { fixture.remove() }
        try await fixture.signIn("work", bindings: ["https://git.example.test"])
        try await fixture.saveSignedOut("out", bindings: [])
        try await fixture.signIn("stale", bindings: [])
        try await fixture.expire("stale")

        let declined: [(arguments: [String], environment: [String: String])] = [
            (["token", "--profile", "nobody"], [:]),
            (["token", "--profile", "out"], [:]),
            (["token", "--profile", "stale"], [:]),
            (["token", "--profile", "work", "--min-ttl", "999999"], [:]),
            (["token", "--profile", "work", "--min-ttl", "soon"], [:]),
            (["token", "--profile", "work", "--verbose"], [:]),
            (["token", "--profile", "work"], ["DEVICE_LOGIN_VERBOSE": "1"]),
            (["token", "--profile", "work", "--json"], [:]),
            (["token", "--profile", "work", "--resource", "https://api.example.test"], [:]),
            (["token", "--profile", "work", "--ca-file", "/nonexistent"], [:]),
            (["token", "--profile", "work", "--bogus"], [:]),
            (["token", "--profile", "work", "--help"], [:]),
            (["token", "--profile", "../x"], [:]),
            (["kubectl-credential", "--profile", "work", "--id-token"], [:]),
            (["kubectl-credential", "--profile", "work"], ["KUBERNETES_EXEC_INFO": "{"]),
            (["status", "--profile", "work"], [:]),
            (["login"], [:]),
            ([], [:]),
        ]
        for (arguments, environment) in declined {
            #expect(
                Self.lane(arguments, environment: environment, in: fixture).answer == nil,
                "\(arguments) \(environment)")
        }
        #expect(Self.lane(["token"], environment: ["DEVICE_LOGIN_HOME": "relative"], in: fixture).answer == nil)
    }

    @Test func aHelperItLeavesGetsTheInputTheLaneRead() async throws {
        let fixture = try HelperFixture()
        defer { fixture.remove() }
        try await fixture.signIn("work", bindings: ["https://git.example.test"])
        try await fixture.expire("work")

        let (answer, inputRead) = Self.lane(["git-credential", "get"], input: Self.gitRequest, in: fixture)

        #expect(answer == nil)
        #expect(inputRead == Array(Self.gitRequest.utf8))
        // The full path, given the replayed input, refreshes and answers.
        let replayed = StandardInput.replaying(inputRead, then: .empty)
        let full = await CLIHarness.run(
            ["git-credential", "get"], environment: fixture.profiles.environment, transport: fixture.transport,
            stdin: replayed)
        #expect(full.code == .success, "stderr: \(full.stderr)")
        #expect(full.stdout.contains("password="))
    }

    @Test func leavesHelpersWhoseProfilesTieOrCannotBeRead() async throws {
        let fixture = try HelperFixture()
        defer { fixture.remove() }
        try await fixture.signIn("one", bindings: ["https://git.example.test"])
        try await fixture.signIn("two", bindings: ["https://git.example.test"])

        #expect(Self.lane(["git-credential", "get"], input: Self.gitRequest, in: fixture).answer == nil)
        // --profile picks one whatever the bindings.
        try await Self.expectSameAnswer(
            ["git-credential", "--profile", "two", "get"], input: Self.gitRequest, in: fixture)

        try Data("{".utf8).write(to: fixture.profiles.home.appendingPathComponent("two.json"))
        // The full path warns about the broken file; the lane leaves it that.
        #expect(Self.lane(["git-credential", "get"], input: Self.gitRequest, in: fixture).answer == nil)
    }

    @Test func leavesAConfidentialProfileWithoutAStoredSecret() async throws {
        let profiles = try ProfileFixture()
        defer { profiles.remove() }
        let endpoints = ServerEndpoints(
            issuer: ProfileFixture.issuer, deviceAuthorization: try #require(URL(string: "https://a.test/device")),
            token: try #require(URL(string: "https://a.test/token")))
        let now = Date()
        let tokens = TokenSet(accessToken: "at-1", expiresAt: now.addingTimeInterval(3600), issuedAt: now)
        let store = FileTokenStore(directory: profiles.home.path)
        for (name, secret) in [("kept", "s3cret" as String?), ("given", nil)] {
            let profile = try Profile(
                name: name, endpoints: endpoints, clientID: "cli", clientAuthentication: .clientSecretBasic,
                clientSecret: secret)
            try await store.save(ProfileRecord(profile: profile, tokens: tokens))
        }
        let process = { (arguments: [String]) -> FastLane.Answer? in
            let process = FastLane.Process(
                environment: { profiles.environment[$0] }, stdin: .empty, stdout: .failing(EBADF), now: now)
            return FastLane.answer(to: arguments, process: process)
        }

        #expect(process(["token", "--profile", "kept"]) == FastLane.Answer(text: "at-1\n"))
        #expect(process(["token", "--profile", "given"]) == nil)
    }

    @Test func leavesATokenThatIsNotABearerToken() async throws {
        let profiles = try ProfileFixture()
        defer { profiles.remove() }
        let now = Date()
        for (name, type) in [("bearer", "bearer"), ("dpop", "DPoP")] {
            try await profiles.save(
                TokenSet(
                    accessToken: "at-\(name)", tokenType: type, expiresAt: now.addingTimeInterval(3600), issuedAt: now),
                name: name)
        }
        let answer = { (name: String) -> FastLane.Answer? in
            let process = FastLane.Process(
                environment: { profiles.environment[$0] }, stdin: .empty, stdout: .failing(EBADF), now: now)
            return FastLane.answer(to: ["token", "--profile", name], process: process)
        }

        #expect(answer("bearer") == FastLane.Answer(text: "at-bearer\n"))
        #expect(answer("dpop") == nil)
    }

    @Test func aResultThatCannotBeWrittenIsExit74() async throws {
        let fixture = try HelperFixture()
        defer { fixture.remove() }
        try await fixture.signIn("work", bindings: [])
        let process = FastLane.Process(
            environment: { fixture.profiles.environment[$0] }, stdin: .empty, stdout: .failing(EPIPE), now: Date())

        #expect(FastLane.answer(["token", "--profile", "work"], process: process) == .ioError)
    }

    @Test func replayingGivesTheBytesReadThenTheRest() throws {
        let input = StandardInput.replaying(Array("abc".utf8), then: .bytes(Array("defg".utf8), chunkSize: 2))

        let read = try input.readOnCallingThread(limit: 100, until: { _ in false })

        #expect(read == StandardInput.Read(bytes: Array("abcdefg".utf8), ending: .endOfInput))
    }
}
