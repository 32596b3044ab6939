import DeviceLoginTestSupport
import Foundation
import Testing

@testable import DeviceLoginCLI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `device-login exec` as the real binary: the signals it passes on, the signal state and descriptors its command
/// starts with, and the token kept out of every process's arguments.
@Suite("exec: the real binary, its signals and its command's start", .serialized, .timeLimit(.minutes(3)))
struct ExecProcessTests {
    /// A home with a signed-in default profile, and a scratch folder for the command's reports.
    private struct Setup {
        let home: URL
        let token: String

        init() async throws {
            home = try BinaryHarness.temporaryHome()
            token = try await ProcessHarness.saveSignedInProfile(home: home)
        }

        func file(_ name: String) -> URL { home.appendingPathComponent(name) }

        var environment: [String: String] {
            ["DEVICE_LOGIN_HOME": home.path, "OUT": file("out").path, "READY": file("ready").path]
        }

        func report() -> String? { try? String(contentsOf: file("out"), encoding: .utf8) }

        /// Waits (without holding a thread of the pool) until the command has written its `READY` file.
        func waitUntilReady(seconds: Double = 20) async -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if FileManager.default.fileExists(atPath: file("ready").path) { return true }
                try? await Task.sleep(for: .milliseconds(20))
            }
            return false
        }

        func remove() { try? FileManager.default.removeItem(at: home) }
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
        arguments: [
            (SIGTERM, "TERM"), (SIGINT, "INT"), (SIGHUP, "HUP"), (SIGQUIT, "QUIT"), (SIGUSR1, "USR1"),
            (SIGUSR2, "USR2"), (SIGWINCH, "WINCH"),
        ])
    func forwarded(signal: Int32, name: String) async throws {
        let setup = try await Setup()
        defer { setup.remove() }
        // At most 20 s: a signal that never arrives ends the command with 99, not the test run with a hang.
        let script =
            #"trap 'echo got-\#(name) > "$OUT"; exit 42' \#(name); touch "$READY"; i=0; "#
            + "while [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done; exit 99"
        let running = try BinaryHarness.start(["exec", "--", "/bin/sh", "-c", script], environment: setup.environment)
        try #require(await setup.waitUntilReady(), "the command did not start")
        kill(running.process.processIdentifier, signal)
        let result = try await running.finish()
        #expect(result.status == 42, "device-login did not pass on its command's status: \(result.stderr)")
        #expect(setup.report() == "got-\(name)\n")
        #expect(result.stderr.isEmpty, "device-login spoke: \(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test("a command ended by a signal: 128 + N; one that exits: its status")
    func status() async throws {
        let setup = try await Setup()
        defer { setup.remove() }
        for (script, expected) in [("exit 3", Int32(3)), ("kill -TERM $$", 143), ("kill -KILL $$", 137)] {
            let result = try await BinaryHarness.run(
                ["exec", "--", "/bin/sh", "-c", script], environment: setup.environment)
            #expect(result.status == expected, "\(script): \(result.stderr)")
            #expect(result.stderr.isEmpty, "\(script): \(result.stderr)")
        }
    }

    @Test("the command starts with no signal blocked and none ignored, SIGPIPE included")
    func cleanSignals() async throws {
        let setup = try await Setup()
        defer { setup.remove() }
        let result = try await BinaryHarness.run(
            ["exec", "--", "grep", "-E", "^Sig(Blk|Ign):", "/proc/self/status"], environment: setup.environment)
        #expect(result.status == 0, "\(result.stderr)")
        // Before: the mask of a thread of libdispatch's pool (every asynchronous signal blocked), and SIGPIPE
        // ignored as device-login ignores it.
        #expect(result.stdout == "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n")
    }

    @Test(
        "a signal device-login was started with ignored (nohup, a background job) stays ignored in the command",
        // SIGQUIT is not among them: the Swift runtime takes it over before device-login's first line runs, so
        // whether it was ignored is lost; the command gets its default action.
        // SIGPIPE is not passed on ignored either: the tool ignores it itself, and an inherited one is an accident.
        arguments: [
            ("HUP", "0000000000000001"), ("INT", "0000000000000002"), ("PIPE", "0000000000000000"),
            ("HUP INT TERM PIPE", "0000000000004003"),
        ])
    func inheritedIgnored(signals: String, mask: String) async throws {
        let setup = try await Setup()
        defer { setup.remove() }
        let result = try await Self.runThroughShell(
            "trap '' \(signals)", ["exec", "--", "grep", "-E", "^Sig(Blk|Ign):", "/proc/self/status"], setup: setup)
        let output = String(decoding: result.stdout, as: UTF8.self)
        #expect(result.status == 0, "\(String(decoding: result.stderr, as: UTF8.self))")
        #expect(output == "SigBlk:\t0000000000000000\nSigIgn:\t\(mask)\n")
    }

    @Test("the command gets descriptors 0, 1 and 2 and none other of device-login's")
    func descriptors() async throws {
        let setup = try await Setup()
        defer { setup.remove() }
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
    }

    @Test("the token is in the command's environment and in no process's arguments")
    func notInArguments() async throws {
        let setup = try await Setup()
        defer { setup.remove() }
        let script =
            #"tr '\0' ' ' < /proc/$$/cmdline; echo; tr '\0' ' ' < /proc/$PPID/cmdline; echo; "#
            + "printenv DEVICE_LOGIN_ACCESS_TOKEN"
        let result = try await BinaryHarness.run(
            ["exec", "--", "/bin/sh", "-c", script], environment: setup.environment)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        try #require(lines.count >= 3, "\(result.stdout)")
        #expect(lines[0].contains("/bin/sh -c"), "the command's arguments: \(lines[0])")
        #expect(lines[1].contains("exec -- /bin/sh -c"), "device-login's arguments: \(lines[1])")
        #expect(!lines[0].contains(setup.token) && !lines[1].contains(setup.token))
        #expect(lines[2] == setup.token)
    }

    @Test(
        "--env LD_PRELOAD or PATH: refused (64) with the name, the command not run, so ld.so never reads the token",
        arguments: ["LD_PRELOAD", "PATH", "LD_DEBUG_OUTPUT"])
    func loaderVariableRefused(name: String) async throws {
        let setup = try await Setup()
        defer { setup.remove() }
        let result = try await BinaryHarness.run(
            ["exec", "--env", name, "--", "/bin/sh", "-c", #"touch "$OUT""#], environment: setup.environment)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("--env cannot be \(name)"), "\(result.stderr)")
        #expect(!result.stderr.contains(setup.token))
        #expect(result.stdout.isEmpty)
        #expect(setup.report() == nil)
    }
}
