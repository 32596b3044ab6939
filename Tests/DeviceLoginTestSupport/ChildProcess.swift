import Foundation
import Synchronization

/// Waits for a started `Process` and collects what it wrote, without blocking the cooperative pool.
///
/// ```swift
/// let out = Pipe(), err = Pipe()
/// process.standardOutput = out
/// process.standardError = err
/// try process.run()
/// let result = await ChildProcess.finish(process, stdout: out, stderr: err)
/// ```
public enum ChildProcess {
    /// How the process ended and what it wrote.
    public struct Result: Sendable {
        /// The exit status, or the number of the signal that ended it when ``signalled``.
        public var status: Int32
        /// Whether a signal it did not handle ended the process.
        public var signalled: Bool
        /// Everything written on standard output.
        public var stdout: Data
        /// Everything written on standard error.
        public var stderr: Data
    }

    /// Starts `executable` with `arguments` and `environment`, standard input empty, and both outputs on pipes.
    public static func start(
        _ executable: URL, _ arguments: [String], environment: [String: String]
    ) throws -> (process: Process, stdout: Pipe, stderr: Pipe) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return (process, out, err)
    }

    /// Starts `executable` as ``start(_:_:environment:)`` does and waits for it: ``finish(_:stdout:stderr:)``.
    public static func run(_ executable: URL, _ arguments: [String], environment: [String: String]) async throws
        -> Result
    {
        let (process, out, err) = try start(executable, arguments, environment: environment)
        return await finish(process, stdout: out, stderr: err)
    }

    /// Reads both pipes to their end (each on its own thread, so neither can fill up and stall the process) and
    /// waits for the exit.
    public static func finish(_ process: Process, stdout: Pipe, stderr: Pipe) async -> Result {
        let parts = Unchecked((process, stdout, stderr))
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let (process, stdout, stderr) = parts.value
                let group = DispatchGroup()
                let error = Mutex(Data())
                group.enter()
                DispatchQueue.global().async {
                    let data = stderr.fileHandleForReading.readDataToEndOfFile()
                    error.withLock { $0 = data }
                    group.leave()
                }
                let output = stdout.fileHandleForReading.readDataToEndOfFile()
                group.wait()
                process.waitUntilExit()
                continuation.resume(
                    returning: Result(
                        status: process.terminationStatus, signalled: process.terminationReason == .uncaughtSignal,
                        stdout: output, stderr: error.withLock { $0 }
                    ))
            }
        }
    }

    /// The test runner's environment without the variables that start with `prefix`, with `overrides` on top. No
    /// session bus (`DBUS_SESSION_BUS_ADDRESS` empty) unless `overrides` names one: a child never reaches the test
    /// process's own Secret Service (SecretServiceSession) or the user's.
    public static func environment(_ overrides: [String: String], droppingPrefix prefix: String) -> [String: String] {
        var merged = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix(prefix) }
        merged["DBUS_SESSION_BUS_ADDRESS"] = ""
        merged.merge(overrides) { $1 }
        return merged
    }

    /// A process and its pipes, handed to the thread that waits for them (one thread uses them at a time).
    private struct Unchecked<Value>: @unchecked Sendable {
        let value: Value
        init(_ value: Value) { self.value = value }
    }
}
