import Foundation

/// Runs the `StoreCrashHelper` executable built beside the test bundle.
enum HelperProcess {
    /// The directory holding the built products (the test bundle's directory).
    static var productsDirectory: URL {
        #if os(macOS)
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            return bundle.bundleURL.deletingLastPathComponent()
        }
        return Bundle.main.bundleURL
        #else
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: executable).deletingLastPathComponent()
        #endif
    }

    static var helperURL: URL { productsDirectory.appendingPathComponent("StoreCrashHelper") }

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
