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

    /// Reads from `pipe` until `line` has arrived (or the pipe closes). Returns whether it arrived.
    static func waitForLine(_ line: String, on pipe: Pipe) -> Bool {
        var received = ""
        while !received.contains(line + "\n") {
            let data = pipe.fileHandleForReading.availableData
            if data.isEmpty { return false }
            received += String(decoding: data, as: UTF8.self)
        }
        return true
    }
}
