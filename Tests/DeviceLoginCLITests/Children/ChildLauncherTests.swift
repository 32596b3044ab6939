import Foundation
import Testing

@testable import DeviceLoginCLI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `exec`'s one supervisor, in-process: the full path's entry (`ChildLauncher.run`), which hands the command to the
/// same supervisor as the lane. (Signals sent to the real binary, on both paths, are `ExecProcessTests`'.)
@Suite("ChildLauncher: exec's one supervisor", .timeLimit(.minutes(2)))
struct ChildLauncherTests {
    @Test("the supervisor catches the signals it passes on, and SIGCHLD, which wakes it when the command ends")
    func caughtSignals() {
        #expect(ChildLauncher.caughtSignals == SignalRelay.signals + [SIGCHLD])
    }

    /// Every supervisor of a process reads the catcher's one pipe, so one may take the SIGCHLD record that was
    /// another's only wake-up (in-process tests run several at once). Here no record comes at all: SIGCHLD is
    /// back at its default action while the command ends.
    @Test("a supervisor that gets no wake-up for its command's end still returns its status")
    func noWakeUp() async throws {
        let scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("child-launcher-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let ready = scratch.appendingPathComponent("ready")
        let go = scratch.appendingPathComponent("go")
        // At most 20 s, so that a failure is a status, not a hang of the command.
        let script =
            #"touch "$READY"; i=0; while [ ! -e "$GO" ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done; exit 7"#
        let running = Task {
            try await ChildLauncher.run(
                ["/bin/sh", "-c", script], environment: ["READY": ready.path, "GO": go.path, "PATH": "/usr/bin:/bin"])
        }
        while !FileManager.default.fileExists(atPath: ready.path) { try await Task.sleep(for: .milliseconds(20)) }
        // The catcher no longer hears SIGCHLD (the default action keeps the status for waitpid). The supervisor's
        // release puts back the action from before the catcher.
        var standard = sigaction()
        sigemptyset(&standard.sa_mask)
        sigaction(SIGCHLD, &standard, nil)
        try Data().write(to: go)
        let status = try await running.value
        #expect(status == .exited(7))
    }
}
