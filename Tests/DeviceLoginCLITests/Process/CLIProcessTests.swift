import DeviceLogin
import Foundation
import Testing

@testable import DeviceLoginCLI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process shell of the real binary: what happens when standard output fails.
@Suite("The real process: a result that cannot be written", .serialized, .timeLimit(.minutes(3)))
struct CLIProcessTests {
    @Test(
        "token to a full device or a closed stdout: exit 74, said on stderr",
        arguments: [
            (ProcessHarness.Output.full, "No space left on device"),
            (.closed, "it is closed"),
        ])
    func tokenUnwritten(output: ProcessHarness.Output, reason: String) async throws {
        let home = try BinaryHarness.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let token = try await ProcessHarness.saveSignedInProfile(home: home)
        let result = try await ProcessHarness.run(
            ["token"], environment: ["DEVICE_LOGIN_HOME": home.path], output: output
        )
        #expect(result.status == 74)
        #expect(result.stderr == "device-login: could not write the result to standard output: \(reason)\n")
        #expect(!result.stderr.contains(token))
        // The token went nowhere else: no file of the profile directory holds it twice or more.
        for name in try FileManager.default.contentsOfDirectory(atPath: home.path) {
            let text = try String(contentsOf: home.appendingPathComponent(name), encoding: .utf8)
            #expect(text.components(separatedBy: token).count <= 2, "\(name) got the token written into it")
        }
    }

    @Test(
        "every command's result is checked: --version, --help, status --json to /dev/full exit 74",
        arguments: [
            ["--version"], ["--help"], ["token", "--help"], ["status", "--json"],
        ])
    func everyResult(words: [String]) async throws {
        let home = try BinaryHarness.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let result = try await ProcessHarness.run(
            words, environment: ["DEVICE_LOGIN_HOME": home.path],
            output: .full)
        #expect(result.status == 74)
        #expect(result.stderr.hasPrefix("device-login: could not write the result to standard output: "))
    }

    @Test(
        "a reader that closed the pipe early: the process ends by SIGPIPE (141), as git does, and says nothing",
        arguments: [
            ["token"], ["status"], ["status", "--json"], ["--version"], ["status", "--help"],
        ])
    func readerGone(words: [String]) async throws {
        let home = try BinaryHarness.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let token = try await ProcessHarness.saveSignedInProfile(home: home)
        let result = try await ProcessHarness.run(
            words, environment: ["DEVICE_LOGIN_HOME": home.path], output: .brokenPipe)
        #expect(result.status == 128 + SIGPIPE, "\(words): \(result.stderr)")
        #expect(result.stderr.isEmpty, "\(words): \(result.stderr)")
        #expect(!result.stderr.contains(token))
    }

    @Test("status to a full device or a closed stdout stays an error: exit 74, said on stderr")
    func statusUnwritten() async throws {
        let home = try BinaryHarness.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        _ = try await ProcessHarness.saveSignedInProfile(home: home)
        for (output, reason) in [(ProcessHarness.Output.full, "No space left on device"), (.closed, "it is closed")] {
            let result = try await ProcessHarness.run(
                ["status"], environment: ["DEVICE_LOGIN_HOME": home.path], output: output)
            #expect(result.status == 74)
            #expect(result.stderr == "device-login: could not write the result to standard output: \(reason)\n")
        }
    }

    @Test("demo --json (a sign-in with nothing saved) to /dev/full: exit 74, and says the tokens are lost")
    func signInUnwritten() async throws {
        let home = try BinaryHarness.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let result = try await ProcessHarness.run(
            ["demo", "--approve-after", "0", "--interval", "1", "--qr", "never", "--json"],
            environment: ["DEVICE_LOGIN_HOME": home.path], output: .full
        )
        #expect(result.status == 74)
        #expect(
            result.stderr.contains(
                "device-login: could not write the result to standard output: No space left on device\n"
            ))
        #expect(result.stderr.contains("The tokens were not saved anywhere (nothing is stored)"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: home.path).isEmpty)
    }

    @Test("a result that is written whole still exits 0")
    func written() async throws {
        let home = try BinaryHarness.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let token = try await ProcessHarness.saveSignedInProfile(home: home)
        let result = try await ProcessHarness.run(["token"], environment: ["DEVICE_LOGIN_HOME": home.path])
        #expect(result.status == 0)
        #expect(result.stdout == token + "\n")
        #expect(result.stderr.isEmpty)
    }

    @Test("the runtime's crash reports stay off unless SWIFT_BACKTRACE asks for them")
    func crashReports() {
        #expect(!CLIProcess.keepsRuntimeCrashReports(variable: { _ in nil }))
        #expect(!CLIProcess.keepsRuntimeCrashReports(variable: { ["SWIFT_BACKTRACE_X": "1"][$0] }))
        #expect(CLIProcess.keepsRuntimeCrashReports(variable: { ["SWIFT_BACKTRACE": "enable=yes"][$0] }))
    }

    /// The longest line of `text` with more than one word (a lone long word cannot be wrapped).
    private static func longestLine(_ text: String) -> Int {
        text.split(whereSeparator: \.isNewline).filter { $0.split(separator: " ").count > 1 }
            .map(\.count).max() ?? 0
    }

    @Test("help wraps to the width of the terminal on stdout, and to 80 columns on a pipe")
    func helpWidth() async throws {
        let terminal = try PseudoTerminal()
        let process = try terminal.start(BinaryHarness.binary, ["status", "--help"], environment: ["COLUMNS": "60"])
        #expect(await terminal.finish(process, seconds: 30) == .exited(0))
        let onTerminal = Self.longestLine(terminal.output)
        #expect(onTerminal <= 60 && onTerminal > 50, "\(terminal.output)")
        let piped = try await ProcessHarness.run(["status", "--help"], environment: ["COLUMNS": "60"])
        #expect(piped.status == 0)
        let onPipe = Self.longestLine(piped.stdout)
        #expect(onPipe <= 80 && onPipe > 70, "\(piped.stdout)")
    }
}
