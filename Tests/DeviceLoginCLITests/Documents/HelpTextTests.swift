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

    @Test("help fits the width it is wrapped to, but for a part no line can break", arguments: [40, 60, 80, 100])
    func width(columns: Int) {
        let texts =
            [HelpText.tool(CLI.commands, lineWidth: columns)]
            + CLI.commands.map { HelpText.command($0, lineWidth: columns) }
        var checked = 0
        for text in texts {
            for line in text.split(separator: "\n") {
                // A single word longer than the line (a long option's synopsis, a URL, a quoted or commented part
                // of an example) cannot be broken.
                var content = line.drop { $0 == " " }
                if content.hasSuffix(" \\") { content = content.dropLast(2) }
                let breakable = HelpText.exampleWords(String(content)).count > 1
                if breakable { #expect(line.count <= columns, "too wide for \(columns): \(line)") }
                checked += 1
            }
        }
        #expect(checked > 300)
    }

    @Test("wrapping counts a word by its characters, not its bytes, and lets a longer word stand alone")
    func wrapCountsCharacters() {
        // "café" is 5 bytes and 4 characters, "—" 3 bytes and 1: by characters, "a café —" is 8 wide and fits.
        #expect(HelpText.wrap("a café — b", width: 8) == ["a café —", "b"])
        #expect(HelpText.wrap("one  two", width: 7) == ["one two"])
        #expect(HelpText.wrap("a verylongword b", width: 4) == ["a", "verylongword", "b"])
        #expect(HelpText.wrap("e\u{301}e\u{301} x", width: 4) == ["e\u{301}e\u{301} x"])
        #expect(HelpText.wrap("", width: 10).isEmpty)
    }

    @Test("--help's last words name a first command that works after install.sh, and where the demo comes from")
    func startHere() {
        let help = HelpText.tool(CLI.commands)
        #expect(!help.hasSuffix("Start here: device-login demo\n"))
        let words = help.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(words.hasSuffix(HelpText.startHere))
        #expect(HelpText.startHere.hasPrefix("Start here: device-login login --issuer URL --client-id ID."))
        #expect(HelpText.startHere.contains("device-login demo (it comes with a source build"))
    }

    @Test("every help fits 80 columns, the width without a terminal: examples included, every line")
    func fitsEighty() {
        let texts = [HelpText.tool(CLI.commands)] + CLI.commands.map { HelpText.command($0) }
        for text in texts {
            for line in text.split(separator: "\n") {
                #expect(line.count <= 80, "\(line.count) columns: \(line)")
            }
        }
        #expect(texts.count == CLI.commands.count + 1)
    }

    @Test(
        "an example too wide is broken as a shell reads it back, never in quotes, placeholders or comments",
        arguments: [
            ("a b c", 20, ["  a b c"]),
            ("one two three four", 14, ["  one two \\", "      three \\", "      four"]),
            (
                "git config x.helper '!dl git-credential'", 30,
                ["  git config x.helper \\", "      '!dl git-credential'"]
            ),
            ("cmd <printed issuer>/r | tool", 20, ["  cmd \\", "      <printed issuer>/r \\", "      | tool"]),
            ("cmd arg   # a comment here", 16, ["  cmd arg \\", "      # a comment here"]),
            ("x > y", 4, ["  x \\", "      > \\", "      y"]),
        ] as [(String, Int, [String])])
    func example(line: String, width: Int, expected: [String]) {
        #expect(HelpText.example(line, width: width) == expected)
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
