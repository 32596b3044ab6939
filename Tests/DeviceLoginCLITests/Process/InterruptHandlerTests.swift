import Foundation
import Testing

@testable import DeviceLoginCLI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Signals that end the process: the real binary on a pseudo-terminal.
@Suite("InterruptHandler: SIGINT, SIGTERM, SIGHUP, SIGQUIT", .serialized, .timeLimit(.minutes(3)))
struct InterruptHandlerTests {
    @Test(
        "the exit code after a signal: 128 + N, unless the command succeeded anyway",
        arguments: [
            (ExitCode.success, nil as Int32?, ExitCode.success),
            (.expired, nil, .expired),
            (.cancelled, SIGINT, .cancelled),
            (.cancelled, SIGTERM, .terminated),
            (.cancelled, SIGHUP, .hangUp),
            (.cancelled, SIGQUIT, .quit),
            // A failure the cancellation turned into (a transfer cut short) is still the signal's.
            (.unavailable, SIGTERM, .terminated),
            // `demo --serve` stops cleanly; a result written in time stays good.
            (.success, SIGTERM, .success),
            (.cancelled, SIGUSR1, .cancelled),
        ])
    func exitCode(code: ExitCode, signal: Int32?, expected: ExitCode) {
        #expect(InterruptHandler.exitCode(code, stoppedBy: signal) == expected)
    }

    @Test("every handled signal has its own exit code")
    func everySignal() {
        for signal in InterruptHandler.signals {
            #expect(ExitCode(stoppedBy: signal)?.rawValue == 128 + signal)
        }
    }

    /// The bytes that put the terminal back: erase the line, reset attributes, show the cursor.
    private static let restore = "\u{1B}[2K\u{1B}[0m\u{1B}[?25h"

    @Test(
        "SIGINT, SIGTERM, SIGHUP and SIGQUIT during the live prompt: the terminal restored, exit 128+N, no dump",
        arguments: [SIGINT, SIGTERM, SIGHUP, SIGQUIT])
    func signalDuringPrompt(signal: Int32) async throws {
        let home = try BinaryHarness.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let terminal = try PseudoTerminal()
        let process = try terminal.start(
            BinaryHarness.binary, ["demo", "--interval", "1", "--qr", "never"],
            environment: ["DEVICE_LOGIN_HOME": home.path]
        )
        try #require(await terminal.wait(for: "Waiting for approval", seconds: 30), "\(terminal.output)")
        // The status line is drawn, the cursor hidden.
        #expect(terminal.output.contains("\u{1B}[?25l"))
        kill(process.processIdentifier, signal)
        let ending = await terminal.finish(process, seconds: 10)
        let output = terminal.output
        #expect(ending == .exited(128 + signal), "it did not stop by itself, cleanly: \(output.suffix(2000))")
        let afterLastDraw = output.components(separatedBy: "Waiting for approval").last ?? ""
        #expect(afterLastDraw.contains(Self.restore), "not restored: \(afterLastDraw.debugDescription)")
        #expect(afterLastDraw.hasSuffix("device-login: cancelled\r\n"), "\(afterLastDraw.debugDescription)")
        for marker in ["Crash", "crashed", "Thread 0", "Registers", "Backtrac", "Press space to interact"] {
            #expect(!output.contains(marker), "a crash report was printed: \(output.suffix(2000))")
        }
    }
}
