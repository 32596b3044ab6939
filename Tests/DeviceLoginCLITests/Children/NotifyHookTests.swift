import DeviceLogin
import DeviceLoginTesting
import Foundation
import Testing

@testable import DeviceLoginCLI

@Suite("NotifyHook: login --notify-command")
struct NotifyHookTests {
    private func temporaryFile() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("notify-hook-\(UUID().uuidString)")
    }

    /// `login --no-store --quiet` with the hook, against a mock server that approves at the first poll.
    private func login(notify command: String) async throws -> (
        code: ExitCode, stdout: String, stderr: String, secrets: [String]
    ) {
        let clock = ManualClock()
        let server = MockAuthorizationServer(
            configuration: MockAuthorizationServer.Configuration(defaultScript: .approve(afterPolls: 1)), clock: clock)
        let recorder = SecretRecorder(inner: InProcessTransport(server: server))
        var (context, out, err) = CLIHarness.context(
            environment: ["PATH": "/usr/bin:/bin"], transport: recorder)
        context.clock = clock
        let arguments = [
            "login", "--issuer", server.issuer, "--client-id", "test-client", "--no-store", "--quiet",
            "--notify-command", command,
        ]
        let code = try await clock.withAutoAdvance { [context] in await CLI.run(arguments, context: context) }
        return (code, out(), err(), recorder.secrets.withLock { $0 })
    }

    @Test("The hook gets exactly one event, the authorization, and no secret; the sign-in succeeds")
    func oneEventNoSecret() async throws {
        let file = temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await login(notify: "cat > '\(file.path)'")
        #expect(result.code == .success, "\(result.stderr)")
        let received = try String(contentsOf: file, encoding: .utf8)
        let lines = received.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 2 && lines[1].isEmpty, "one line and its line feed: \(received)")
        let event = try #require(
            try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        #expect(event["v"] as? Int == 1)
        #expect(event["event"] as? String == "authorization")
        #expect(event["user_code"] is String)
        #expect(result.secrets.count >= 2)
        for secret in result.secrets { #expect(!received.contains(secret)) }
        // Not --events: the result line on stdout is the usual confirmation.
        #expect(result.stdout.hasPrefix("Signed in to "))
    }

    @Test(
        "A hook that fails is reported on stderr and the sign-in goes on",
        arguments: [
            ("exit 3", "failed with exit status 3"),
            ("no-such-command-device-login-test", "failed: the command was not found (exit status 127)"),
        ])
    func failureReported(command: String, message: String) async throws {
        let result = try await login(notify: command)
        #expect(result.code == .success)
        #expect(result.stderr.contains("device-login: warning: --notify-command " + message + "; the sign-in goes on"))
    }

    @Test("A hanging hook is killed at its limit, measured on the injected clock (no 10 s of real time)")
    func hangingHookKilled() async throws {
        let clock = ManualClock()
        // A hook that would sleep an hour: killed at its limit, it ends in seconds, however long the test waited for a
        // thread of the cooperative pool (13-34 s seen on a loaded machine, where a bound of 30 s failed).
        let hook = NotifyHook(command: "sleep 3600", limit: .seconds(10), clock: clock)
        let began = ContinuousClock.now
        let run = Task { await hook.run(input: "{}\n", environment: ["PATH": "/usr/bin:/bin"]) }
        while clock.sleeperCount == 0 { await Task.yield() }
        clock.advance(by: .seconds(9))
        #expect(clock.sleeperCount == 1, "not killed before its limit")
        clock.advance(by: .seconds(1))
        let outcome = await run.value
        #expect(outcome == .timedOut)
        #expect(ContinuousClock.now - began < .seconds(600))
        #expect(
            NotifyHook.report(outcome, limit: .seconds(10))
                == "device-login: warning: --notify-command did not finish within 10 s and was killed; the sign-in goes on"
        )
    }

    @Test("Its stdin is the line given, then end of file; a quick hook is not waited on for its limit")
    func input() async throws {
        let file = temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let hook = NotifyHook(command: "cat > '\(file.path)'", limit: .seconds(10), clock: ManualClock())
        let outcome = await hook.run(input: "{\"v\":1}\n", environment: [:])
        #expect(outcome == .exited(0))
        #expect(try String(contentsOf: file, encoding: .utf8) == "{\"v\":1}\n")
        #expect(NotifyHook.report(outcome) == nil)
    }
}
