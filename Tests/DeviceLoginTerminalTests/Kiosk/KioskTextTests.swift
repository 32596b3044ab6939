import Testing

@testable import DeviceLoginTerminal

@Suite("KioskText")
struct KioskTextTests {
    private let plain = TerminalCapabilities(isTerminal: false, isUTF8: true)

    @Test("Greedy wrapping at spaces; a word longer than the line is cut")
    func wrapping() {
        let text = KioskText("You will be sent to") + KioskText("auth.example.com.", style: .bold)
        #expect(text.lines(width: 19, capabilities: plain) == ["You will be sent to", "auth.example.com."])
        #expect(text.lines(width: 40, capabilities: plain) == ["You will be sent to auth.example.com."])
        #expect(KioskText("abcdefghij").lines(width: 4, capabilities: plain) == ["abcd", "efgh", "ij"])
        #expect(KioskText("").lines(width: 4, capabilities: plain) == [""])
        #expect(KioskText("a b").lines(width: 0, capabilities: plain) == ["a", "b"])
    }

    @Test("Each styled word opens and closes its own style, so none crosses a line end")
    func styles() {
        let text = KioskText("Warning:", style: .alert) + KioskText("two words", style: .bold)
        #expect(
            text.lines(width: 14, capabilities: Fixtures.laptop) == [
                "\u{1B}[1m\u{1B}[31mWarning:\u{1B}[0m \u{1B}[1mtwo\u{1B}[0m", "\u{1B}[1mwords\u{1B}[0m",
            ])
        #expect(
            text.lines(width: 40, capabilities: Fixtures.laptopNoColor).first?.hasPrefix("\u{1B}[1mWarning:") == true)
        #expect(text.lines(width: 40, capabilities: plain) == ["Warning: two words"])
    }

    @Test("A sign-in paragraph: split at spaces; a span that starts inside a word goes on in that word's style")
    func paragraph() {
        let host = SignInText.Paragraph(
            part: .host, spans: [.init("You will be sent to "), .init("auth.example.com", .bold), .init(".")])
        #expect(
            KioskText(host) == KioskText("You will be sent to") + KioskText("auth.example.com.", style: .bold))
        let name = SignInText.Paragraph(
            part: .continueHere, spans: [.init("on "), .init("two words", .bold), .init(" just now.")])
        #expect(KioskText(name) == KioskText("on") + KioskText("two words", style: .bold) + KioskText("just now."))
        let warning = SignInText.Paragraph(part: .warning, spans: [.init("Warning:", .alert), .init(" a  b ")])
        #expect(KioskText(warning) == KioskText("Warning:", style: .alert) + KioskText("a b"))
        #expect(KioskText(SignInText.Paragraph(part: .code, spans: [])).lines(width: 4, capabilities: plain) == [""])
    }
}
