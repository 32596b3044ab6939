import DeviceLoginTestSupport
import Foundation
import Testing

/// The shared snapshot helper: it compares byte for byte, and a recording run always fails.
@Suite("SnapshotDirectory")
struct SnapshotDirectoryTests {
    /// Runs `body` with a fresh, empty folder that is removed afterwards.
    private func withFolder(_ body: (URL) throws -> Void) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("snapshots-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try body(folder)
    }

    private func comments(of issue: Issue) -> String {
        issue.comments.map(\.rawValue).joined(separator: "\n")
    }

    @Test("a recording run writes the file byte for byte and fails, so it can never pass unnoticed")
    func recordingWritesAndFails() throws {
        try withFolder { folder in
            let text = "\u{1B}[1mcode\u{1B}[0m\nline two\n"
            withKnownIssue {
                SnapshotDirectory(folder, isRecording: true).expect(text, matches: "probe")
            } matching: { issue in
                comments(of: issue).contains("Recorded snapshot probe.txt")
            }
            let written = try Data(contentsOf: folder.appendingPathComponent("probe.txt"))
            #expect(written == Data(text.utf8))
            SnapshotDirectory(folder, isRecording: false).expect(text, matches: "probe")
        }
    }

    @Test("a difference fails and names the first line that differs")
    func differenceFails() throws {
        try withFolder { folder in
            try Data("one\ntwo\nthree\n".utf8).write(to: folder.appendingPathComponent("probe.txt"))
            withKnownIssue {
                SnapshotDirectory(folder, isRecording: false).expect("one\n2\nthree\n", matches: "probe")
            } matching: { issue in
                comments(of: issue).contains("snapshot probe.txt differs from line 2")
            }
            withKnownIssue {
                SnapshotDirectory(folder, isRecording: false).expect("one\ntwo\n", matches: "probe")
            } matching: { issue in
                comments(of: issue).contains("snapshot probe.txt differs from line 3")
            }
        }
    }

    @Test("a missing snapshot fails and says how to record it")
    func missingFails() throws {
        try withFolder { folder in
            withKnownIssue {
                SnapshotDirectory(folder, isRecording: false).expect("text", matches: "absent")
            } matching: { issue in
                let text = comments(of: issue)
                return text.contains("No snapshot absent.txt") && text.contains("record it with RECORD_SNAPSHOTS=1")
            }
        }
    }

    @Test("the folder is Snapshots beside the test file; RECORD_SNAPSHOTS=1 and nothing else records")
    func folderAndSwitch() {
        let file = "/src/Tests/SomeTests/HelpTextTests.swift"
        #expect(SnapshotDirectory(beside: file, environment: [:]).url.path == "/src/Tests/SomeTests/Snapshots")
        #expect(SnapshotDirectory(beside: file, environment: ["RECORD_SNAPSHOTS": "1"]).isRecording)
        #expect(!SnapshotDirectory(beside: file, environment: ["RECORD_SNAPSHOTS": "0"]).isRecording)
        #expect(!SnapshotDirectory(beside: file, environment: [:]).isRecording)
    }
}
