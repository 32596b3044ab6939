import DeviceLoginTestSupport
import Testing

@testable import DeviceLoginCLI

/// Help texts are compared with the files in `Snapshots/`. Re-record after a deliberate change with
/// `RECORD_SNAPSHOTS=1 swift test --filter HelpTextTests` (the recording run fails, to say so).
@Suite("Help text snapshots")
struct HelpTextTests {
    private let snapshots = SnapshotDirectory(beside: #filePath)

    @Test("device-login --help")
    func tool() {
        snapshots.expect(HelpText.tool(CLI.commands), matches: "help")
    }

    @Test("each command's --help", arguments: CLI.commands.map(\.name))
    func command(name: String) throws {
        let command = try #require(CLI.commands.first { $0.name == name })
        snapshots.expect(HelpText.command(command), matches: "help-\(name)")
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
