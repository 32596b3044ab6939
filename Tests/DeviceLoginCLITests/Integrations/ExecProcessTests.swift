import DeviceLogin
import DeviceLoginTestSupport
import DeviceLoginTesting
import Foundation
import Testing

@testable import DeviceLoginCLI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `device-login exec` as the real binary: the signals it passes on, the signal state and descriptors its command
/// starts with, and the token kept out of every process's arguments — on both of its ways to the token (``Path``),
/// which hand the command to the one supervisor (`ChildLauncher`).
@Suite("exec: the real binary, its signals and its command's start", .serialized, .timeLimit(.minutes(5)))
struct ExecProcessTests {
    /// Which way `exec` gets its token. Each test that starts a command runs on both, and checks at the mock which
    /// one it took: a test that ran the lane twice would fail.
    enum Path: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// A token valid for an hour: the fast lane answers, with no request.
        case lane
        /// A token inside the refresh margin (valid for 30 s more, the margin is 60): the full path refreshes it at
        /// the loopback mock first, as at every expiry.
        case full

        var testDescription: String { rawValue }
    }

    /// A home with a default profile signed in at the loopback mock, its token set up for `path` before every run,
    /// and a scratch folder for the command's reports.
    private struct Setup {
        let path: Path
        let home: URL
        let model: MockAuthorizationServer
        let server: LoopbackServer

        /// Runs `body` with a fresh setup for `path`, then stops the server and removes the home.
        static func with(_ path: Path, _ body: (Setup) async throws -> Void) async throws {
            let home = try BinaryHarness.temporaryHome()
            defer { try? FileManager.default.removeItem(at: home) }
            let clock = ManualClock()
            let model = MockAuthorizationServer(
                configuration: MockAuthorizationServer.Configuration(interval: 1, recording: .summary), clock: clock)
            let server = try LoopbackServer.start(model: model)
            do {
                _ = try await ProcessHarness.signIn(model: model, clock: clock, home: home)
                try await body(Setup(path: path, home: home, model: model, server: server))
            } catch {
                await server.stop()
                throw error
            }
            await server.stop()
        }

        func file(_ name: String) -> URL { home.appendingPathComponent(name) }

        var environment: [String: String] {
            ["DEVICE_LOGIN_HOME": home.path, "OUT": file("out").path, "READY": file("ready").path]
        }

        func report() -> String? { try? String(contentsOf: file("out"), encoding: .utf8) }

        /// Sets the stored token's expiry for ``path`` (a refresh on the full path leaves one valid for an hour)
        /// and removes the last run's reports.
        func prepare() async throws {
            try? FileManager.default.removeItem(at: file("out"))
            try? FileManager.default.removeItem(at: file("ready"))
            let store = FileTokenStore(directory: home.path)
            var record = try #require(try await store.load(profile: "default"))
            record.tokens?.expiresAt = Date().addingTimeInterval(path == .lane ? 3600 : 30)
            try await store.save(record)
        }

        /// The access token stored now: the one the last run handed on.
        func storedToken() async throws -> String {
            let record = try await FileTokenStore(directory: home.path).load(profile: "default")
            return try #require(record?.tokens?.accessToken)
        }

        /// Expects the way ``path`` names to have been taken on each of `runs` runs: one refresh at the mock for
        /// each on the full path, none on the lane.
        func expectPathTaken(runs: Int = 1, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(
                model.refreshRequestCount == (path == .full ? runs : 0), "the \(path) path was not taken",
                sourceLocation: sourceLocation)
        }

        /// Waits (without holding a thread of the pool) until the command has written its `READY` file.
        func waitUntilReady(seconds: Double = 20) async -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if FileManager.default.fileExists(atPath: file("ready").path) { return true }
                try? await Task.sleep(for: .milliseconds(20))
            }
            return false
        }
    }

    /// `device-login` started by `/bin/sh -c "<prelude>; exec device-login ..."`, so that it inherits what the
    /// prelude sets up (an ignored signal, an open descriptor).
    private static func runThroughShell(_ prelude: String, _ arguments: [String], setup: Setup) async throws
        -> ChildProcess.Result
    {
        try await ChildProcess.run(
            URL(fileURLWithPath: "/bin/sh"),
            ["-c", prelude + #"; exec "$0" "$@""#, BinaryHarness.binary.path] + arguments,
            environment: ChildProcess.environment(setup.environment, droppingPrefix: "DEVICE_LOGIN_")
                .merging(setup.environment) { $1 })
    }

    @Test(
        "a signal sent to device-login reaches the command, device-login waits, and exits with its status",
        arguments: Path.allCases,
        [
            (SIGTERM, "TERM"), (SIGINT, "INT"), (SIGHUP, "HUP"), (SIGQUIT, "QUIT"), (SIGUSR1, "USR1"),
            (SIGUSR2, "USR2"), (SIGWINCH, "WINCH"),
        ])
    func forwarded(path: Path, signal: (Int32, String)) async throws {
        let (number, name) = signal
        try await Setup.with(path) { setup in
            try await setup.prepare()
            // At most 20 s: a signal that never arrives ends the command with 99, not the test run with a hang.
            let script =
                #"trap 'echo got-\#(name) > "$OUT"; exit 42' \#(name); touch "$READY"; i=0; "#
                + "while [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done; exit 99"
            let running = try BinaryHarness.start(
                ["exec", "--", "/bin/sh", "-c", script], environment: setup.environment)
            try #require(await setup.waitUntilReady(), "the command did not start")
            kill(running.process.processIdentifier, number)
            let result = try await running.finish()
            #expect(result.status == 42, "device-login did not pass on its command's status: \(result.stderr)")
            #expect(setup.report() == "got-\(name)\n")
            #expect(result.stderr.isEmpty, "device-login spoke: \(result.stderr)")
            #expect(result.stdout.isEmpty)
            setup.expectPathTaken()
        }
    }

    @Test("a command ended by a signal: 128 + N; one that exits: its status", arguments: Path.allCases)
    func status(path: Path) async throws {
        try await Setup.with(path) { setup in
            let cases = [("exit 3", Int32(3)), ("kill -TERM $$", 143), ("kill -KILL $$", 137)]
            for (script, expected) in cases {
                try await setup.prepare()
                let result = try await BinaryHarness.run(
                    ["exec", "--", "/bin/sh", "-c", script], environment: setup.environment)
                #expect(result.status == expected, "\(script): \(result.stderr)")
                #expect(result.stderr.isEmpty, "\(script): \(result.stderr)")
            }
            setup.expectPathTaken(runs: cases.count)
        }
    }

    @Test(
        "not found: 127; found but not runnable: 126; one line on stderr, nothing on stdout",
        arguments: Path.allCases,
        [
            ("device-login-test-no-such-command", Int32(127), "command not found"),
            ("{home}/plain-file", 126, "Permission denied"),
        ])
    func notStarted(path: Path, command: (String, Int32, String)) async throws {
        let (word, status, message) = command
        try await Setup.with(path) { setup in
            try await setup.prepare()
            try Data("echo hi\n".utf8).write(to: setup.file("plain-file"))
            let commandPath = word.replacingOccurrences(of: "{home}", with: setup.home.path)
            let result = try await BinaryHarness.run(
                ["exec", "--", commandPath, "argument"], environment: setup.environment)
            #expect(result.status == status, "\(result.stderr)")
            #expect(result.stdout.isEmpty)
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].hasPrefix("device-login: exec: "), "\(result.stderr)")
            #expect(result.stderr.contains(message), "\(result.stderr)")
            setup.expectPathTaken()
        }
    }

    @Test("the command starts with no signal blocked and none ignored, SIGPIPE included", arguments: Path.allCases)
    func cleanSignals(path: Path) async throws {
        try await Setup.with(path) { setup in
            try await setup.prepare()
            let result = try await BinaryHarness.run(
                ["exec", "--", "grep", "-E", "^Sig(Blk|Ign):", "/proc/self/status"], environment: setup.environment)
            #expect(result.status == 0, "\(result.stderr)")
            // Before: the mask of a thread of libdispatch's pool (every asynchronous signal blocked), and SIGPIPE
            // ignored as device-login ignores it.
            #expect(result.stdout == "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n")
            setup.expectPathTaken()
        }
    }

    @Test(
        "a signal device-login was started with ignored (nohup, a background job) stays ignored in the command",
        // SIGQUIT is not among them: the Swift runtime takes it over before device-login's first line runs, so
        // whether it was ignored is lost; the command gets its default action.
        // SIGPIPE is not passed on ignored either: the tool ignores it itself, and an inherited one is an accident.
        arguments: Path.allCases,
        [
            ("HUP", "0000000000000001"), ("INT", "0000000000000002"), ("PIPE", "0000000000000000"),
            ("HUP INT TERM PIPE", "0000000000004003"),
        ])
    func inheritedIgnored(path: Path, ignored: (String, String)) async throws {
        let (signals, mask) = ignored
        try await Setup.with(path) { setup in
            try await setup.prepare()
            let result = try await Self.runThroughShell(
                "trap '' \(signals)", ["exec", "--", "grep", "-E", "^Sig(Blk|Ign):", "/proc/self/status"],
                setup: setup)
            let output = String(decoding: result.stdout, as: UTF8.self)
            #expect(result.status == 0, "\(String(decoding: result.stderr, as: UTF8.self))")
            #expect(output == "SigBlk:\t0000000000000000\nSigIgn:\t\(mask)\n")
            setup.expectPathTaken()
        }
    }

    @Test("the command gets descriptors 0, 1 and 2 and none other of device-login's", arguments: Path.allCases)
    func descriptors(path: Path) async throws {
        try await Setup.with(path) { setup in
            try await setup.prepare()
            // device-login inherits descriptor 7 without close-on-exec (as from a careless parent).
            let result = try await Self.runThroughShell(
                "exec 7</dev/null", ["exec", "--", "ls", "-l", "/proc/self/fd"], setup: setup)
            let output = String(decoding: result.stdout, as: UTF8.self)
            #expect(result.status == 0, "\(String(decoding: result.stderr, as: UTF8.self))")
            let open = output.split(separator: "\n").compactMap { line -> String? in
                let words = line.split(separator: " ")
                guard let arrow = words.firstIndex(of: "->"), arrow > 0 else { return nil }
                let target = words.dropFirst(arrow + 1).joined(separator: " ")
                // ls's own descriptor for the directory it lists.
                if target.hasPrefix("/proc/"), target.hasSuffix("/fd") { return nil }
                return String(words[arrow - 1])
            }
            #expect(open.sorted() == ["0", "1", "2"], "\(output)")
            setup.expectPathTaken()
        }
    }

    @Test("the token is in the command's environment and in no process's arguments", arguments: Path.allCases)
    func notInArguments(path: Path) async throws {
        try await Setup.with(path) { setup in
            try await setup.prepare()
            let script =
                #"tr '\0' ' ' < /proc/$$/cmdline; echo; tr '\0' ' ' < /proc/$PPID/cmdline; echo; "#
                + "printenv DEVICE_LOGIN_ACCESS_TOKEN"
            let result = try await BinaryHarness.run(
                ["exec", "--", "/bin/sh", "-c", script], environment: setup.environment)
            #expect(result.status == 0, "\(result.stderr)")
            // On the full path, the token refreshed before the command ran.
            let token = try await setup.storedToken()
            let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
            try #require(lines.count >= 3, "\(result.stdout)")
            #expect(lines[0].contains("/bin/sh -c"), "the command's arguments: \(lines[0])")
            #expect(lines[1].contains("exec -- /bin/sh -c"), "device-login's arguments: \(lines[1])")
            #expect(!lines[0].contains(token) && !lines[1].contains(token))
            #expect(lines[2] == token)
            setup.expectPathTaken()
        }
    }

    @Test(
        "--env LD_PRELOAD or PATH: refused (64) with the name, the command not run, so ld.so never reads the token",
        arguments: ["LD_PRELOAD", "PATH", "LD_DEBUG_OUTPUT"])
    func loaderVariableRefused(name: String) async throws {
        // A usage error, found before either path looks at the token.
        try await Setup.with(.lane) { setup in
            try await setup.prepare()
            let token = try await setup.storedToken()
            let result = try await BinaryHarness.run(
                ["exec", "--env", name, "--", "/bin/sh", "-c", #"touch "$OUT""#], environment: setup.environment)
            #expect(result.status == 64, "\(result.stderr)")
            #expect(result.stderr.contains("--env cannot be \(name)"), "\(result.stderr)")
            #expect(!result.stderr.contains(token))
            #expect(result.stdout.isEmpty)
            #expect(setup.report() == nil)
        }
    }
}
