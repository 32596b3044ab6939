import DeviceLogin
import DeviceLoginTestSupport
import Foundation
import Testing

@testable import DeviceLoginTerminal

/// The kiosk screen: snapshots at three sizes, what it always shows, what it refuses, and the QR code read back by
/// zbarimg from a picture of the whole screen.
@Suite("KioskScreen")
struct KioskScreenTests {
    private let snapshots = SnapshotDirectory(beside: #filePath)

    private static let screen = KioskScreen(capabilities: Fixtures.laptop, machineName: Fixtures.machineName)
    private static let sizes = [(80, 24), (120, 40), (200, 60)]

    private func lines(
        _ screen: KioskScreen = screen, _ authorization: DeviceAuthorization = Fixtures.authorization(),
        secondsLeft: Int = 840, state: KioskState = .waiting, columns: Int, rows: Int
    ) -> [String] {
        screen.lines(for: authorization, secondsLeft: secondsLeft, state: state, columns: columns, rows: rows)
    }

    @Test("Snapshots at 80x24, 120x40 and 200x60", arguments: sizes)
    func snapshot(columns: Int, rows: Int) {
        let text = lines(columns: columns, rows: rows).map { $0 + "\n" }.joined()
        snapshots.expect(text, matches: "kiosk-\(columns)x\(rows)")
    }

    @Test(
        "Every size: exactly the screen's rows, no line wider than it, the code, host and countdown in words",
        arguments: sizes + [(100, 30), (60, 20), (40, 12), (10, 3), (1, 1), (300, 100)])
    func fits(columns: Int, rows: Int) {
        let screen = lines(columns: columns, rows: rows)
        #expect(screen.count == rows)
        for line in screen { #expect(ANSI.visibleWidth(line) <= columns, "\(line.debugDescription)") }
        guard columns >= 60, rows >= 20 else { return }
        let text = screen.joined(separator: "\n")
        #expect(text.contains("Code: WDJB-MJHT"))
        #expect(text.contains("auth.example.com.\u{1B}[0m") && text.contains("You will be sent to"))
        #expect(text.contains("The code expires in 14:00."))
        #expect(text.contains("Waiting for approval…"))
    }

    /// A size too small for the whole text, and which parts are expected on it, by the order in docs/kiosk.md:
    /// the code, then the link with its warnings and the host and "Only continue" lines, then the countdown, the
    /// state, the "Open this page" caption, the QR notice.
    struct SmallSize: Sendable, CustomTestStringConvertible {
        var columns: Int
        var rows: Int
        var mismatched = false
        /// Text expected on the screen (each within one line).
        var shown: [String]
        /// Text expected not to be on it.
        var left: [String]
        var testDescription: String { "\(columns)x\(rows)\(mismatched ? " mismatched" : "")" }
    }

    static let link = "https://auth.example.com/device"
    static let continueLine = "just now."
    static let countdown = "The code expires in 14:00."
    static let waiting = "Waiting for approval…"

    static let smallScreens: [SmallSize] = [
        SmallSize(columns: 10, rows: 1, shown: ["WDJB-MJHT"], left: ["Code:", "expires", "https"]),
        SmallSize(columns: 20, rows: 1, shown: ["Code: WDJB-MJHT"], left: ["expires", "https"]),
        SmallSize(columns: 10, rows: 2, shown: ["Code:", "WDJB-MJHT"], left: ["expires", "https"]),
        SmallSize(columns: 20, rows: 3, shown: ["Code: WDJB-MJHT", "The code expires in", "14:00."], left: ["https"]),
        SmallSize(
            columns: 40, rows: 4, shown: ["Code: WDJB-MJHT", countdown, waiting], left: ["https", "Only continue"]),
        SmallSize(
            columns: 40, rows: 5, shown: ["Code: WDJB-MJHT", link, "auth.example.com.", continueLine],
            left: ["expires", "Open this page"]),
        SmallSize(
            columns: 40, rows: 7, shown: ["Code: WDJB-MJHT", link, continueLine, countdown, waiting],
            left: ["Open this page", "█"]),
        SmallSize(
            columns: 40, rows: 8, shown: ["Code: WDJB-MJHT", link, continueLine, countdown, waiting, "Open this page"],
            left: ["█"]),
        SmallSize(
            columns: 60, rows: 12,
            shown: ["Code: WDJB-MJHT", link, continueLine, countdown, waiting, "Open this page"],
            left: ["█"]),
        // Warnings come with the link or not at all: at 40x8 they take the room, and neither is shown.
        SmallSize(
            columns: 40, rows: 8, mismatched: true, shown: ["Code: WDJB-MJHT", countdown, waiting],
            left: ["Warning:", "auth-example.com/device", "Open this page"]),
        SmallSize(
            columns: 80, rows: 16, mismatched: true,
            shown: ["Code: WDJB-MJHT", "Warning:", "https://auth-example.com/device", continueLine, countdown],
            left: []),
    ]

    @Test(
        "Too small for everything: the code first, then the link with its warnings, then the countdown",
        arguments: smallScreens)
    func smallSizes(size: SmallSize) {
        let authorization = size.mismatched ? Self.mismatched : Fixtures.authorization()
        let screen = lines(Self.screen, authorization, columns: size.columns, rows: size.rows)
        #expect(screen.count == size.rows)
        for line in screen { #expect(ANSI.visibleWidth(line) <= size.columns, "\(line.debugDescription)") }
        let plain = screen.map(Self.withoutEscapes)
        for text in size.shown { #expect(plain.contains { $0.contains(text) }, "\(text) in \(plain)") }
        for text in size.left { #expect(!plain.contains { $0.contains(text) }, "\(text) in \(plain)") }
        if plain.contains(where: { $0.contains("https://") }) {
            #expect(
                plain.contains { $0.contains(Self.continueLine) }, "the link without the line that asks to check it")
        }
    }

    @Test("At every size down to 9x1, the code is drawn whole, and nothing when it cannot be")
    func codeAtEverySize() {
        for columns in 1...90 {
            for rows in 1...26 {
                let screen = lines(columns: columns, rows: rows).map(Self.withoutEscapes)
                let text = screen.joined(separator: "\n")
                if columns * rows >= Fixtures.userCode.count {
                    // Split over lines only where a line is narrower than the code.
                    let joined = screen.map { $0.trimmingCharacters(in: .whitespaces) }.joined()
                    #expect(
                        text.contains(Fixtures.userCode) || joined.contains(Fixtures.userCode),
                        "\(columns)x\(rows): \(screen)")
                } else {
                    #expect(text.contains("…"), "\(columns)x\(rows): \(screen)")
                }
            }
        }
    }

    /// A line without its escape sequences (styles and colours).
    private static func withoutEscapes(_ line: String) -> String {
        line.replacing(/\x{1B}\[[0-9;?]*[A-Za-z]/, with: "")
    }

    @Test("The QR code grows with the screen: one column per module at 80x24 and 120x40, two at 200x60")
    func qrScale() {
        // The drawn QR code's width: the longest run of black-on-white lines' cells, read from the screen.
        func qrWidth(_ screen: [String]) -> Int {
            screen.compactMap { line -> Int? in
                guard let start = line.range(of: ANSI.blackOnWhite), let end = line.range(of: ANSI.reset) else {
                    return nil
                }
                return line[start.upperBound..<end.lowerBound].count
            }.max() ?? 0
        }
        let matrix = try? QRMatrix(encoding: Fixtures.completeURI)
        let size = (matrix?.size ?? 0) + 2 * QRRenderer.quietZone
        #expect(qrWidth(lines(columns: 80, rows: 24)) == size)
        #expect(qrWidth(lines(columns: 120, rows: 40)) == size)
        #expect(qrWidth(lines(columns: 200, rows: 60)) == 2 * size)
    }

    @Test("The code in block letters, broken after the dash: at scale 1 at 80x24, at scale 3 at 200x60")
    func bigCode() throws {
        let narrow = try #require(BannerFont.lines(for: "WDJB-"))
        let wide = try #require(BannerFont.lines(for: "WDJB-", scale: 3))
        let second = try #require(BannerFont.lines(for: "MJHT"))
        let small = lines(columns: 80, rows: 24).joined(separator: "\n")
        #expect(small.contains(narrow[0]) && small.contains(second[0]))
        #expect(lines(columns: 200, rows: 60).joined(separator: "\n").contains(wide[1]))
    }

    @Test("zbarimg decodes verification_uri_complete from a picture of the whole screen", arguments: sizes)
    func zbarDecodes(columns: Int, rows: Int) throws {
        guard ZBar.isAvailable() else { return }
        for theme in [TerminalScreen.Theme.dark, .light] {
            let picture = try TerminalScreen(lines: lines(columns: columns, rows: rows), theme: theme, withText: true)
                .picture(cellWidth: 4, halfHeight: 4)
            #expect(try ZBar.decode(picture) == Fixtures.completeURI)
        }
    }

    /// A sign-in page on a look-alike of the issuer's host, and a complete URI on a third host.
    private static let mismatched = Fixtures.authorization(
        verificationURI: "https://auth-example.com/device", completeURI: "https://evil.example/d?user_code=WDJB-MJHT"
    )

    @Test("Hosts that do not match: every warning in bold red, no QR code, the reason why", arguments: sizes)
    func mismatchedHosts(columns: Int, rows: Int) throws {
        let text = lines(Self.screen, Self.mismatched, columns: columns, rows: rows).joined(separator: "\n")
        let check = Self.mismatched.hostCheck
        #expect(check.warnings.count == 2)
        #expect(text.components(separatedBy: "\u{1B}[1m\u{1B}[31mWarning:\u{1B}[0m").count == 3)
        #expect(!text.contains(ANSI.blackOnWhite) && !text.contains("evil.example/d"))
        #expect(text.contains("QR code not shown: the server's two links lead to different hosts."))
        #expect(text.contains("You will be sent to \u{1B}[1mauth-example.com.\u{1B}[0m"))
        if columns == 80 {
            snapshots.expect(text + "\n", matches: "kiosk-mismatched-80x24")
        }
    }

    @Test("--qr never: no QR code and no notice")
    func qrNever() {
        var screen = Self.screen
        screen.qrMode = .never
        let text = lines(screen, columns: 120, rows: 40).joined(separator: "\n")
        #expect(!text.contains(ANSI.blackOnWhite) && !text.contains("QR code"))
        #expect(text.contains("Code: WDJB-MJHT"))
    }

    @Test(
        "Expired: neither the code nor the QR code, only what happens next",
        arguments: [
            (KioskState.AfterExpiry.pressKey, "Press any key for a new code, or Ctrl-C to quit."),
            (.automatic, "A new code will be requested…"),
            (.end, "Start the sign-in again for a new code."),
        ])
    func expired(next: KioskState.AfterExpiry, says: String) {
        let screen = lines(secondsLeft: 0, state: .expired(next: next), columns: 80, rows: 24)
        let text = screen.joined(separator: "\n")
        #expect(screen.count == 24)
        #expect(text.contains("This sign-in code has expired.") && text.contains(says))
        #expect(!text.contains("WDJB") && !text.contains(ANSI.blackOnWhite))
        if next == .pressKey { snapshots.expect(text + "\n", matches: "kiosk-expired-80x24") }
    }

    @Test("A new code being requested, and a network problem while polling")
    func otherStates() {
        let requesting = lines(state: .requestingCode, columns: 80, rows: 24).joined(separator: "\n")
        #expect(requesting.contains("Requesting a new code…") && !requesting.contains("WDJB"))
        let retrying = lines(state: .retrying(reason: "connection refused\u{1B}[2J"), columns: 120, rows: 40)
            .joined(separator: "\n")
        #expect(retrying.contains("Network problem, retrying… connection refused"))
        #expect(!retrying.contains("\u{1B}[2J"))
    }

    @Test("ASCII locale and a monochrome serial console: plain letters, QR in ASCII only when it fits")
    func asciiConsole() {
        let screen = KioskScreen(capabilities: Fixtures.serialConsole, machineName: Fixtures.machineName)
        let small = lines(screen, columns: 80, rows: 24)
        #expect(small.joined().contains("W D J B - M J H T"))
        #expect(small.allSatisfy { $0.unicodeScalars.allSatisfy(\.isASCII) })
        let large = lines(screen, columns: 200, rows: 60).joined(separator: "\n")
        #expect(large.contains("\u{1B}[7m  "))
    }

    @Test("A frame: cursor home, each line over the last, the rest of each line erased, never past the last row")
    func frame() {
        let frame = Self.screen.frame(
            for: Fixtures.authorization(), secondsLeft: 840, state: .waiting, columns: 80, rows: 24)
        #expect(frame.hasPrefix("\u{1B}[H"))
        #expect(frame.components(separatedBy: "\r\n").count == 24)
        #expect(!frame.hasSuffix("\n"))
        #expect(frame.hasSuffix("\u{1B}[K"))
        // A line that fills its row is not followed by an erase, which would wipe its last column.
        let full = Self.screen.frame(
            for: Fixtures.authorization(), secondsLeft: 840, state: .expired(next: .end), columns: 41, rows: 6)
        #expect(!full.contains("█\u{1B}[K") || full.contains("█ "))
    }

    @Test("Entering and leaving: the alternate screen, the cursor hidden then shown, attributes reset")
    func enterAndLeave() {
        #expect(KioskScreen.enter.hasPrefix("\u{1B}[?1049h") && KioskScreen.enter.hasSuffix("\u{1B}[?25l"))
        #expect(KioskScreen.leave == "\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l")
    }
}
