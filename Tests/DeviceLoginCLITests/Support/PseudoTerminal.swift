import DeviceLogin
import DeviceLoginTestSupport
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A pseudo-terminal to run the built binary on, as a person at a terminal would: its standard streams are the
/// terminal's secondary side, and everything it writes is read from the primary side.
///
/// ```swift
/// let terminal = try PseudoTerminal()
/// let process = try terminal.start(BinaryHarness.binary, ["demo"], environment: [:])
/// #expect(await terminal.wait(for: "Waiting for approval", seconds: 20))
/// kill(process.processIdentifier, SIGTERM)
/// ```
final class PseudoTerminal: @unchecked Sendable {
    private let primary: Int32
    private let secondaryPath: String
    private let received = Locked(Data())
    private let finished = DispatchSemaphore(value: 0)
    /// Whether the reading has ended: no process has the secondary side open any more.
    private let closed = Locked(false)

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// `posix_openpt`, `grantpt`, `unlockpt` and `ptsname`. Glibc's module map leaves them out (they need
    /// `_XOPEN_SOURCE`), so on Linux they are looked up in the C library by name.
    private struct PTYCalls {
        let open: @convention(c) (Int32) -> Int32
        let grant: @convention(c) (Int32) -> Int32
        let unlock: @convention(c) (Int32) -> Int32
        let name: @convention(c) (Int32) -> UnsafeMutablePointer<CChar>?

        init() throws {
            #if canImport(Darwin)
            open = posix_openpt
            grant = grantpt
            unlock = unlockpt
            name = ptsname
            #else
            func symbol<T>(_ name: String, as type: T.Type) throws -> T {
                guard let address = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else {
                    throw Failure(description: "no \(name) in the C library")
                }
                return unsafeBitCast(address, to: type)
            }
            open = try symbol("posix_openpt", as: (@convention(c) (Int32) -> Int32).self)
            grant = try symbol("grantpt", as: (@convention(c) (Int32) -> Int32).self)
            unlock = try symbol("unlockpt", as: (@convention(c) (Int32) -> Int32).self)
            name = try symbol("ptsname", as: (@convention(c) (Int32) -> UnsafeMutablePointer<CChar>?).self)
            #endif
        }
    }

    /// Opens a new pseudo-terminal.
    init() throws {
        let calls = try PTYCalls()
        primary = calls.open(O_RDWR | O_NOCTTY)
        guard primary >= 0, calls.grant(primary) == 0, calls.unlock(primary) == 0, let name = calls.name(primary)
        else {
            throw Failure(description: "no pseudo-terminal: \(String(cString: strerror(errno)))")
        }
        secondaryPath = String(cString: name)
    }

    deinit { close(primary) }

    /// Closes the primary side, as a terminal window does when it is closed: the secondary side hangs up. The
    /// descriptor is pointed at `/dev/null` rather than closed, so that its number is not reused while the reading
    /// goes on (the reading then ends, with nothing more to read).
    func hangUp() {
        let null = open("/dev/null", O_RDWR)
        _ = dup2(null, primary)
        close(null)
    }

    /// Starts `executable` with all three standard streams on the terminal, and starts reading what it writes.
    func start(_ executable: URL, _ arguments: [String], environment: [String: String]) throws -> Process {
        guard let secondary = FileHandle(forUpdatingAtPath: secondaryPath) else {
            throw Failure(description: "cannot open \(secondaryPath)")
        }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let terminal = ["TERM": "xterm-256color", "COLUMNS": "100", "LINES": "40", "LANG": "C.UTF-8"]
        process.environment = ChildProcess.environment(
            terminal.merging(environment) { $1 }, droppingPrefix: "DEVICE_LOGIN_"
        )
        process.standardInput = secondary
        process.standardOutput = secondary
        process.standardError = secondary
        try process.run()
        try secondary.close()
        let primary = self.primary
        DispatchQueue.global().async { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(primary, &buffer, buffer.count)
                if count < 0, errno == EINTR { continue }
                // EIO once no process has the secondary side open any more.
                guard count > 0 else { break }
                received.withLock { $0.append(contentsOf: buffer[0..<count]) }
            }
            closed.withLock { $0 = true }
            finished.signal()
        }
        return process
    }

    /// Sets the terminal's size, as a terminal window does when it is resized (the process is not told: send it
    /// `SIGWINCH`, which the kernel sends only to a terminal's foreground process group).
    func resize(columns: UInt16, rows: UInt16) throws {
        var size = winsize(ws_row: rows, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
        guard ioctl(primary, UInt(TIOCSWINSZ), &size) == 0 else {
            throw Failure(description: "TIOCSWINSZ: \(String(cString: strerror(errno)))")
        }
    }

    /// Everything written so far, as text.
    var output: String { String(decoding: received.withLock { $0 }, as: UTF8.self) }

    /// Waits until the output contains `text`; returns whether it did within `seconds`. Sleeps between looks,
    /// so that no thread of the cooperative pool is held.
    func wait(for text: String, seconds: Double) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if output.contains(text) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return output.contains(text)
    }

    /// Waits until the output written after its first `offset` bytes contains `text`; returns whether it did within
    /// `seconds`.
    func wait(for text: String, after offset: Int, seconds: Double) async -> Bool {
        func seen() -> Bool {
            String(decoding: received.withLock { $0 }.dropFirst(offset), as: UTF8.self).contains(text)
        }
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if seen() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return seen()
    }

    /// Waits until no process has the terminal open any more (every process started on it has ended, those it
    /// started too); returns whether that happened within `seconds`, a failsafe.
    func waitUntilClosed(seconds: Double) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if closed.withLock({ $0 }) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return closed.withLock { $0 }
    }

    /// How a process ended.
    enum Ending: Equatable, Sendable {
        /// It exited with this status.
        case exited(Int32)
        /// A signal it did not handle ended it.
        case signalled(Int32)
        /// It was still running at the deadline and was killed.
        case killed
    }

    /// Waits for the process to end, within `seconds` (else kills it), and for the last of its output.
    func finish(_ process: Process, seconds: Double) async -> Ending {
        let box = UncheckedBox(process)
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async { [self] in
                let process = box.value
                let deadline = Date().addingTimeInterval(seconds)
                while process.isRunning, Date() < deadline { usleep(20_000) }
                var killed = false
                if process.isRunning {
                    kill(process.processIdentifier, SIGKILL)
                    killed = true
                }
                process.waitUntilExit()
                _ = finished.wait(timeout: .now() + 5)
                if killed {
                    continuation.resume(returning: .killed)
                } else if process.terminationReason == .uncaughtSignal {
                    continuation.resume(returning: .signalled(process.terminationStatus))
                } else {
                    continuation.resume(returning: .exited(process.terminationStatus))
                }
            }
        }
    }
}
