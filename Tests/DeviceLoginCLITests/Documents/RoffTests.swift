import Testing

@testable import DeviceLoginCLI

@Suite("Roff escaping")
struct RoffTests {
    @Test(
        "what roff reads as a request or an escape is escaped",
        arguments: [
            ("--client-id", "\\-\\-client\\-id"),
            ("C:\\path", "C:\\epath"),
            (".hidden starts a request", "\\&.hidden starts a request"),
            ("'quoted' and `code`", "\\(aqquoted\\(aq and \\(gacode\\(ga"),
            ("say \"hi\"", "say \\(dqhi\\(dq"),
            ("~/.config ^x", "\\(ti/.config \\(hax"),
            ("a — b §5", "a \\[u2014] b \\[u00A7]5"),
            ("emoji 🙂", "emoji \\[u1F642]"),
            ("bell\u{07} tab\tend\u{9B}", "bell tab end"),
        ])
    func escape(input: String, expected: String) {
        #expect(Roff.escape(input) == expected)
    }

    @Test("a macro argument is quoted")
    func argument() {
        #expect(Roff.argument("device-login 1") == "\"device\\-login 1\"")
    }
}
