import DeviceLoginTestSupport
import Foundation
import Testing

@testable import DeviceLoginCLI

/// The man page: every section and every option of every table, rendered by `groff -ww` with no warning and by
/// `man -l` (both from Debian's groff-base and man-db, which `Scripts/install-deps.sh --test` installs).
@Suite("Man page")
struct ManPageTests {
    private let snapshots = SnapshotDirectory(beside: #filePath)
    private let page = ManPage.render(CLI.commands)

    /// Where a program is installed, or nil.
    private static func installed(_ name: String) -> String? {
        ["/usr/bin/\(name)", "/bin/\(name)"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs `program` with `arguments` on the page saved to a file (its path replaces `PAGE`).
    private func render(_ program: String, _ arguments: [String]) async throws -> ChildProcess.Result {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("device-login-\(UUID().uuidString).1")
        try Data(page.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        return try await ChildProcess.run(
            URL(fileURLWithPath: program), arguments.map { $0 == "PAGE" ? file.path : $0 },
            environment: ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "MANWIDTH": "80"])
    }

    @Test("the sections of a man page, in order")
    func sections() {
        let titles = page.split(separator: "\n").filter { $0.hasPrefix(".SH ") }.map { $0.dropFirst(4) }
        #expect(
            titles == [
                "\"NAME\"", "\"SYNOPSIS\"", "\"DESCRIPTION\"", "\"COMMANDS\"", "\"ENVIRONMENT\"", "\"FILES\"",
                "\"EXIT STATUS\"", "\"EXAMPLES\"", "\"SEE ALSO\"",
            ])
        #expect(page.hasPrefix(".TH \"DEVICE\\-LOGIN\" \"1\" "))
    }

    @Test("every command, every option and its variable, and every exit code are on the page")
    func everything() {
        for command in CLI.commands {
            #expect(page.contains(".SS \"device\\-login \(Roff.escape(command.name))"), "\(command.name)")
            for option in command.options {
                #expect(page.contains("\\fB\(Roff.escape("--" + option.name))\\fR"), "--\(option.name)")
                if option.name != "help", let variable = option.environmentVariable {
                    #expect(page.contains(".B \"\(Roff.escape(variable))\""))
                }
            }
        }
        for code in ExitCode.allCases {
            #expect(page.contains(".B \"\(code.rawValue)\"\n"), "exit code \(code.rawValue)")
        }
    }

    @Test("no line starts a request by accident, and nothing beyond ASCII is left unescaped")
    func escaped() {
        for line in page.split(separator: "\n") {
            #expect(line.allSatisfy { $0.isASCII && $0 != "\t" })
            if line.hasPrefix(".") {
                let request = line.prefix { $0 != " " }
                #expect(
                    [".TH", ".nh", ".ad", ".SH", ".SS", ".PP", ".TP", ".B", ".I", ".br", ".RS", ".RE", ".nf", ".fi"]
                        .contains(
                            String(request)), "\(line)")
            }
            #expect(!line.hasPrefix("'"))
        }
    }

    @Test("groff renders the page with no warning", .enabled(if: installed("groff") != nil))
    func groff() async throws {
        let result = try await render(try #require(Self.installed("groff")), ["-ww", "-z", "-man", "-Tutf8", "PAGE"])
        #expect(result.status == 0)
        #expect(String(decoding: result.stderr, as: UTF8.self) == "")
        let text = try await render(try #require(Self.installed("groff")), ["-ww", "-man", "-Tascii", "PAGE"])
        let output = String(decoding: text.stdout, as: UTF8.self)
        #expect(output.contains("--client-id"))
        #expect(output.contains("device-login completion bash"))
    }

    @Test("man -l shows the page", .enabled(if: installed("man") != nil))
    func man() async throws {
        let result = try await render(try #require(Self.installed("man")), ["-l", "-P", "col -b", "PAGE"])
        #expect(result.status == 0, "\(String(decoding: result.stderr, as: UTF8.self))")
        #expect(String(decoding: result.stderr, as: UTF8.self) == "")
        let text = String(decoding: result.stdout, as: UTF8.self)
        #expect(text.contains("DEVICE-LOGIN(1)"))
        #expect(text.contains("EXIT STATUS"))
    }

    @Test("the page matches its snapshot")
    func snapshot() {
        snapshots.expect(page, matches: "device-login.1")
    }
}
