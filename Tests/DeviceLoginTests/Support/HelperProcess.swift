import DeviceLoginTestSupport
import Foundation

/// Runs the `StoreCrashHelper` executable built beside the test bundle.
enum HelperProcess {
    /// The built `StoreCrashHelper`.
    static var helperURL: URL { BuildProducts.executable("StoreCrashHelper") }

    /// Starts the helper with `arguments`; its standard output goes to the returned pipe.
    static func start(_ arguments: [String]) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = helperURL
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        return (process, output)
    }

    /// Reads from `pipe` until `line` has arrived, the pipe closes, or `timeout` passes. Returns whether it arrived.
    ///
    /// Bounded: a helper that never writes (or a write end another child inherited) must fail the test, not hang it.
    static func waitForLine(_ line: String, on pipe: Pipe, timeout: Duration = .seconds(20)) -> Bool {
        let descriptor = pipe.fileHandleForReading.fileDescriptor
        let deadline = ContinuousClock.now + timeout
        var received = ""
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !received.contains(line + "\n") {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return false }
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(clamping: left.components.seconds * 1000 + 1)
            let ready = poll(&entry, 1, min(milliseconds, 1000))
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { continue }
            let count = read(descriptor, &buffer, buffer.count)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return false }
            received += String(decoding: buffer[0..<count], as: UTF8.self)
        }
        return true
    }

    /// Starts a write-loop helper, waits until it is ready, kills it with SIGKILL after a random pause of up to
    /// 4 ms, and reaps it — all on a thread of its own, so the blocking calls never hold a thread of the cooperative
    /// pool (on 2 cores it has two, and the tests beside this one need them).
    /// - Returns: Whether the helper said it was ready, and whether a signal ended it.
    static func killWhileWriting(_ arguments: [String]) async throws -> (ready: Bool, killed: Bool) {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                do {
                    let (process, output) = try start(arguments)
                    let ready = waitForLine("ready", on: output)
                    usleep(UInt32.random(in: 0...4_000))
                    kill(process.processIdentifier, SIGKILL)
                    process.waitUntilExit()
                    continuation.resume(returning: (ready, process.terminationReason == .uncaughtSignal))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
            thread.start()
        }
    }

    /// Waits for `process` to exit on a thread of its own, not on the cooperative pool.
    /// - Returns: Its exit status.
    static func exitStatus(of process: Process) async -> Int32 {
        return await withCheckedContinuation { continuation in
            Thread {
                process.waitUntilExit()
                continuation.resume(returning: process.terminationStatus)
            }.start()
        }
    }
}
