import DeviceLoginTestSupport
import Foundation

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
        let (process, out, err) = try ChildProcess.start(
            executable, arguments, environment: ChildProcess.environment(environment, droppingPrefix: "DEVICE_LOGIN_")
        )
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
            let result = await ChildProcess.finish(process, stdout: out, stderr: err)
            return Run(
                status: result.status,
                stdout: String(decoding: result.stdout, as: UTF8.self),
                stderr: String(decoding: result.stderr, as: UTF8.self)
            )
        }
    }

    /// A fresh, private `DEVICE_LOGIN_HOME`.
    static func temporaryHome() throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("device-login-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: url, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        return url
    }
}
