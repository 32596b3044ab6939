import Foundation
import Testing
@testable import DeviceLoginCLI

/// Help texts are compared with the files in `Snapshots/`. Re-record after a deliberate change with
/// `RECORD_SNAPSHOTS=1 swift test --filter HelpTextTests`.
@Suite("Help text snapshots")
struct HelpTextTests {
    private static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Snapshots")

    private func check(_ text: String, against name: String) throws {
        let file = Self.directory.appendingPathComponent(name)
        if ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] == "1" {
            try text.write(to: file, atomically: true, encoding: .utf8)
        }
        let expected = try String(contentsOf: file, encoding: .utf8)
        #expect(text == expected, "help differs from \(name); re-record with RECORD_SNAPSHOTS=1 if intended")
    }

    @Test("device-login --help")
    func tool() throws {
        try check(HelpText.tool(CLI.commands), against: "help.txt")
    }

    @Test("each command's --help", arguments: CLI.commands.map(\.name))
    func command(name: String) throws {
        let command = try #require(CLI.commands.first { $0.name == name })
        try check(HelpText.command(command), against: "help-\(name).txt")
    }

    @Test("help lines fit in 100 columns")
    func width() {
        for text in [HelpText.tool(CLI.commands)] + CLI.commands.map(HelpText.command) {
            for line in text.split(separator: "\n") {
                #expect(line.count <= 100, "too wide: \(line)")
            }
        }
    }

    @Test("every exit code is listed in the help")
    func exitCodes() {
        let text = HelpText.tool(CLI.commands)
        for code in ExitCode.allCases {
            #expect(text.contains("  \(code.rawValue)"), "exit code \(code.rawValue) missing")
        }
    }
}
