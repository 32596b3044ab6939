import DeviceLogin
import DeviceLoginTerminal
import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's terminal for `login --kiosk`: standard input for key presses (termios cbreak mode), `SIGWINCH` and
/// the size of the terminal behind standard error.
///
/// Key presses are waited for with `poll(2)` on a Dispatch queue of its own, never on the cooperative pool; the
/// wait looks at cancellation every 100 ms.
final class SystemKioskConsole: KioskConsole {
    private let input: Int32
    private let output: Int32
    /// The terminal mode ``start()`` found, to put back.
    private let saved = Locked<termios?>(nil)

    /// A console on standard input and standard error.
    init(input: Int32 = 0, output: Int32 = 2) {
        self.input = input
        self.output = output
    }

    var hasKeyboard: Bool { isatty(input) == 1 }

    func start() {
        guard hasKeyboard else { return }
        var mode = termios()
        guard tcgetattr(input, &mode) == 0 else { return }
        saved.withLock { $0 = mode }
        mode.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &mode.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        _ = tcsetattr(input, TCSANOW, &mode)
    }

    func stop() {
        guard var mode = saved.withLock({ $0 }) else { return }
        _ = tcsetattr(input, TCSANOW, &mode)
    }

    func resizes() -> AsyncStream<KioskConsoleSize> {
        let (stream, sink) = AsyncStream.makeStream(of: KioskConsoleSize.self)
        let output = self.output
        signal(SIGWINCH, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: .global())
        source.setEventHandler {
            let terminal = TerminalCapabilities.detect(fileDescriptor: output, environment: [:])
            if let columns = terminal.columns, let rows = terminal.rows {
                sink.yield(KioskConsoleSize(columns: columns, rows: rows))
            }
        }
        source.resume()
        let held = Locked<(any DispatchSourceSignal)?>(source)
        sink.onTermination = { _ in
            held.withLock { source in
                source?.cancel()
                source = nil
            }
        }
        return stream
    }

    func waitForKey() async throws -> Bool {
        _ = tcflush(input, TCIFLUSH)
        let cancelled = Locked(false)
        let input = self.input
        let pressed = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                keyQueue.async {
                    continuation.resume(returning: Self.readKey(input, cancelled: cancelled))
                }
            }
        } onCancel: {
            cancelled.withLock { $0 = true }
        }
        try Task.checkCancellation()
        return pressed
    }

    /// Waits for bytes on `descriptor` and reads what is there (a key, or the sequence one key sends); `false` at
    /// end of input, on an error, or once `cancelled` is set.
    private static func readKey(_ descriptor: Int32, cancelled: Locked<Bool>) -> Bool {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while !cancelled.withLock({ $0 }) {
            let ready = poll(&poller, 1, 100)
            if ready < 0, errno == EINTR { continue }
            guard ready >= 0 else { return false }
            guard ready > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 64)
            let count = read(descriptor, &buffer, buffer.count)
            if count < 0, errno == EINTR { continue }
            return count > 0
        }
        return false
    }
}

/// The queue key presses are waited for on.
private let keyQueue = DispatchQueue(label: "DeviceLoginCLI.SystemKioskConsole.keys")
