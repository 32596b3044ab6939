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
    ) -> (answer: FastLane.Answer?, plan: CommandPlan?) {
        lane(arguments, stdin: .bytes(Array(input.utf8), chunkSize: 7), environment: environment, in: fixture)
    }

    /// The lane's answer to `arguments` with `stdin` and `environment` added to the fixture's, and its plan.
    private static func lane(
        _ arguments: [String], stdin: StandardInput, environment: [String: String] = [:], in fixture: HelperFixture
    ) -> (answer: FastLane.Answer?, plan: CommandPlan?) {
        let variables = fixture.profiles.environment.merging(environment) { $1 }
        let process = FastLane.Process(
            environment: { variables[$0] }, stdin: stdin, stdout: .failing(EBADF), now: Date())
        return (FastLane.answer(to: arguments, process: process), process.plan)
    }

    /// Input that can be read through once, in chunks of at most 7 bytes: `text`, then its end; any read after its
    /// end fails. With the number of chunks asked for so far.
    private static func readableOnce(_ text: String) -> (input: StandardInput, chunks: @Sendable () -> Int) {
        let state = Locked((rest: ArraySlice(Array(text.utf8)), ended: false, chunks: 0))
        let input = StandardInput { count in
            try state.withLock { state in
                state.chunks += 1
                guard !state.ended else {
                    throw DeviceLoginError(.configuration, "standard input read after its end")
                }
                let chunk = Array(state.rest.prefix(min(count, 7)))
                state.rest = state.rest.dropFirst(chunk.count)
                state.ended = chunk.isEmpty
                return chunk
            }
        }
        return (input, { state.withLock { $0.chunks } })
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
        let v1beta1 = #"{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","spec":{}}"#
        try await Self.expectSameAnswer(
            ["kubectl-credential", "--profile", "work"], environment: ["KUBERNETES_EXEC_INFO": v1beta1], in: fixture)
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
            // JSON the lane's strict parser refuses (a duplicate key) and JSONDecoder reads: the full path answers.
            (
                ["kubectl-credential", "--profile", "work"],
                [
                    "KUBERNETES_EXEC_INFO":
                        #"{"kind":"ExecCredential","kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1"}"#
                ]
            ),
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

    @Test func aHelperItLeavesGetsThePlanTheLaneMade() async throws {
        let fixture = try HelperFixture()
        defer { fixture.remove() }
        try await fixture.signIn("work", bindings: ["https://git.example.test", "https://registry.example.test"])

        let cases: [(arguments: [String], input: String, answer: String)] = [
            (["git-credential", "get"], Self.gitRequest, "password="),
            (["docker-credential", "get"], "https://registry.example.test", #""Secret":"#),
        ]
        for (arguments, text, expected) in cases {
            // Each case finds a token to refresh: the one before saved a fresh one.
            try await fixture.expire("work")
            let (input, chunks) = Self.readableOnce(text)
            let (answer, plan) = Self.lane(arguments, stdin: input, in: fixture)

            // The lane read the request and chose the profile, then left the refresh to the full path.
            #expect(answer == nil)
            let prepared = try #require(plan, "\(arguments)")
            #expect(prepared.command == arguments[0])
            #expect(try prepared.options.get().positionals == ["get"])
            #expect(try prepared.input?.get().bytes == Array(text.utf8))
            #expect(prepared.record?.name == "work")
            let chunksOnTheLane = chunks()

            // The full path, given the plan and the same input, reads nothing more and answers.
            var (context, stdout, stderr) = CLIHarness.context(
                environment: fixture.profiles.environment, transport: fixture.transport)
            context.stdin = input
            context.plan = plan
            let code = await CLI.run(arguments, context: context)
            #expect(code == .success, "\(arguments) stderr: \(stderr())")
            #expect(stdout().contains(expected), "\(arguments)")
            #expect(chunks() == chunksOnTheLane, "\(arguments): the full path read standard input again")
        }
    }

    /// kubectl's request is parsed once: on a miss the full path answers in the apiVersion the lane parsed, and
    /// reports the lane's refusal of a request it could not parse, whatever the variable now holds.
    @Test func kubectlsRequestIsParsedOnlyOnTheLane() async throws {
        let fixture = try HelperFixture()
        defer { fixture.remove() }
        try await fixture.signIn("work", bindings: [])
        let arguments = ["kubectl-credential", "--profile", "work"]
        let v1 =
            #"{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","spec":{"interactive":false}}"#
        let cases: [(onTheLane: String, inTheFullPath: String, code: ExitCode, output: String)] = [
            // Parsed again, "not JSON" would be refused (exit 78).
            (v1, "not JSON", .success, #""apiVersion":"client.authentication.k8s.io/v1""#),
            // Parsed again, the request would be read, and answered.
            ("not JSON", v1, .configuration, "is not valid JSON"),
        ]
        for (onTheLane, inTheFullPath, expectedCode, expected) in cases {
            try await fixture.expire("work")
            let (answer, plan) = Self.lane(arguments, environment: ["KUBERNETES_EXEC_INFO": onTheLane], in: fixture)
            #expect(answer == nil)
            #expect(plan?.request != nil, "the lane parsed no request")

            var (context, stdout, stderr) = CLIHarness.context(
                environment: fixture.profiles.environment.merging(["KUBERNETES_EXEC_INFO": inTheFullPath]) { $1 },
                transport: fixture.transport)
            context.plan = plan
            let code = await CLI.run(arguments, context: context)
            #expect(code == expectedCode, "stderr: \(stderr())")
            #expect((stdout() + stderr()).contains(expected), "stdout: \(stdout()) stderr: \(stderr())")
        }
    }

    /// git's request is parsed once too: the full path answers the request the lane parsed, not the input again.
    /// The test hands the full path other input beside the lane's parse: parsed again, it would be refused.
    @Test func gitsRequestIsParsedOnlyOnTheLane() async throws {
        let fixture = try HelperFixture()
        defer { fixture.remove() }
        try await fixture.signIn("work", bindings: ["https://git.example.test"])
        let cases: [(onTheLane: String, code: ExitCode, output: String)] = [
            // Parsed again, the other input would be refused (exit 64); the lane's request is answered.
            (Self.gitRequest, .success, "password="),
            // Parsed again, the other input would be answered; the lane's refusal is reported.
            ("no equals sign\n\n", .usage, "git-credential:"),
        ]
        for (onTheLane, expectedCode, expected) in cases {
            try await fixture.expire("work")
            var (answer, plan) = Self.lane(["git-credential", "get"], input: onTheLane, in: fixture)
            #expect(answer == nil)
            #expect(plan?.request != nil, "the lane parsed no request")
            let other = onTheLane == Self.gitRequest ? "no equals sign\n\n" : Self.gitRequest
            plan?.input = .success(StandardInput.Read(bytes: Array(other.utf8), ending: .complete))

            var (context, stdout, stderr) = CLIHarness.context(
                environment: fixture.profiles.environment, transport: fixture.transport)
            context.plan = plan
            let code = await CLI.run(["git-credential", "get"], context: context)
            #expect(code == expectedCode, "stderr: \(stderr())")
            #expect((stdout() + stderr()).contains(expected), "stdout: \(stdout()) stderr: \(stderr())")
        }
    }

    /// On a Secret Service profile the lane reads only the kernel keyring's copy of the access token: the store's
    /// glance then holds no record, and a plan that carried one would hand the full path a profile with no refresh
    /// token.
    @Test func aSecretServiceProfileIsNotInThePlan() async throws {
        let fixture = try HelperFixture()
        defer { fixture.remove() }
        try await fixture.signIn("work", bindings: ["https://git.example.test"])
        let file = fixture.profiles.home.appendingPathComponent("work.json")
        var stored = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        var profile = try #require(stored["profile"] as? [String: Any])
        profile["store"] = "secret-service"
        stored["profile"] = profile
        stored["tokens"] = nil
        try JSONSerialization.data(withJSONObject: stored).write(to: file)

        let (answer, plan) = Self.lane(["token", "--profile", "work"], in: fixture)
        #expect(answer == nil)
        let prepared = try #require(plan)
        #expect(prepared.command == "token")
        #expect(prepared.record == nil)
    }

    @Test func aPlanIsForItsCommandOnly() async throws {
        let fixture = try HelperFixture()
        defer { fixture.remove() }
        try await fixture.signIn("work", bindings: ["https://git.example.test"])
        try await fixture.expire("work")
        let (_, plan) = Self.lane(["git-credential", "get"], input: Self.gitRequest, in: fixture)

        // Another command reads its own input and options: docker-credential finds git's request on stdin.
        var (context, stdout, _) = CLIHarness.context(
            environment: fixture.profiles.environment, transport: fixture.transport)
        context.stdin = .bytes(Array("https://git.example.test".utf8))
        context.plan = plan
        let code = await CLI.run(["docker-credential", "get"], context: context)
        #expect(code == .success)
        #expect(stdout().contains(#""ServerURL":"https://git.example.test""#))
    }

    @Test func aPlanKeepsTheLanesFailuresForTheFullPathToReport() async throws {
        let fixture = try HelperFixture()
        defer { fixture.remove() }
        try await fixture.signIn("work", bindings: ["https://git.example.test"])
        let failing = StandardInput { _ in throw DeviceLoginError(.configuration, "cannot read standard input: EIO") }

        // A usage error, as parsing gave it.
        let (_, bogus) = Self.lane(["token", "--bogus"], in: fixture)
        #expect(throws: UsageError.self) { try bogus?.options.get() }
        // A failed read: the full path reports it and does not read again.
        let (answer, plan) = Self.lane(["git-credential", "get"], stdin: failing, in: fixture)
        #expect(answer == nil)
        var (context, _, stderr) = CLIHarness.context(environment: fixture.profiles.environment)
        context.stdin = .bytes(Array(Self.gitRequest.utf8))
        context.plan = plan
        let code = await CLI.run(["git-credential", "get"], context: context)
        #expect(code == .configuration)
        #expect(stderr().contains("cannot read standard input: EIO"))
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
            issuer: ProfileFixture.issuer, deviceAuthorization: URL(string: "https://a.test/device"),
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
            environment: { fixture.profiles.environment[$0] }, stdin: .empty, stdout: .failing(ENOSPC), now: Date())

        #expect(FastLane.answer(["token", "--profile", "work"], process: process) == .ioError)
        // A reader that closed the pipe early is no error: the lane ends as the full path does, by SIGPIPE.
        let gone = FastLane.Process(
            environment: { fixture.profiles.environment[$0] }, stdin: .empty, stdout: .failing(EPIPE), now: Date())
        #expect(FastLane.answer(["token", "--profile", "work"], process: gone) == .readerGone)
    }

    /// `exec` on a home with a valid bearer token in profile `work`, run both ways: by the binary, whose lane
    /// answers, and by the full path in process. The command reports to `$OUT`: the variable it was given, the
    /// DPoP proof variable, and how many threads its parent has.
    private struct ExecSetup {
        let fixture: ProfileFixture
        let token = "at-" + UUID().uuidString

        init() async throws {
            fixture = try ProfileFixture()
            try await fixture.save(
                TokenSet(accessToken: token, expiresAt: Date().addingTimeInterval(3600), issuedAt: Date()),
                name: "work")
        }

        /// What the command saw: `<token variable>|<proof variable or unset>|<threads of its parent>`.
        static func reporting(_ variable: String, then tail: String) -> [String] {
            let report =
                #"printf '%s|%s|%s' "$\#(variable)" "${DEVICE_LOGIN_DPOP_PROOF-unset}" "#
                + #""$(ls /proc/$PPID/task | wc -l)" > "$OUT"; "#
            return ["/bin/sh", "-c", report + tail]
        }

        func environment(_ out: String) -> [String: String] {
            fixture.environment.merging([
                "PATH": "/usr/bin:/bin", "OUT": fixture.home.appendingPathComponent(out).path,
                "DEVICE_LOGIN_DPOP_PROOF": "a-proof-for-another-request",
            ]) { $1 }
        }

        func report(_ out: String) -> [Substring]? {
            (try? String(contentsOf: fixture.home.appendingPathComponent(out), encoding: .utf8))?
                .split(separator: "|", omittingEmptySubsequences: false)
        }

        /// Runs `arguments` both ways; returns the two runs and the two reports (lane first).
        func bothWays(_ arguments: [String]) async throws
            -> (lane: BinaryHarness.Run, full: BinaryHarness.Run, laneReport: [Substring]?, fullReport: [Substring]?)
        {
            let lane = try await BinaryHarness.run(arguments, environment: environment("lane"))
            let full = await CLIHarness.run(arguments, environment: environment("full"))
            return (
                lane, BinaryHarness.Run(status: full.code.rawValue, stdout: full.stdout, stderr: full.stderr),
                report("lane"), report("full")
            )
        }
    }

    @Test(
        "exec runs its command from the lane as the full path does: same output, status and token",
        arguments: [
            (["--profile", "work"], "DEVICE_LOGIN_ACCESS_TOKEN", "exit 3", Int32(3)),
            (["--profile", "work", "--env", "MY_TOKEN"], "MY_TOKEN", "exit 0", 0),
            (["--profile", "work", "--env", "DEVICE_LOGIN_DPOP_PROOF"], "DEVICE_LOGIN_DPOP_PROOF", "exit 0", 0),
            (["--profile", "work"], "DEVICE_LOGIN_ACCESS_TOKEN", "kill -TERM $$", 143),
            (["--profile", "work"], "DEVICE_LOGIN_ACCESS_TOKEN", "kill -USR1 $$", 128 + SIGUSR1),
        ])
    func execFromTheLane(options: [String], variable: String, tail: String, expected: Int32) async throws {
        let setup = try await ExecSetup()
        defer { setup.fixture.remove() }

        let runs = try await setup.bothWays(["exec"] + options + ["--"] + ExecSetup.reporting(variable, then: tail))

        #expect(runs.lane.status == expected, "stderr: \(runs.lane.stderr)")
        #expect(runs.lane.status == runs.full.status)
        #expect(runs.lane.stdout == runs.full.stdout)
        #expect(runs.lane.stderr == runs.full.stderr)
        let lane = try #require(runs.laneReport, "the lane's command did not run")
        let full = try #require(runs.fullReport, "the full path's command did not run")
        #expect(lane.count == 3 && full.count == 3)
        #expect(lane.first == Substring(setup.token))
        #expect(lane.first == full.first)
        // The caller's proof is for another request: neither gives it on (unless it is the token's variable).
        #expect(lane.dropFirst().first == full.dropFirst().first)
        #expect(variable == ExecCommand.proofVariable || lane.dropFirst().first == "unset")
        // The lane answered: device-login had one thread while its command ran (the full path has the
        // concurrency runtime's and Dispatch's).
        #expect(lane.last == "1")
    }

    @Test(
        "exec from the lane reports a command it cannot start as the full path does",
        arguments: [
            ("no-such-command-\(UUID().uuidString)", Int32(127)), ("/etc/passwd", 126), ("/nonexistent/x", 127),
        ])
    func execNotStartedFromTheLane(command: String, expected: Int32) async throws {
        let setup = try await ExecSetup()
        defer { setup.fixture.remove() }

        let runs = try await setup.bothWays(["exec", "--profile", "work", "--", command, "an argument"])

        #expect(runs.lane.status == expected)
        #expect(runs.lane.status == runs.full.status)
        #expect(runs.lane.stdout.isEmpty && runs.full.stdout.isEmpty)
        #expect(runs.lane.stderr == runs.full.stderr)
        #expect(runs.lane.stderr.hasPrefix("device-login: exec: "))
    }

    @Test func execOnTheFullPathHasMoreThreads() async throws {
        let setup = try await ExecSetup()
        defer { setup.fixture.remove() }

        // --verbose is the full path's: the count the lane test reads does tell the two apart.
        let run = try await BinaryHarness.run(
            ["exec", "--profile", "work", "--verbose", "--"]
                + ExecSetup.reporting("DEVICE_LOGIN_ACCESS_TOKEN", then: "exit 0"),
            environment: setup.environment("full"))

        #expect(run.status == 0, "stderr: \(run.stderr)")
        let report = try #require(setup.report("full"))
        #expect(report.first == Substring(setup.token))
        #expect((report.last.flatMap { Int($0) } ?? 0) > 1)
    }

    @Test func execLeavesToTheFullPathWhatItCannotRunAsTheFullPathWould() async throws {
        let setup = try await ExecSetup()
        defer { setup.fixture.remove() }
        let now = Date()
        try await setup.fixture.save(
            TokenSet(accessToken: "at-dpop", tokenType: "DPoP", expiresAt: now.addingTimeInterval(3600), issuedAt: now),
            name: "dpop")
        try await setup.fixture.save(
            TokenSet(accessToken: "at-soon", expiresAt: now.addingTimeInterval(30), issuedAt: now), name: "soon")
        try await setup.fixture.save(
            TokenSet(accessToken: "at\tbad", expiresAt: now.addingTimeInterval(3600), issuedAt: now), name: "unsafe")

        // A command that would say it ran.
        let ran = ["--", "/bin/sh", "-c", #"echo ran > "$OUT""#]
        let declined: [(arguments: [String], environment: [String: String])] = [
            (["--profile", "work", "--verbose"] + ran, [:]),
            (["--profile", "work"] + ran, ["DEVICE_LOGIN_VERBOSE": "1"]),
            (["--profile", "work", "--dpop-url", "https://api.example.test"] + ran, [:]),
            (["--profile", "work", "--dpop-method", "POST"] + ran, [:]),
            (["--profile", "work", "--ca-file", "/nonexistent"] + ran, [:]),
            (["--profile", "work", "--bogus"] + ran, [:]),
            (["--profile", "work", "--env", "1BAD"] + ran, [:]),
            (["--profile", "work", "--env", "A-B"] + ran, [:]),
            (["--profile", "work"], [:]),
            (["--profile", "work", "--"], [:]),
            (["--profile", "work"] + ran.dropFirst(), [:]),
            (["--profile", "nobody"] + ran, [:]),
            (["--profile", "dpop"] + ran, [:]),
            (["--profile", "soon"] + ran, [:]),
            (["--profile", "unsafe"] + ran, [:]),
        ]
        for (arguments, environment) in declined {
            let variables = setup.environment("out").merging(environment) { $1 }
            let process = FastLane.Process(
                environment: { variables[$0] }, stdin: .empty, stdout: .failing(EBADF), now: now,
                wholeEnvironment: { variables }, stderr: .buffer().sink)
            #expect(FastLane.answer(to: ["exec"] + arguments, process: process) == nil, "\(arguments) \(environment)")
        }
        #expect(setup.report("out") == nil, "a declined exec ran its command")
    }
}
