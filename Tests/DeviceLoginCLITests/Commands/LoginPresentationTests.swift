import Testing

@testable import DeviceLoginCLI

@Suite("LoginPresentation: --events, --quiet, --notify-command")
struct LoginPresentationTests {
    private func parse(_ words: [String]) throws -> LoginPresentation {
        let options = try ArgumentParser.parse(
            words, options: LoginSettings.options, command: "login", environment: [:], maximumPositionals: 0)
        return try LoginPresentation(options, command: "login")
    }

    @Test("The default: the prompt, the result, no hook")
    func defaults() throws {
        #expect(try parse([]) == LoginPresentation())
    }

    @Test("Each option read")
    func read() throws {
        let presentation = try parse(["--events", "--quiet", "--notify-command", "notify-send code"])
        #expect(presentation.events && presentation.quiet)
        #expect(presentation.notifyCommand == "notify-send code")
    }

    @Test("--events with --json, and an empty --notify-command, are usage errors")
    func refused() {
        #expect(throws: UsageError.self) { try parse(["--events", "--json"]) }
        #expect(throws: UsageError.self) { try parse(["--notify-command", "  "]) }
    }
}
