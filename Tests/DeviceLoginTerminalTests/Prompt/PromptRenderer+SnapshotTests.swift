import DeviceLogin
import DeviceLoginTestSupport
import Testing

@testable import DeviceLoginTerminal

/// The prompt in each kind of terminal, byte for byte against `Snapshots/prompt-*.txt`.
@Suite("PromptRenderer snapshots")
struct PromptRendererSnapshotTests {
    private let snapshots = SnapshotDirectory(beside: #filePath)

    @Test("UTF-8 terminal with colour: QR in black on white, block-letter code")
    func utf8Color() {
        snapshots.expect(render(Fixtures.laptop), matches: "prompt-utf8-color")
    }

    @Test("UTF-8 terminal with NO_COLOR: QR in inverse video, bold without colour")
    func utf8NoColor() {
        snapshots.expect(render(Fixtures.laptopNoColor), matches: "prompt-utf8-no-color")
    }

    @Test("ASCII locale on a large colour terminal: QR as coloured cell pairs, letter-spaced code")
    func asciiLocale() {
        let capabilities = TerminalCapabilities(isTerminal: true, columns: 120, rows: 70, isUTF8: false)
        snapshots.expect(render(capabilities), matches: "prompt-ascii")
    }

    @Test("Serial console: ASCII, 80x24, the QR left out with the reason")
    func serialConsole() {
        snapshots.expect(render(Fixtures.serialConsole), matches: "prompt-serial-console")
    }

    @Test("Narrow terminal: the QR left out with the sizes it needs")
    func narrow() {
        let capabilities = TerminalCapabilities(isTerminal: true, columns: 60, rows: 20, isUTF8: true)
        let text = render(capabilities)
        snapshots.expect(text, matches: "prompt-narrow")
        #expect(text.contains("QR code hidden: terminal is 60x20, needs 41x36; use --qr always to force\n"))
    }

    @Test("No verification_uri_complete: the QR holds verification_uri and the caption says to enter the code")
    func noCompleteURI() {
        let authorization = Fixtures.authorization(completeURI: nil)
        snapshots.expect(render(Fixtures.laptop, .auto, authorization), matches: "prompt-no-complete-uri")
    }

    @Test("TERM=dumb terminal: no escapes, light modules drawn as blocks")
    func dumbTerminal() {
        let capabilities = TerminalCapabilities(isTerminal: true, columns: 100, rows: 50, isUTF8: true, term: "dumb")
        let text = render(capabilities)
        snapshots.expect(text, matches: "prompt-dumb-terminal")
        #expect(!text.contains("\u{1B}"))
    }

    @Test("Pipe: plain lines, no escapes, no big letters, no QR")
    func pipe() {
        let text = render(Fixtures.pipe)
        snapshots.expect(text, matches: "prompt-pipe")
        #expect(
            text == """
                Open this page in a browser: https://auth.example.com/device
                You will be sent to auth.example.com.
                Only continue if you started this sign-in on build-box just now.
                Code: WDJB-MJHT
                The code expires in 15 min.

                """)
    }

    /// A sign-in page on a look-alike of the issuer's host, and a complete URI on a third host.
    static let mismatched = Fixtures.authorization(
        verificationURI: "https://auth-example.com/device", completeURI: "https://evil.example/d?user_code=WDJB-MJHT"
    )

    @Test("Mismatched hosts on a colour terminal: red Warning lines naming both hosts, no QR, the reason why")
    func mismatchedColor() {
        let text = render(Fixtures.laptop, .auto, Self.mismatched)
        snapshots.expect(text, matches: "prompt-mismatched-host-color")
        #expect(text.hasPrefix("\u{1B}[1m\u{1B}[31mWarning:\u{1B}[0m The sign-in page is on auth-example.com, but"))
        #expect(text.hasSuffix("QR code not shown: the server's two links lead to different hosts.\n"))
        #expect(!text.contains(ANSI.blackOnWhite) && !text.contains("Scan") && !text.contains("/d?user_code"))
        let notice = "QR code not shown: the server's two links lead to different hosts.\n"
        #expect(text == render(Fixtures.laptop, .never, Self.mismatched) + notice)
    }

    @Test("Mismatched hosts on a pipe: the same warnings in plain text, no QR")
    func mismatchedPipe() {
        let text = render(Fixtures.pipe, .auto, Self.mismatched)
        snapshots.expect(text, matches: "prompt-mismatched-host-pipe")
        #expect(
            text == """
                Warning: The sign-in page is on auth-example.com, but this sign-in was started with auth.example.com. \
                Enter the code only if you expected a page on auth-example.com.
                Warning: The server's two sign-in links lead to different hosts, auth-example.com and evil.example: \
                only the link to auth-example.com is shown, and no QR code.
                Open this page in a browser: https://auth-example.com/device
                You will be sent to auth-example.com.
                Only continue if you started this sign-in on build-box just now.
                Code: WDJB-MJHT
                The code expires in 15 min.

                """)
        #expect(
            render(Fixtures.pipe, .always, Self.mismatched)
                == text + "QR code not shown: the server's two links lead to different hosts.\n")
    }

    @Test("Pipe with --qr always: the QR without escapes")
    func pipeWithQR() {
        let text = render(Fixtures.pipe, .always)
        snapshots.expect(text, matches: "prompt-pipe-qr-always")
        #expect(!text.contains("\u{1B}"))
    }
}
