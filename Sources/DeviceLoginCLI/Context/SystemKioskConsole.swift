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
///
/// While the screen is up, it watches for the sign-in being left alone with a terminal nobody is looking at: the
/// process that started it gone (`kill -9` of the script: the process is then another's child, `getppid()` changes)
/// or the terminal hung up (its window closed: `poll(2)` says `POLLHUP`, though no `SIGHUP` comes when the terminal
/// is not the process's controlling one). Either is handled as the `SIGHUP` it stands for: the process sends itself
/// one, and ``InterruptHandler`` cancels the sign-in, which leaves the alternate screen, shows the cursor, puts the
/// keyboard mode back, and exits 129.
final class SystemKioskConsole: KioskConsole {
    private let input: Int32
    private let output: Int32
    /// The terminal mode ``start()`` found, to put back.
    private let saved = Locked<termios?>(nil)
    /// The timer that watches the parent and the terminal from ``start()`` to ``stop()``.
    private let watch = Locked<(any DispatchSourceTimer)?>(nil)

    /// How often the parent process and the terminal are looked at: often enough that a lost sign-in is noticed
    /// before anyone types into a shell drawn over; each look is two system calls.
    static let watchInterval = DispatchTimeInterval.milliseconds(200)

    /// A console on standard input and standard error.
    init(input: Int32 = 0, output: Int32 = 2) {
        self.input = input
        self.output = output
    }

    var hasKeyboard: Bool { isatty(input) == 1 }

    func start() {
        startWatching()
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
        watch.withLock { timer in
            timer?.cancel()
            timer = nil
        }
        guard var mode = saved.withLock({ $0 }) else { return }
        _ = tcsetattr(input, TCSANOW, &mode)
    }

    /// Starts watching for the lost parent or terminal (see the type's description).
    private func startWatching() {
        let parent = getppid()
        let terminals = hasKeyboard ? [output, input] : [output]
        // Once the shell has taken its terminal back, this process is in a background process group: setting the
        // terminal's mode or writing there would stop it with SIGTTOU (with `stty tostop`), and the screen would
        // stay. Ignored, both go through, and the terminal is put back.
        signal(SIGTTOU, SIG_IGN)
        let timer = DispatchSource.makeTimerSource(queue: .global())
        timer.schedule(deadline: .now() + Self.watchInterval, repeating: Self.watchInterval)
        let watch = self.watch
        timer.setEventHandler {
            guard Self.isAbandoned(parent: parent, terminals: terminals) else { return }
            watch.withLock { timer in
                timer?.cancel()
                timer = nil
            }
            kill(getpid(), SIGHUP)
        }
        watch.withLock { $0 = timer }
        timer.resume()
    }

    /// Whether the process that started this one is gone (`getppid()` is no longer `parent`: the process was handed
    /// to init or a subreaper), or one of `terminals` has hung up or gone bad.
    static func isAbandoned(parent: pid_t, terminals: [Int32]) -> Bool {
        if getppid() != parent { return true }
        // No events asked for: POLLHUP, POLLERR and POLLNVAL are reported all the same, and nothing is read.
        var polled = terminals.map { pollfd(fd: $0, events: 0, revents: 0) }
        guard poll(&polled, nfds_t(polled.count), 0) > 0 else { return false }
        return polled.contains { $0.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 }
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
