import DeviceLogin
import DeviceLoginTesting
import Foundation
import Testing

@testable import DeviceLoginCLI

/// `login --events` in process, in virtual time: stdout carries only v1 event lines, stamped from the context's
/// `now`, and the last is `succeeded` or `failed` in place of the result.
@Suite("EventLines: login --events in process")
struct EventLinesTests {
    private static let start = Date(timeIntervalSince1970: 1_800_000_000) // 2027-01-15T08:00:00Z

    /// Runs `login --events --no-store` with `words` against a mock server with `script`; `now` follows the clock.
    private func login(
        _ words: [String], script: MockAuthorizationServer.Script, home: URL? = nil
    ) async throws -> (code: ExitCode, stdout: String, stderr: String, secrets: [String]) {
        let clock = ManualClock()
        let server = MockAuthorizationServer(
            configuration: MockAuthorizationServer.Configuration(defaultScript: script), clock: clock)
        let recorder = SecretRecorder(inner: InProcessTransport(server: server))
        let environment = home.map { ["DEVICE_LOGIN_HOME": $0.path] } ?? [:]
        var (context, out, err) = CLIHarness.context(environment: environment, transport: recorder)
        context.clock = clock
        context.now = { Self.start.addingTimeInterval(clock.elapsed / .seconds(1)) }
        let arguments =
            ["login", "--issuer", server.issuer, "--client-id", "test-client", "--events"]
            + (home == nil ? ["--no-store"] : []) + words
        let code = try await clock.withAutoAdvance { [context] in await CLI.run(arguments, context: context) }
        return (code, out(), err(), recorder.secrets.withLock { $0 })
    }

    private func objects(_ stdout: String) throws -> [[String: Any]] {
        try stdout.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    @Test("authorization, polling, pending, slow_down, succeeded: each at its virtual time, the result replaced")
    func succeeded() async throws {
        let result = try await login(["--quiet"], script: .approve(afterPolls: 3).with(.slowDown, atPoll: 2))
        #expect(result.code == .success, "\(result.stderr)")
        let events = try objects(result.stdout)
        #expect(events.allSatisfy { $0["v"] as? Int == 1 })
        let summary = events.map { "\($0["event"] ?? "?")@\($0["at"] ?? "?")" }
        #expect(
            summary == [
                "authorization@2027-01-15T08:00:00Z",
                "polling@2027-01-15T08:00:05Z", "pending@2027-01-15T08:00:05Z",
                "polling@2027-01-15T08:00:10Z", "slow_down@2027-01-15T08:00:10Z",
                "polling@2027-01-15T08:00:20Z", "pending@2027-01-15T08:00:20Z",
                "polling@2027-01-15T08:00:30Z", "succeeded@2027-01-15T08:00:30Z",
            ])
        #expect(events[4]["interval"] as? Int == 10)
        // --no-store: no profile saved; the mock's tokens last an hour.
        #expect(events.last?["profile"] is NSNull)
        #expect(events.last?["expires_at"] as? String == "2027-01-15T09:00:30Z")
        // --quiet: no prompt on stderr.
        #expect(!result.stderr.contains("Open this page"))
        // The device code and the access token at least were seen, and neither is in any line.
        #expect(result.secrets.count >= 2)
        for secret in result.secrets { #expect(!result.stdout.contains(secret)) }
    }

    @Test("--quiet with a saved profile: the profile is saved and named in the last line, stderr stays empty")
    func quietWhenSaving() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("events-quiet-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let result = try await login(["--quiet"], script: .approve(afterPolls: 1), home: home)
        #expect(result.code == .success, "\(result.stderr)")
        #expect(try objects(result.stdout).last?["profile"] as? String == "default")
        #expect(FileManager.default.fileExists(atPath: home.appendingPathComponent("default.json").path))
        #expect(result.stderr.isEmpty, "not even 'Saved to profile': \(result.stderr)")
    }

    @Test("Without --quiet the prompt still goes to stderr, and never to stdout")
    func promptOnStderr() async throws {
        let result = try await login(["--qr", "never"], script: .approve(afterPolls: 1))
        #expect(result.code == .success)
        #expect(result.stderr.contains("Open this page in a browser"))
        #expect(
            try objects(result.stdout).map { $0["event"] as? String } == [
                "authorization", "polling", "pending", "polling", "succeeded",
            ])
    }

    @Test("Denied: the last line is failed, with the code, the message and the exit code the process ends with")
    func denied() async throws {
        let result = try await login(["--quiet"], script: .deny(afterPolls: 1))
        #expect(result.code == .denied)
        let last = try #require(try objects(result.stdout).last)
        #expect(last["event"] as? String == "failed")
        #expect(last["code"] as? String == "access_denied")
        #expect(last["exit_code"] as? Int == 65)
        // approve/deny(afterPolls: 1): the first poll is pending (at 5 s), the second denied (at 10 s).
        #expect(last["at"] as? String == "2027-01-15T08:00:10Z")
        #expect((last["message"] as? String)?.isEmpty == false)
    }

    @Test("A failure before any code (discovery) is a failed line too, and the error still reaches stderr")
    func failedBeforeAuthorization() async throws {
        let clock = ManualClock()
        let server = MockAuthorizationServer(
            configuration: MockAuthorizationServer.Configuration(servesDiscovery: false), clock: clock)
        var (context, out, err) = CLIHarness.context(transport: InProcessTransport(server: server))
        context.clock = clock
        context.now = { Self.start }
        let code = await CLI.run(
            ["login", "--issuer", server.issuer, "--client-id", "test-client", "--no-store", "--events"],
            context: context)
        let lines = out().split(separator: "\n")
        #expect(lines.count == 1)
        let last = try #require(try objects(out()).last)
        #expect(last["event"] as? String == "failed")
        #expect(last["exit_code"] as? Int == Int(code.rawValue))
        #expect(code != .success)
        #expect(err().contains("device-login:"))
    }

    @Test("--events with --json is a usage error (64), nothing on stdout")
    func eventsWithJSON() async {
        let result = await CLIHarness.run([
            "login", "--issuer", "https://auth.example.com", "--client-id", "x", "--events", "--json",
        ])
        #expect(result.code == .usage)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("--events and --json cannot be used together"))
    }
}

/// The real binary with `--events` against the kit's mock on a loopback socket, serving hostile sign-in addresses.
@Suite("login --events through the real binary on the loopback mock", .timeLimit(.minutes(2)))
struct EventLinesBinaryTests {
    @Test("A javascript: verification URI and escape, bidi and control characters: refused, no control character out")
    func hostileServer() async throws {
        let home = try BinaryHarness.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let model = MockAuthorizationServer(
            configuration: MockAuthorizationServer.Configuration(
                interval: 1, recording: .summary, defaultScript: .approve(afterPolls: 1),
                verificationURIOverride: "javascript:alert(1)//\u{1B}]8;;https://evil.example\u{7}\u{202E}x\u{0}",
                verificationURICompleteOverride: "https://auth.example.test/device?\u{1B}[2J\u{1B}]52;c;ZXZpbA==\u{7}"))
        let environment = ["DEVICE_LOGIN_HOME": home.path, "PATH": "/usr/bin:/bin", "NO_PROXY": "*"]
        try await LoopbackServer.withRunning(model: model) { server in
            let run = try await BinaryHarness.run(
                [
                    "login", "--events", "--issuer", server.issuer, "--client-id",
                    MockAuthorizationServer.Configuration.defaultClientID, "--qr", "never", "--no-store",
                ],
                environment: environment)
            #expect(run.status == 0, "\(run.stderr)")
            // Not one control character (C0, DEL, C1) nor a bidi or other format character, on stdout or stderr.
            for (name, text) in [("stdout", run.stdout), ("stderr", run.stderr)] {
                let bad = text.unicodeScalars.filter { scalar in
                    (scalar.value < 0x20 && scalar != "\n") || (0x7F...0x9F).contains(scalar.value)
                        || scalar.properties.generalCategory == .format
                }
                #expect(bad.isEmpty, "\(name) holds \(bad.map { String($0.value, radix: 16) })")
            }
            #expect(!run.stdout.contains("javascript") && !run.stdout.contains("evil"))
            let events = try run.stdout.split(separator: "\n").map { line in
                try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            }
            #expect(events.first?["event"] as? String == "authorization")
            #expect(events.first?["verification_uri"] is NSNull)
            #expect(events.first?["verification_uri_complete"] == nil)
            #expect(events.first?["address_refused"] is String)
            #expect(events.last?["event"] as? String == "succeeded")
            #expect(model.rfcViolations == 0)
            // The hostile address did arrive: the prompt on stderr refused it too.
            #expect(run.stderr.contains("Refused to show the sign-in address"), "\(run.stderr)")
        }
    }

    // Issue 17: a secret the server repeated in error_description reached stderr and the failed line.
    @Test("A server echoing the device code and the client secret: neither on stdout nor stderr, a marker instead")
    func echoedSecrets() async throws {
        let home = try BinaryHarness.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let secret = "echoed-secret-\(UUID().uuidString)"
        let model = MockAuthorizationServer(
            configuration: MockAuthorizationServer.Configuration(
                interval: 1, recording: .summary,
                defaultScript: MockAuthorizationServer.Script.pending.with(
                    .echoingCredentials(.invalidClient), atPoll: 1)))
        model.configure { $0.clients = [.init(id: "conf", authentication: .clientSecretPost(secret: secret))] }
        let environment = [
            "DEVICE_LOGIN_HOME": home.path, "PATH": "/usr/bin:/bin", "NO_PROXY": "*",
            "DEVICE_LOGIN_CLIENT_SECRET": secret,
        ]
        try await LoopbackServer.withRunning(model: model) { server in
            for extra in [[], ["--verbose"]] {
                let run = try await BinaryHarness.run(
                    [
                        "login", "--events", "--issuer", server.issuer, "--client-id", "conf",
                        "--client-auth", "post", "--qr", "never", "--no-store",
                    ] + extra,
                    environment: environment)
                let deviceCode = try #require(model.lastAuthorization?.deviceCode)
                #expect(run.status != 0)
                for (name, text) in [("stdout", run.stdout), ("stderr", run.stderr)] {
                    #expect(!text.contains(secret) && !text.contains(deviceCode), "\(name): \(text)")
                }
                let failed = try #require(run.stdout.split(separator: "\n").last)
                #expect(failed.contains(#""event":"failed""#) && failed.contains("[redacted, "), "\(failed)")
                #expect(run.stderr.contains("[redacted, \(deviceCode.count) chars]"), "\(run.stderr)")
            }
        }
    }
}
