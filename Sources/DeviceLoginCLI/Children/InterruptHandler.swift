import DeviceLogin
import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The signals that end the process — SIGINT (Ctrl-C), SIGTERM (`timeout`, `kill`, service managers), SIGHUP (the
/// terminal closed) and SIGQUIT (Ctrl-\) — all handled alike.
///
/// The first one cancels the command's task: polling stops with no further request, the prompt erases its status
/// line and shows the cursor again, and the tool exits 128 + N (``exitCode(_:stoppedBy:)``). A second one, or the
/// first when the task has not ended after ``gracePeriod``, restores the terminal and exits 128 + N at once.
///
/// Each signal is received through a Dispatch source. Creating one replaces the signal's handler (libdispatch
/// installs its own on Linux; the disposition is set to ignore first, which macOS needs), so SIGQUIT no longer
/// reaches the Swift runtime's crash catcher, which would print a backtrace with registers and memory and let
/// the process go on polling.
///
/// While `exec` runs its command, the signals are the command's: ``handingOver(_:)`` stops this handling (nothing is
/// cancelled, the tool does not end) and ``ChildLauncher`` passes them on; the handling resumes when the command
/// has ended.
final class InterruptHandler: Sendable {
    /// The signals handled, in the order their sources are made.
    static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]
    /// How long the first signal waits for the command to unwind before the process ends anyway.
    static let gracePeriod: DispatchTimeInterval = .seconds(5)

    /// What else must be put back when the process ends at once (the kiosk screen: ``restoring(with:_:)``).
    private static let extraRestore = Locked<(@Sendable () -> Void)?>(nil)

    /// The handler ``CLIProcess`` installed, if any (none in tests that run the CLI in-process).
    private static let installed = Locked<InterruptHandler?>(nil)

    /// The Dispatch sources, one a signal; none while the signals are handed over.
    private let sources = Locked<[any DispatchSourceSignal]>([])
    /// What a source does when its signal arrives.
    private let handle: @Sendable (Int32) -> Void
    private let state = Locked(State())

    /// What the handlers share: the first signal, and the task to cancel.
    private struct State {
        var signal: Int32?
        var task: Task<ExitCode, Never>?
    }

    /// Starts handling the signals. A signal that arrives before ``cancel(_:)`` names the task is kept for it.
    /// - Parameters:
    ///   - stderr: Where the last words go when the process has to end at once.
    ///   - allowsEscapes: Whether stderr takes the escapes that show the cursor and reset colours.
    init(stderr: TextSink, allowsEscapes: Bool) {
        let state = self.state
        handle = { number in
            let (first, task) = state.withLock { state in
                let first = state.signal
                if first == nil { state.signal = number }
                return (first, state.task)
            }
            if let first {
                Self.stopNow(first, stderr: stderr, allowsEscapes: allowsEscapes)
            }
            task?.cancel()
            DispatchQueue.global().asyncAfter(deadline: .now() + Self.gracePeriod) {
                Self.stopNow(number, stderr: stderr, allowsEscapes: allowsEscapes)
            }
        }
        for number in Self.signals { InheritedSignals.ignore(number) }
        startHandling()
        Self.installed.withLock { $0 = self }
    }

    /// Makes and starts a source for each signal.
    private func startHandling() {
        let handle = handle
        let made = Self.signals.map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { handle(number) }
            source.resume()
            return source
        }
        sources.withLock { $0 = made }
    }

    /// Cancels the sources, and returns once libdispatch has let go of each signal (closed its `signalfd`), so that
    /// none of them is read there any more: a handler installed meanwhile (``ChildLauncher``'s) gets every one.
    private func stopHandling() async {
        let stopping = sources.withLock { sources in
            defer { sources = [] }
            return sources
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let group = DispatchGroup()
            for source in stopping {
                group.enter()
                // Called once the source is unregistered: libdispatch reads the signal no longer.
                source.setCancelHandler { group.leave() }
                source.cancel()
            }
            group.notify(queue: .global()) { continuation.resume() }
        }
    }

    /// Runs `body` with the signals left to it, then handles them again: `exec` runs its command there, and
    /// forwards the signals to it instead of cancelling (``ChildLauncher``). A signal that arrived before is handled
    /// as always: the task is cancelled, and `body` should check for that before it starts anything. Without an
    /// installed handler (the CLI run in-process), `body` just runs.
    static func handingOver<Value>(_ body: () async throws -> Value) async rethrows -> Value {
        guard let handler = installed.withLock({ $0 }) else { return try await body() }
        await handler.stopHandling()
        defer { handler.startHandling() }
        return try await body()
    }

    /// Runs `body` with `restore` registered: when the process must end at once (a second signal, or the grace
    /// period over) `restore` runs before the usual last words. `login --kiosk` leaves its alternate screen and
    /// puts the keyboard mode back there; on every other path it does so itself.
    static func restoring<Value>(
        with restore: @escaping @Sendable () -> Void, _ body: () async throws -> Value
    ) async rethrows -> Value {
        extraRestore.withLock { $0 = restore }
        defer { extraRestore.withLock { $0 = nil } }
        return try await body()
    }

    /// Cancels `task` on the first signal, or at once when one has arrived already.
    func cancel(_ task: Task<ExitCode, Never>) {
        let seen = state.withLock { state in
            state.task = task
            return state.signal != nil
        }
        if seen { task.cancel() }
    }

    /// The first signal that arrived, if any.
    var receivedSignal: Int32? { state.withLock { $0.signal } }

    /// The exit code of a command that returned `code` after `signal` arrived (nil: none did).
    ///
    /// A command that still succeeded keeps 0 (`demo --serve` stops cleanly; a result written in time stays
    /// good); any other ending is the signal's: 128 + N.
    static func exitCode(_ code: ExitCode, stoppedBy signal: Int32?) -> ExitCode {
        guard let signal, code != .success else { return code }
        return ExitCode(stoppedBy: signal) ?? code
    }

    /// Puts the terminal back (erase the line, reset attributes, show the cursor), says so, and ends the process
    /// with 128 + `signal` without unwinding.
    private static func stopNow(_ signal: Int32, stderr: TextSink, allowsEscapes: Bool) -> Never {
        extraRestore.withLock { $0 }?()
        if allowsEscapes { stderr.write("\r\u{1B}[2K\u{1B}[0m\u{1B}[?25h") }
        stderr.line("device-login: cancelled")
        _exit(ExitCode(stoppedBy: signal)?.rawValue ?? 128 + signal)
    }
}
