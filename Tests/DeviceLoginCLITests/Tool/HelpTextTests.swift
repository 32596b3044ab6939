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

    @Test("help fits the width it is wrapped to, but for examples kept as they are", arguments: [40, 60, 80, 100])
    func width(columns: Int) {
        let texts =
            [HelpText.tool(CLI.commands, lineWidth: columns)]
            + CLI.commands.map { HelpText.command($0, lineWidth: columns) }
        let examples = Set(
            CLI.commands.flatMap { command in
                TextBlock.blocks(command.discussion).flatMap { block -> [String] in
                    guard case .verbatim(let lines) = block else { return [] }
                    return lines.map { "  " + $0 }
                }
            })
        var checked = 0
        for text in texts {
            for line in text.split(separator: "\n") where !examples.contains(String(line)) {
                // A single word longer than the line (a long option's synopsis) cannot be broken.
                let breakable = line.split(separator: " ").count > 1
                if breakable { #expect(line.count <= columns, "too wide for \(columns): \(line)") }
                checked += 1
            }
        }
        #expect(checked > 300)
    }

    @Test("the width: the terminal's within 40...100, 80 without a terminal")
    func lineWidth() {
        #expect(HelpText.lineWidth(columns: nil) == 80)
        #expect(HelpText.lineWidth(columns: 72) == 72)
        #expect(HelpText.lineWidth(columns: 20) == 40)
        #expect(HelpText.lineWidth(columns: 300) == 100)
    }

    @Test("the tool's help lists every exit code")
    func exitCodes() {
        let text = HelpText.tool(CLI.commands)
        for code in ExitCode.allCases {
            #expect(text.contains("\n  \(code.rawValue) "), "exit code \(code.rawValue) missing")
        }
    }

    @Test("a command's help lists its own exit codes and no other", arguments: CLI.commands.map(\.name))
    func commandExitCodes(name: String) throws {
        let command = try #require(CLI.commands.first { $0.name == name })
        let text = HelpText.command(command)
        let section = try #require(text.split(separator: "EXIT CODES:\n").last)
        let listed = section.split(separator: "\n").compactMap { line -> Int32? in
            guard line.hasPrefix("  "), !line.hasPrefix("   ") else { return nil }
            return Int32(line.dropFirst(2).prefix { $0 != " " })
        }
        #expect(listed == command.exitCodes.map(\.rawValue))
        #expect(listed.contains(0) && listed.contains(64))
    }

    @Test("commands list only the codes they can return")
    func exitCodeChoices() throws {
        func codes(_ name: String) throws -> [Int32] {
            try #require(CLI.commands.first { $0.name == name }).exitCodes.map(\.rawValue)
        }
        #expect(try codes("completion") == [0, 64, 74])
        #expect(try !codes("token").contains(65))
        #expect(try codes("login").contains(65) && codes("login").contains(66))
        // login --resume: another process polls the pending sign-in (75), or none is pending (77).
        #expect(try codes("login").contains(75) && codes("login").contains(77))
        #expect(try !codes("status").contains(75) && !codes("demo").contains(75))
        #expect(try codes("exec").contains(127))
        #expect(try codes("logout").contains(77))
    }
}
