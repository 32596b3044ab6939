import Foundation
import Testing

/// Runs the real `zbarimg` (Debian's zbar-tools) on a picture.
///
/// When `zbarimg` is missing: with `CI` set the calling test fails, because CI must install it; elsewhere the test
/// says so on standard output and checks nothing more.
enum ZBar {
    /// The path of `zbarimg` on `PATH`, if any.
    static let executable: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":")
            .map { "\($0)/zbarimg" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// Whether the test can go on: zbarimg is there, or its absence has been reported.
    static func isAvailable(sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        if executable != nil { return true }
        if let ci = ProcessInfo.processInfo.environment["CI"], !ci.isEmpty {
            Issue.record("zbarimg is missing; CI must install zbar-tools", sourceLocation: sourceLocation)
        } else {
            print("SKIPPED (zbar): zbarimg is not installed; `apt-get install zbar-tools` to run this check")
        }
        return false
    }

    /// The text zbarimg decodes from `image`, or `nil` when it finds no code.
    static func decode(_ image: GreyImage) throws -> String? {
        guard let executable else { return nil }
        let file = FileManager.default.temporaryDirectory
            .appendingPathComponent("devicelogin-qr-\(UUID().uuidString).pgm")
        try image.pgm.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--raw", "-q", file.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        // zbarimg exits 4 when it finds no symbol.
        guard process.terminationStatus == 0 else { return nil }
        var text = String(decoding: data, as: UTF8.self)
        if text.hasSuffix("\n") { text.removeLast() }
        return text
    }
}
