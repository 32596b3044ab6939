import Foundation
import Testing

/// A test target's folder of snapshot files: rendered text compared byte for byte with `<name>.txt`.
///
/// The files are read from the source tree, so they are the exact bytes written (escape sequences included:
/// `cat` one in a terminal to see the rendering). After a deliberate change, re-record them with
/// `RECORD_SNAPSHOTS=1 swift test --filter "Snapshot|HelpText"`: each compared text is written to its file and
/// the test **fails**, saying so, so that a recording run can never pass unnoticed. Review the diff, then run the
/// tests again without the variable.
///
/// ```swift
/// private let snapshots = SnapshotDirectory(beside: #filePath)
///
/// @Test func help() {
///     snapshots.expect(HelpText.tool(CLI.commands), matches: "help")   // Snapshots/help.txt
/// }
/// ```
public struct SnapshotDirectory: Sendable {
    /// The environment variable that switches comparing to recording when it is `1`.
    public static let recordVariable = "RECORD_SNAPSHOTS"

    /// The folder holding the `.txt` files.
    public let url: URL
    /// Whether this run records instead of comparing.
    public let isRecording: Bool

    /// The `Snapshots` folder beside a source file.
    /// - Parameters:
    ///   - filePath: The calling test file; pass `#filePath`.
    ///   - environment: Where to read ``recordVariable``; the process environment by default.
    public init(beside filePath: String, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.init(
            URL(fileURLWithPath: filePath).deletingLastPathComponent().appendingPathComponent("Snapshots"),
            isRecording: environment[Self.recordVariable] == "1"
        )
    }

    /// A folder of snapshots.
    /// - Parameters:
    ///   - url: The folder.
    ///   - isRecording: Whether to record instead of comparing.
    public init(_ url: URL, isRecording: Bool) {
        self.url = url
        self.isRecording = isRecording
    }

    /// The file of snapshot `name`: `<name>.txt` in the folder.
    /// - Parameter name: The snapshot's name, without `.txt`.
    /// - Returns: The file's URL.
    public func file(_ name: String) -> URL {
        url.appendingPathComponent(name + ".txt")
    }

    /// Expects `actual` to equal snapshot `name` byte for byte; when recording, writes it there and fails.
    /// - Parameters:
    ///   - actual: The rendered text.
    ///   - name: The snapshot's name, without `.txt`.
    ///   - sourceLocation: Where a failure is reported; the caller by default.
    public func expect(_ actual: String, matches name: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let file = file(name)
        if isRecording {
            do {
                try Data(actual.utf8).write(to: file, options: .atomic)
                Issue.record(
                    "Recorded snapshot \(name).txt; review the diff and run again without \(Self.recordVariable)",
                    sourceLocation: sourceLocation
                )
            } catch {
                Issue.record("Could not record snapshot \(name).txt: \(error)", sourceLocation: sourceLocation)
            }
            return
        }
        guard let data = try? Data(contentsOf: file) else {
            Issue.record(
                "No snapshot \(name).txt in \(url.path); record it with \(Self.recordVariable)=1",
                sourceLocation: sourceLocation
            )
            return
        }
        let expected = String(decoding: data, as: UTF8.self)
        #expect(
            actual == expected,
            """
            snapshot \(name).txt differs from line \(Self.firstDifferingLine(actual, expected)); \
            re-record with \(Self.recordVariable)=1 if the change is intended
            """,
            sourceLocation: sourceLocation
        )
    }

    /// The 1-based number of the first line where two texts differ (one past the shorter when one is a prefix).
    static func firstDifferingLine(_ actual: String, _ expected: String) -> Int {
        let actualLines = actual.split(separator: "\n", omittingEmptySubsequences: false)
        let expectedLines = expected.split(separator: "\n", omittingEmptySubsequences: false)
        return zip(actualLines, expectedLines).prefix { $0 == $1 }.count + 1
    }
}
