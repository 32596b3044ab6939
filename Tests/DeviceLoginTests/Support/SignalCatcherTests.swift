import DeviceLoginTestSupport
import Foundation
import Testing

/// exec's signal catcher (`dl_catch_signals` in CExec) against libdispatch, in the helper process: the catcher takes
/// signals over for the whole process, which the test runner must keep.
///
/// libdispatch installs a handler of its own for a signal the first time it registers a Dispatch source for it, on
/// its manager thread, whenever that thread gets to it. device-login's InterruptHandler makes its sources at start;
/// if `exec` installed its catcher before they were registered, libdispatch's handler replaced the catcher and sent
/// every signal on to its manager thread, where — the sources cancelled, their signalfd closed — it stayed pending
/// for good: lost, never passed on to the command.
/// `dl_recatch_signals`, which `exec` calls once the sources are cancelled, puts the catcher back.
@Suite("exec's signal catcher and libdispatch's late handler", .serialized)
struct SignalCatcherTests {
    private func runHelper(_ arguments: [String]) async throws -> (status: Int32, stdout: [String], stderr: String) {
        let result = try await ChildProcess.run(HelperProcess.helperURL, arguments, environment: [:])
        let lines = String(decoding: result.stdout, as: UTF8.self).split(separator: "\n").map(String.init)
        return (result.status, lines, String(decoding: result.stderr, as: UTF8.self))
    }

    @Test("A source registered after the catcher, then cancelled: the signal is lost, caught by no one")
    func aLateSourceLosesTheSignal() async throws {
        let result = try await runHelper(["signal-catcher"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == ["replaced 0", "catcher none"])
    }

    @Test("dl_recatch_signals puts the catcher back: it replaced one, and the catcher gets the signal")
    func recatchPutsItBack() async throws {
        let result = try await runHelper(["signal-catcher", "recatch"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == ["replaced 1", "catcher \(SIGUSR1)"])
    }
}
