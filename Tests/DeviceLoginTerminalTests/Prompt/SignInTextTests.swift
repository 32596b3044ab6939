import DeviceLogin
import Testing

@testable import DeviceLoginTerminal

/// The words of a sign-in, made once for the prompt and the kiosk screen: which paragraphs there are in each case,
/// in which order, in which words and styles.
@Suite("SignInText")
struct SignInTextTests {
    private static func text(
        _ authorization: DeviceAuthorization = Fixtures.authorization(),
        capabilities: TerminalCapabilities = Fixtures.pipe, secondsLeft: Int = 900,
        countdown: SignInText.Countdown = .words, status: SignInText.Status? = nil,
        machineName: String? = Fixtures.machineName
    ) -> SignInText {
        let settings = SignInSettings(capabilities: capabilities, machineName: machineName)
        return SignInText(
            authorization, check: authorization.hostCheck, secondsLeft: secondsLeft, countdown: countdown,
            status: status, settings: settings)
    }

    /// The paragraphs' parts, in order.
    private static func parts(_ text: SignInText) -> [SignInText.Part] {
        text.paragraphs.map(\.part)
    }

    /// A sign-in page on a look-alike of the issuer's host, and a complete URI on a third host.
    private static let mismatched = Fixtures.authorization(
        verificationURI: "https://auth-example.com/device", completeURI: "https://evil.example/d?user_code=WDJB-MJHT"
    )

    @Test("A typical sign-in: where to go, the host, the line that asks to check, the code, the time; no warning")
    func typical() {
        let text = Self.text()
        #expect(Self.parts(text) == [.caption, .link, .host, .continueHere, .code, .countdown])
        #expect(
            text.paragraphs.map(\.text) == [
                "Open this page in a browser:", "https://auth.example.com/device",
                "You will be sent to auth.example.com.",
                "Only continue if you started this sign-in on build-box just now.", "Code: WDJB-MJHT",
                "The code expires in 15 min.",
            ])
        #expect(text.code == "WDJB-MJHT" && text.spacedCode == "W D J B - M J H T")
    }

    @Test("A sign-in page on another host than the issuer's: a warning naming both, before the link")
    func phishingHost() throws {
        let text = Self.text(Self.mismatched)
        #expect(Self.parts(text) == [.warning, .warning, .caption, .link, .host, .continueHere, .code, .countdown])
        let warnings = text.paragraphs(.warning).map(\.text)
        #expect(warnings[0].hasPrefix("Warning: The sign-in page is on auth-example.com, but this sign-in was started"))
        #expect(warnings[0].contains("auth.example.com"))
        #expect(warnings[1].hasPrefix("Warning: The server's two sign-in links lead to different hosts"))
        #expect(warnings[1].contains("evil.example"))
        #expect(text.paragraphs(.link).map(\.text) == ["https://auth-example.com/device"])
        #expect(text.paragraphs(.host).map(\.text) == ["You will be sent to auth-example.com."])
    }

    @Test(
        "verification_uri_complete is never in the words: the link shown is verification_uri, with or without it",
        arguments: [Fixtures.completeURI, nil, "https://evil.example/d?user_code=WDJB-MJHT"] as [String?])
    func completeURI(complete: String?) {
        let text = Self.text(Fixtures.authorization(completeURI: complete))
        #expect(text.paragraphs(.link).map(\.text) == [Fixtures.verificationURI])
        #expect(!text.paragraphs.contains { $0.text.contains("user_code") })
        // Only the complete link on another host is worth a warning.
        #expect(text.paragraphs(.warning).count == (complete?.contains("evil") == true ? 1 : 0))
    }

    @Test("A complete link downgraded to plain http: a warning, and the https link shown")
    func downgradedCompleteURI() {
        let text = Self.text(Fixtures.authorization(completeURI: "http://auth.example.com/device?user_code=WDJB-MJHT"))
        #expect(Self.parts(text).first == .warning)
        #expect(text.paragraphs(.warning).first?.text.contains("plain http") == true)
        #expect(text.paragraphs(.link).map(\.text) == [Fixtures.verificationURI])
    }

    @Test(
        "A link that is not plain http(s): one refusal in its place, no warning about a host not shown",
        arguments: ["javascript:alert(1)", "https://good.example@evil.example/", "ftp://evil.example/device"])
    func refusedLink(uri: String) {
        let authorization = Fixtures.authorization(verificationURI: uri, completeURI: nil)
        if uri.hasPrefix("ftp:") {
            // The check warns of the host; the words do not, since they show no link to it.
            #expect(authorization.hostCheck.warnings.map(\.kind) == [.outsideIssuerDomain])
        }
        let text = Self.text(authorization)
        #expect(Self.parts(text) == [.refusal, .continueHere, .code, .countdown])
        #expect(
            text.paragraphs(.refusal).map(\.text) == [
                "Refused to show the sign-in address: the server sent one that is not a plain http(s) link."
            ])
        #expect(!text.paragraphs.contains { $0.text.contains("evil") || $0.text.contains("javascript") })
    }

    @Test("A host the check refuses: the reason, sanitised, and nothing of the address")
    func refusedByCheck() throws {
        let host = String(repeating: "a", count: 64) + ".example"
        let authorization = Fixtures.authorization(verificationURI: "https://\(host)/device", completeURI: nil)
        let text = Self.text(authorization)
        #expect(Self.parts(text) == [.refusal, .continueHere, .code, .countdown])
        let refusal = try #require(text.paragraphs(.refusal).first?.text)
        #expect(refusal.hasPrefix("Refused to show the sign-in address: a label of the verification_uri's host"))
        #expect(!refusal.contains(host))
    }

    @Test(
        "The countdown in words for the prompt, as a clock for the kiosk, and once the code expired",
        arguments: [
            (SignInText.Countdown.words, 900, "The code expires in 15 min."),
            (.words, 45, "The code expires in 45 s."), (.words, 0, "The code has expired."),
            (.words, -3, "The code has expired."), (.clock, 840, "The code expires in 14:00."),
            (.clock, 0, "The code expires in 0:00."), (.clock, -3, "The code expires in 0:00."),
        ])
    func countdown(form: SignInText.Countdown, secondsLeft: Int, says: String) {
        let text = Self.text(secondsLeft: secondsLeft, countdown: form)
        #expect(text.paragraphs(.countdown).map(\.text) == [says])
    }

    @Test(
        "The status: none without one, waiting, retrying with the reason sanitised, an ASCII ellipsis",
        arguments: [
            (nil, true, nil), (SignInText.Status.waiting, true, "Waiting for approval…"),
            (.waiting, false, "Waiting for approval..."),
            (.retrying(reason: "connection refused\u{1B}[2J"), true, "Network problem, retrying… connection refused"),
            (.retrying(reason: ""), true, "Network problem, retrying…"),
            (.retrying(reason: "timed out"), false, "Network problem, retrying... timed out"),
        ] as [(SignInText.Status?, Bool, String?)])
    func status(status: SignInText.Status?, utf8: Bool, says: String?) {
        let capabilities = TerminalCapabilities(isTerminal: false, isUTF8: utf8)
        let text = Self.text(capabilities: capabilities, status: status)
        #expect(text.paragraphs(.status).map(\.text) == (says.map { [$0] } ?? []))
        if says != nil { #expect(Self.parts(text).last == .status) }
    }

    @Test("A long reason is cut")
    func longReason() throws {
        let text = Self.text(status: .retrying(reason: String(repeating: "x", count: 500)))
        let line = try #require(text.paragraphs(.status).first?.text)
        #expect(line.count <= "Network problem, retrying… ".count + SignInText.maximumReasonLength)
    }

    @Test("Styles: the warning's label red and bold with colours, bold with NO_COLOR, plain on a pipe")
    func colours() throws {
        let laptop = Self.text(Self.mismatched, capabilities: Fixtures.laptop)
        let noColor = Self.text(Self.mismatched, capabilities: Fixtures.laptopNoColor)
        let pipe = Self.text(Self.mismatched, capabilities: Fixtures.pipe)
        func first(_ text: SignInText, _ part: SignInText.Part, _ capabilities: TerminalCapabilities) throws -> String {
            try #require(text.paragraphs(part).first).line(capabilities: capabilities)
        }
        #expect(try first(laptop, .warning, Fixtures.laptop).hasPrefix("\u{1B}[1m\u{1B}[31mWarning:\u{1B}[0m The "))
        #expect(try first(noColor, .warning, Fixtures.laptopNoColor).hasPrefix("\u{1B}[1mWarning:\u{1B}[0m The "))
        #expect(try first(pipe, .warning, Fixtures.pipe).hasPrefix("Warning: The "))
        #expect(
            try first(noColor, .host, Fixtures.laptopNoColor)
                == "You will be sent to \u{1B}[1mauth-example.com\u{1B}[0m.")
        #expect(try first(laptop, .link, Fixtures.laptop) == "\u{1B}[1mhttps://auth-example.com/device\u{1B}[0m")
        // The code is never styled: `Code: (\S+)` finds it in any terminal.
        #expect(try first(laptop, .code, Fixtures.laptop) == "Code: WDJB-MJHT")
        for paragraph in pipe.paragraphs { #expect(!paragraph.line(capabilities: Fixtures.pipe).contains("\u{1B}")) }
    }

    @Test(
        "The machine name: bold, sanitised, and \"this computer\" without one",
        arguments: [
            ("build-box", "Only continue if you started this sign-in on \u{1B}[1mbuild-box\u{1B}[0m just now."),
            (nil, "Only continue if you started this sign-in on this computer just now."),
            ("", "Only continue if you started this sign-in on this computer just now."),
            ("\u{1B}]0;x\u{07}", "Only continue if you started this sign-in on this computer just now."),
        ] as [(String?, String)])
    func machineName(name: String?, line: String) {
        let text = Self.text(capabilities: Fixtures.laptop, machineName: name)
        #expect(text.paragraphs(.continueHere).map { $0.line(capabilities: Fixtures.laptop) } == [line])
    }

    @Test("A hostile user code is sanitised once, for the code line and the large letters alike")
    func hostileCode() {
        let authorization = Fixtures.authorization(userCode: "WDJB\u{1B}]52;c;cm0=\u{07}-MJHT\u{202E}")
        let text = Self.text(authorization)
        #expect(text.code == "WDJB-MJHT")
        #expect(text.paragraphs(.code).map(\.text) == ["Code: WDJB-MJHT"])
    }
}
