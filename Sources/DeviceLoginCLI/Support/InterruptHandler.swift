#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import DeviceLogin

/// Ctrl-C for the whole process: the first SIGINT cancels the command's task (polling stops with no further
/// request, the prompt cleans up after itself, the tool exits 130); a second one, should anything hang, restores
/// the terminal and exits 130 at once.
final class InterruptHandler {
    private let source: any DispatchSourceSignal

    /// How many interrupts arrived; shared with the signal handler.
    private final class Counter: Sendable {
        let value = Locked(0)
    }

    /// Starts handling SIGINT for `task`.
    /// - Parameters:
    ///   - task: The command's task, cancelled on the first Ctrl-C.
    ///   - stderr: Where the last words go.
    ///   - allowsEscapes: Whether stderr takes the escapes that show the cursor and reset colours.
    init(cancelling task: Task<ExitCode, Never>, stderr: TextSink, allowsEscapes: Bool) {
        signal(SIGINT, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        let counter = Counter()
        source.setEventHandler {
            let seen = counter.value.withLock { value in
                value += 1
                return value
            }
            if seen == 1 {
                task.cancel()
                return
            }
            if allowsEscapes { stderr.write("\r\u{1B}[2K\u{1B}[0m\u{1B}[?25h") }
            stderr.line("device-login: cancelled")
            _exit(ExitCode.cancelled.rawValue)
        }
        source.resume()
    }
}
