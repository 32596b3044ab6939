import DeviceLogin
import DeviceLoginTesting
import Foundation
import Testing

@testable import DeviceLoginCLI

@Suite("login --for, --username and --timeout; status shows the bindings")
struct LoginBindingTests {
    /// Runs `login` against a mock server with `script`, in virtual time, with `home` as DEVICE_LOGIN_HOME.
    ///
    /// With `--timeout` two tasks sleep at once (the poll and the timeout), which `withAutoAdvance` does not
    /// serve (it would jump to the timeout while a request is in flight): then time is moved by hand, to the next
    /// deadline each time both sleep.
    private func login(
        _ words: [String], home: URL, script: MockAuthorizationServer.Script = .approve(after: .zero)
    ) async throws -> (code: ExitCode, stdout: String, stderr: String, elapsed: Duration) {
        let clock = ManualClock()
        let server = MockAuthorizationServer(
            configuration: MockAuthorizationServer.Configuration(interval: 5, defaultScript: script), clock: clock
        )
        var (context, out, err) = CLIHarness.context(
            environment: ["DEVICE_LOGIN_HOME": home.path], transport: InProcessTransport(server: server)
        )
        context.clock = clock
        let arguments = ["login", "--issuer", server.issuer, "--client-id", "test-client", "--qr", "never"] + words
        guard words.contains("--timeout") else {
            let code = try await clock.withAutoAdvance { [context] in await CLI.run(arguments, context: context) }
            return (code, out(), err(), clock.elapsed)
        }
        let run = Task { [context] in await CLI.run(arguments, context: context) }
        let finished = Locked(false)
        Task {
            _ = await run.value
            finished.withLock { $0 = true }
        }
        while !finished.withLock({ $0 }) {
            if clock.sleeperCount >= 2 { _ = clock.advanceToNextDeadline() }
            try await Task.sleep(for: .milliseconds(1))
        }
        return (await run.value, out(), err(), clock.elapsed)
    }

    private func stored(_ profile: String, home: URL) async throws -> Profile? {
        try await FileTokenStore(directory: home.path).load(profile: profile)?.profile
    }

    @Test("--for is saved canonically; signing in again keeps it; a new --for replaces it")
    func bindingsAreSavedAndKept() async throws {
        let home = try BinaryHarness.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let first = try await login(
            [
                "--profile", "work", "--for", "https://Git.Example.com/team/", "--for", "registry.example.com:5000",
                "--username", "x-access-token",
            ],
            home: home)
        #expect(first.code == .success, "\(first.stderr)")
        let saved = try #require(try await stored("work", home: home))
        #expect(
            saved.bindings.map(\.description) == ["https://git.example.com/team", "https://registry.example.com:5000"])
        #expect(saved.username == "x-access-token")

        #expect(try await login(["--profile", "work"], home: home).code == .success)
        let again = try #require(try await stored("work", home: home))
        #expect(again.bindings == saved.bindings)
        #expect(again.username == "x-access-token")

        #expect(
            try await login(["--profile", "work", "--for", "https://other.example.com"], home: home).code == .success)
        #expect(try await stored("work", home: home)?.bindings.map(\.description) == ["https://other.example.com"])

        let status = await CLIHarness.run(
            ["status", "--profile", "work"], environment: ["DEVICE_LOGIN_HOME": home.path])
        #expect(status.stdout.contains("  serves:         https://other.example.com\n"))
        #expect(status.stdout.contains("  user name:      x-access-token\n"))
        let json = await CLIHarness.run(
            ["status", "--profile", "work", "--json"], environment: ["DEVICE_LOGIN_HOME": home.path])
        #expect(json.stdout.contains(#""bindings":["https://other.example.com"]"#))
        #expect(json.stdout.contains(#""username":"x-access-token""#))
    }

    @Test(
        "bad --for and --username are usage errors, before any request",
        arguments: [
            (
                ["--for", "ssh://git.example.com"],
                "--for: invalid URL: the scheme must be https or http"
            ),
            (["--for", "https://user:pw@git.example.com"], "it contains user information"),
            (["--username", "a\nb"], "--username: invalid user name"),
            (["--timeout", "0"], "--timeout must be a duration from 1 s to 86400 s"),
            (["--timeout", "2d"], "(such as 90s, 15m or 2h), not '2d'"),
        ])
    func refused(words: [String], message: String) async throws {
        let home = try BinaryHarness.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let result = try await login(words, home: home)
        #expect(result.code == .usage)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test("--timeout: a sign-in nobody approves gives up cleanly at the timeout, exit 66, nothing saved")
    func timeout() async throws {
        let home = try BinaryHarness.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let result = try await login(["--profile", "t", "--timeout", "2m"], home: home, script: .pending)
        #expect(result.code == .expired)
        #expect(result.stderr.contains("device-login: gave up: the sign-in was not approved within 2 min (--timeout)"))
        #expect(result.stdout.isEmpty)
        #expect(try await stored("t", home: home) == nil)
        #expect(result.elapsed == .seconds(120))
    }

    @Test("--timeout longer than the sign-in takes changes nothing")
    func timeoutNotReached() async throws {
        let home = try BinaryHarness.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let result = try await login(["--timeout", "1h"], home: home, script: .approve(afterPolls: 2))
        #expect(result.code == .success, "\(result.stderr)")
        #expect(result.elapsed == .seconds(15)) // two pending polls, the third gets the token
    }
}
