import DeviceLoginTestSupport
import Foundation
import Synchronization

/// Runs the built `device-login` binary (beside the test bundle) as a separate process.
enum BinaryHarness {
    struct Run: Sendable {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The built `device-login`, beside the test bundle.
    static var binary: URL { BuildProducts.executable("device-login") }

    /// The demo server's program, which `device-login demo` replaces itself with.
    static var demoBinary: URL { BuildProducts.executable("device-login-demo") }

    /// Starts the binary (or `executable`); call `finish` on the result to wait for it and collect its output.
    static func start(
        _ arguments: [String], environment: [String: String], executable: URL = binary
    ) throws -> Running {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var merged = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("DEVICE_LOGIN_") }
        merged.merge(environment) { $1 }
        process.environment = merged
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return Running(process: process, out: out, err: err)
    }

    /// Runs the binary to completion.
    static func run(
        _ arguments: [String], environment: [String: String], executable: URL = binary
    ) async throws -> Run {
        try await start(arguments, environment: environment, executable: executable).finish()
    }

    final class Running: @unchecked Sendable {
        let process: Process
        let out: Pipe
        let err: Pipe

        init(process: Process, out: Pipe, err: Pipe) {
            self.process = process
            self.out = out
            self.err = err
        }

        /// Reads both streams to the end (off the cooperative pool) and waits for the exit status.
        func finish() async throws -> Run {
            try await withCheckedThrowingContinuation { continuation in
                DispatchQueue.global().async {
                    let group = DispatchGroup()
                    let stderr = Mutex(Data())
                    group.enter()
                    DispatchQueue.global().async {
                        let data = self.err.fileHandleForReading.readDataToEndOfFile()
                        stderr.withLock { $0 = data }
                        group.leave()
                    }
                    let stdout = self.out.fileHandleForReading.readDataToEndOfFile()
                    group.wait()
                    self.process.waitUntilExit()
                    continuation.resume(returning: Run(
                        status: self.process.terminationStatus,
                        stdout: String(decoding: stdout, as: UTF8.self),
                        stderr: String(decoding: stderr.withLock { $0 }, as: UTF8.self)
                    ))
                }
            }
        }
    }

    /// A fresh, private `DEVICE_LOGIN_HOME`.
    static func temporaryHome() throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("device-login-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        return url
    }
}
