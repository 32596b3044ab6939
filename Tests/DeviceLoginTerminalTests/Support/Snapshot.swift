import Foundation
import Testing

/// Compares rendered output with a file in `Snapshots/`, byte for byte.
///
/// The files are the exact bytes written, escape sequences included: `cat` one in a terminal to see the rendering.
/// To re-record after an intended change, run `RECORD_SNAPSHOTS=1 swift test --filter DeviceLoginTerminalTests`:
/// each snapshot is written into `Tests/DeviceLoginTerminalTests/Snapshots/` and the test fails once to say so;
/// review the diff, then run the tests again without the variable.
enum Snapshot {
    static func expect(
        _ actual: String,
        matches name: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        if ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] == "1" {
            let directory = URL(fileURLWithPath: #filePath)
                .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Snapshots")
            do {
                try Data(actual.utf8).write(to: directory.appendingPathComponent("\(name).txt"))
                Issue.record(
                    "Recorded snapshot \(name); run again without RECORD_SNAPSHOTS", sourceLocation: sourceLocation
                )
            } catch {
                Issue.record("Could not record snapshot \(name): \(error)", sourceLocation: sourceLocation)
            }
            return
        }
        guard let url = Bundle.module.url(forResource: name, withExtension: "txt", subdirectory: "Snapshots"),
            let data = try? Data(contentsOf: url)
        else {
            Issue.record("No snapshot \(name).txt; record it with RECORD_SNAPSHOTS=1", sourceLocation: sourceLocation)
            return
        }
        let expected = String(decoding: data, as: UTF8.self)
        #expect(actual == expected, "snapshot \(name) differs", sourceLocation: sourceLocation)
    }
}
