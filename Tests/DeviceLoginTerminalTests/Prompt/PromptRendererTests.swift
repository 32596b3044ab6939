import DeviceLogin
import Foundation
import Testing

@testable import DeviceLoginTerminal

/// What `PromptRenderer` prints for `authorization` on `capabilities` with `secondsLeft` to go.
func render(
    _ capabilities: TerminalCapabilities,
    _ qrMode: QRMode = .auto,
    _ authorization: DeviceAuthorization = Fixtures.authorization(),
    secondsLeft: Int = 900
) -> String {
    PromptRenderer(capabilities: capabilities, qrMode: qrMode, machineName: Fixtures.machineName)
        .render(authorization, secondsLeft: secondsLeft)
}

@Suite("PromptRenderer")
struct PromptRendererTests {
    // MARK: - Rules that hold in every mode

    static let everyTerminal: [TerminalCapabilities] = [
        Fixtures.laptop, Fixtures.laptopNoColor, Fixtures.serialConsole, Fixtures.pipe,
        TerminalCapabilities(isTerminal: false, isUTF8: false, term: nil),
        TerminalCapabilities(isTerminal: true, columns: 20, rows: 5, isUTF8: true),
        TerminalCapabilities(isTerminal: true, isUTF8: true),
        TerminalCapabilities(isTerminal: true, columns: 200, rows: 100, isUTF8: true, term: "dumb"),
    ]

    @Test("`Code: <code>` stands on a line of its own, free of escapes, in every mode", arguments: everyTerminal)
    func codeLineEverywhere(capabilities: TerminalCapabilities) throws {
        for mode in QRMode.allCases {
            let lines = render(capabilities, mode).split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.filter { $0 == "Code: WDJB-MJHT" }.count == 1, "\(capabilities) \(mode)")
            let regex = try Regex(#"Code: (\S+)"#)
            let match = try #require(render(capabilities, mode).firstMatch(of: regex))
            #expect(match.output[1].substring == "WDJB-MJHT")
        }
    }

    @Test("--qr never shows no QR and says nothing about it")
    func never() {
        let text = render(Fixtures.laptop, .never)
        #expect(!text.contains(ANSI.blackOnWhite))
        #expect(!text.contains("QR") && !text.contains("Scan"))
    }

    @Test("Unknown terminal size: the QR is hidden in auto mode, with the reason")
    func unknownSize() {
        let capabilities = TerminalCapabilities(isTerminal: true, isUTF8: true)
        #expect(
            render(capabilities).hasSuffix(
                "The code expires in 15 min.\nQR code hidden: terminal size unknown; use --qr always to force\n"))
    }

    @Test("A terminal exactly as large as the prompt shows the QR; one row less hides it")
    func exactFit() {
        // At 41 columns: 21 QR lines, the caption, the address and the "Only continue" line wrap to 2 rows each,
        // 7 more text rows, 1 status.
        let tall = TerminalCapabilities(isTerminal: true, columns: 41, rows: 35, isUTF8: true)
        #expect(render(tall).contains("Scan to open auth.example.com with the code below filled in.\n"))
        var short = tall
        short.rows = 34
        #expect(render(short).contains("QR code hidden: terminal is 41x34, needs 41x35; use --qr always to force\n"))
        var thin = tall
        thin.columns = 40
        #expect(render(thin).contains("QR code hidden: terminal is 40x35, needs 41x"))
    }

    @Test(
        "An unsafe verification_uri is neither printed nor encoded",
        arguments: [
            "javascript:alert(1)", "file:///etc/passwd", "data:text/html,<h1>hi</h1>", "https://evil.example/a b",
            "https://good.example@evil.example/", "https://auth.example.com/\u{1B}]8;;https://evil/\u{07}",
        ])
    func unsafeVerificationURI(uri: String) {
        let authorization = Fixtures.authorization(verificationURI: uri, completeURI: nil)
        let text = render(Fixtures.laptop, .always, authorization)
        #expect(
            text.hasPrefix(
                "Refused to show the sign-in address: the server sent one that is not a plain http(s) link.\n"))
        #expect(text.hasSuffix("QR code not shown: the server's link is not a plain http(s) address.\n"))
        #expect(!text.contains("evil") && !text.contains("javascript") && !text.contains("file:"))
        #expect(!text.contains(ANSI.blackOnWhite))
    }

    @Test("An unsafe verification_uri_complete keeps the QR out but the safe address in")
    func unsafeCompleteURI() {
        let authorization = Fixtures.authorization(completeURI: "javascript:alert(document.cookie)")
        let text = render(Fixtures.laptop, .always, authorization)
        #expect(text.hasPrefix("Open this page in a browser: \u{1B}[1mhttps://auth.example.com/device\u{1B}[0m\n"))
        #expect(text.hasSuffix("QR code not shown: the server's link is not a plain http(s) address.\n"))
        #expect(!text.contains("javascript"))
    }

    @Test("A refused verification_uri keeps the QR out even when verification_uri_complete is safe")
    func refusedURIRefusesTheQR() {
        let authorization = Fixtures.authorization(
            verificationURI: "javascript:alert(1)", completeURI: "https://auth.example.com/device?code=WDJB-MJHT"
        )
        let text = render(Fixtures.laptop, .always, authorization)
        #expect(text.hasSuffix("QR code not shown: the server's link is not a plain http(s) address.\n"))
        #expect(!text.contains(ANSI.blackOnWhite) && !text.contains("Scan to open"))
    }

    @Test("COLUMNS near Int.max with a 0x0 terminal renders instead of overflowing")
    func hugeColumnsDoNotOverflow() {
        let environment = ["COLUMNS": String(Int.max), "LINES": String(Int.max), "LANG": "C.UTF-8", "TERM": "xterm"]
        let terminal = TerminalCapabilities.from(environment: environment, isTerminal: true, windowSize: (0, 0))
        let text = render(terminal, .auto)
        #expect(text.contains("Code: WDJB-MJHT\n"))
        #expect(text.contains("QR code hidden: terminal size unknown"))
        // A caller may still hand in the largest size accepted.
        let largest = TerminalCapabilities(isTerminal: true, columns: 10_000, rows: 10_000, isUTF8: true)
        #expect(render(largest, .auto).contains(ANSI.blackOnWhite))
    }

    @Test("A complete URI on another host: a warning naming both hosts, and no QR code even with --qr always")
    func completeURIOnAnotherHost() {
        let authorization = Fixtures.authorization(completeURI: "https://other.example:8443/d?c=WDJB-MJHT")
        for capabilities in Self.everyTerminal {
            let text = render(capabilities, .always, authorization)
            #expect(
                text.contains(
                    "The server's two sign-in links lead to different hosts, auth.example.com and other.example: "
                        + "only the link to auth.example.com is shown, and no QR code.\n"), "\(capabilities)")
            // Exactly the prompt without a QR code, and the line that says why.
            let withoutQR = render(capabilities, .never, authorization)
            #expect(text == withoutQR + "QR code not shown: the server's two links lead to different hosts.\n")
            #expect(!text.contains("other.example:8443") && !text.contains("Scan"))
        }
    }

    @Test("A complete URI on the same host with another port keeps the QR code")
    func completeURIOnAnotherPort() {
        let authorization = Fixtures.authorization(completeURI: "https://auth.example.com:8443/d?c=WDJB-MJHT")
        let text = render(Fixtures.laptop, .always, authorization)
        #expect(text.contains("Scan to open auth.example.com:8443 with the code below filled in.\n"))
        #expect(!text.contains("Warning"))
    }

    @Test(
        "The Warning label: bold red with colours, bold without, plain on a pipe or a dumb terminal",
        arguments: [
            (Fixtures.laptop, "\u{1B}[1m\u{1B}[31mWarning:\u{1B}[0m The sign-in page is on evil.example, but "),
            (Fixtures.laptopNoColor, "\u{1B}[1mWarning:\u{1B}[0m The sign-in page is on evil.example, but "),
            (Fixtures.pipe, "Warning: The sign-in page is on evil.example, but "),
            (
                TerminalCapabilities(isTerminal: true, columns: 100, rows: 50, isUTF8: true, term: "dumb"),
                "Warning: The sign-in page is on evil.example, but "
            ),
        ])
    func warningStyle(capabilities: TerminalCapabilities, start: String) {
        let authorization = Fixtures.authorization(verificationURI: "https://evil.example/device", completeURI: nil)
        let text = render(capabilities, .never, authorization)
        #expect(text.hasPrefix(start))
        #expect(text.contains("this sign-in was started with auth.example.com."))
    }

    @Test("A hostile host in a warning reaches the terminal without its escapes")
    func hostileHostInWarning() {
        let authorization = Fixtures.authorization(
            verificationURI: "https://auth.example.com/device", completeURI: "https://ev\u{1B}[2Jil.example/?c=1"
        )
        let text = render(Fixtures.laptop, .always, authorization)
        #expect(text.contains("different hosts, auth.example.com and evil.example: only"))
        #expect(!text.contains("\u{1B}[2J"))
    }

    @Test("An internationalised host: shown in Punycode, with a warning; the QR holds the Punycode form")
    func internationalizedHost() throws {
        let authorization = Fixtures.authorization(
            verificationURI: "https://\u{0430}uth.example.com/device",
            completeURI: "https://\u{0430}uth.example.com/device?user_code=WDJB-MJHT"
        )
        let text = render(Fixtures.pipe, .always, authorization)
        #expect(
            text.contains(
                """
                Warning: The name xn--uth-5cd.example.com contains non-ASCII characters, shown in punycode: letters \
                of another alphabet can imitate a familiar name.
                Open this page in a browser: https://xn--uth-5cd.example.com/device
                You will be sent to xn--uth-5cd.example.com.

                """))
        #expect(text.contains("Scan to open xn--uth-5cd.example.com with the code below filled in.\n"))
        #expect(!text.contains("\u{0430}"))
    }

    @Test("A host longer than DNS allows: the address is refused with the reason, and no QR code")
    func tooLongHost() {
        let host = String(repeating: "a", count: 64) + ".example.com"
        let authorization = Fixtures.authorization(verificationURI: "https://\(host)/device", completeURI: nil)
        let text = render(Fixtures.laptop, .always, authorization)
        #expect(
            text.hasPrefix(
                "Refused to show the sign-in address: a label of the verification_uri's host has 64 characters, more "
                    + "than the 63 a DNS label can have.\n"))
        #expect(!text.contains(host) && !text.contains(ANSI.blackOnWhite))
    }

    @Test(
        "Only continue if you started this sign-in on NAME just now: the name sanitised, a fallback without one",
        arguments: [
            ("build-box", "Only continue if you started this sign-in on build-box just now."),
            (nil, "Only continue if you started this sign-in on this computer just now."),
            ("", "Only continue if you started this sign-in on this computer just now."),
            ("\u{1B}]0;x\u{07}\u{202E}", "Only continue if you started this sign-in on this computer just now."),
            ("evil\u{1B}[2Jbox\n", "Only continue if you started this sign-in on evilbox just now."),
            (
                String(repeating: "n", count: 100),
                "Only continue if you started this sign-in on " + String(repeating: "n", count: 63) + "… just now."
            ),
        ] as [(String?, String)])
    func continueLine(name: String?, line: String) {
        let renderer = PromptRenderer(capabilities: Fixtures.pipe, qrMode: .never, machineName: name)
        #expect(renderer.render(Fixtures.authorization(), secondsLeft: 900).contains("\n" + line + "\n"))
    }

    @Test("The machine name is bold on a terminal that takes escapes")
    func continueLineBold() {
        #expect(
            render(Fixtures.laptop, .never).contains(
                "Only continue if you started this sign-in on \u{1B}[1mbuild-box\u{1B}[0m just now.\n"))
    }

    @Test("A hostile user code reaches the terminal without its escapes")
    func hostileUserCode() {
        let authorization = Fixtures.authorization(userCode: "WDJB\u{1B}]52;c;cm0gLXJmIH4=\u{07}-MJHT\u{202E}")
        let text = render(Fixtures.pipe, .auto, authorization)
        #expect(text.contains("\nCode: WDJB-MJHT\n"))
        #expect(!text.contains("\u{1B}") && !text.contains("\u{202E}"))
    }

    @Test("A code the font cannot draw is letter-spaced instead")
    func lowercaseCode() {
        let authorization = Fixtures.authorization(userCode: "wdjb-mjht")
        let text = render(Fixtures.laptop, .never, authorization)
        #expect(text.contains("\n  \u{1B}[1mw d j b - m j h t\u{1B}[0m\n"))
    }

    @Test(
        "The expiry line",
        arguments: [
            (900, "The code expires in 15 min."), (899, "The code expires in 14 min 59 s."),
            (45, "The code expires in 45 s."), (5400, "The code expires in 1 h 30 min."), (0, "The code has expired."),
            (-3, "The code has expired."),
        ])
    func expiry(seconds: Int, line: String) {
        #expect(render(Fixtures.pipe, secondsLeft: seconds).hasSuffix("\n" + line + "\n"))
    }

    // MARK: - A sign-in link with no code (the code grant's paste mode)

    static let pasteLink =
        "https://auth.example.com/authorize?response_type=code&client_id=app&state=s1&code_challenge=c1"

    static let lead = "Open this link in a browser on any device and sign in:"

    /// The paste prompt's lines for `link` started with `issuer`.
    private func pastePrompt(
        _ mode: QRMode, link: String = pasteLink, issuer: String? = "https://auth.example.com",
        machineName: String? = "build-7"
    ) -> [String] {
        PromptRenderer(capabilities: Fixtures.pipe, qrMode: mode, machineName: machineName)
            .lines(lead: Self.lead, signInLink: link, issuer: issuer)
    }

    @Test("A pasted sign-in's link: the lead, the link, the host it leads to, and only continue if started on NAME")
    func linkWords() {
        #expect(
            pastePrompt(.never) == [
                Self.lead, "  " + Self.pasteLink, "You will be sent to auth.example.com.",
                "Only continue if you started this sign-in on build-7 just now.",
            ])
        #expect(
            pastePrompt(.never, machineName: nil).last
                == "Only continue if you started this sign-in on this computer just now.")
    }

    @Test("A pasted sign-in's link on a host outside the issuer's domain: the phishing warning comes first")
    func linkWarning() {
        let lines = pastePrompt(.never, link: "https://login.evil.example/authorize?state=s1")
        #expect(lines.first?.hasPrefix("Warning: ") == true, "\(lines)")
        #expect(lines.first?.contains("login.evil.example") == true)
        #expect(lines.first?.contains("auth.example.com") == true)
        #expect(lines.dropFirst().first == Self.lead)
        #expect(pastePrompt(.never).allSatisfy { !$0.hasPrefix("Warning:") })
    }

    @Test("A pasted sign-in's link: the QR code of the link above the text with --qr always, none with never")
    func linkQRCode() throws {
        let text = pastePrompt(.never)
        func lines(_ mode: QRMode, _ link: String = Self.pasteLink) -> [String] {
            PromptRenderer(capabilities: Fixtures.laptop, qrMode: mode, machineName: "build-7")
                .lines(lead: Self.lead, signInLink: link, issuer: "https://auth.example.com")
        }
        let always = lines(.always)
        #expect(always.count > text.count + 20)
        let laptopText = lines(.never)
        #expect(
            Array(always.suffix(laptopText.count + 2)) == ["Scan to open auth.example.com and sign in there.", ""]
                + laptopText)
        #expect(
            lines(.always, "javascript:alert(1)").last
                == "QR code not shown: the server's link is not a plain http(s) address.")
        guard ZBar.isAvailable() else { return }
        let qr = Array(always.dropLast(laptopText.count + 2))
        for theme in [TerminalScreen.Theme.dark, .light] {
            let picture = try TerminalScreen(lines: qr, theme: theme).picture(cellWidth: 4, halfHeight: 4)
            #expect(try ZBar.decode(picture) == Self.pasteLink)
        }
    }
}
