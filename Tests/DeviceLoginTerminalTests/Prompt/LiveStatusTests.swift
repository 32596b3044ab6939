import DeviceLogin
import Testing

@testable import DeviceLoginTerminal

@Suite("LiveStatus")
struct LiveStatusTests {
    private let authorization = Fixtures.authorization()

    private func prompt(_ capabilities: TerminalCapabilities) -> String {
        PromptRenderer(capabilities: capabilities, qrMode: .never, machineName: Fixtures.machineName)
            .render(authorization, secondsLeft: 900)
    }

    private static let redraw = "\r\u{1B}[2K"

    @Test("On a terminal: prompt, hidden cursor, a status line redrawn in place, then a clean exit")
    func live() {
        var status = LiveStatus(capabilities: Fixtures.laptop, qrMode: .never, machineName: Fixtures.machineName)
        let redraw = Self.redraw
        #expect(status.isLive)
        #expect(
            status.handle(.authorizationReceived(authorization), at: .zero)
                == prompt(Fixtures.laptop) + "\u{1B}[?25l" + redraw + "⠋ Waiting for approval… (15:00 left)")
        #expect(status.tick(at: .milliseconds(250)) == redraw + "⠙ Waiting for approval… (15:00 left)")
        #expect(status.tick(at: .milliseconds(1250)) == redraw + "⠹ Waiting for approval… (14:59 left)")
        #expect(status.handle(.polling(attempt: 1, elapsed: .seconds(5)), at: .seconds(5)) == "")
        #expect(
            status.handle(.slowDown(attempt: 3, newInterval: .seconds(10)), at: .seconds(20))
                == redraw + "⠹ Server asked to slow down: polling every 10 s (14:40 left)")
        #expect(status.handle(.intervalChanged(from: .seconds(5), to: .seconds(10)), at: .seconds(20)) == "")
        #expect(
            status.handle(.pending(attempt: 4), at: .seconds(30))
                == redraw + "⠹ Waiting for approval… (14:30 left)")
        let retrying = DeviceFlowEvent.retrying(attempt: 5, delay: .seconds(8), reason: "connection refused\n")
        #expect(
            status.handle(retrying, at: .seconds(40))
                == redraw + "⠹ Network problem, retrying in 8 s: connection refused (14:20 left)")
        #expect(
            status.tick(at: .milliseconds(43_500))
                == redraw + "⠸ Network problem, retrying in 5 s: connection refused (14:17 left)")
        #expect(
            status.tick(at: .seconds(48))
                == redraw + "⠼ Network problem, retrying now: connection refused (14:12 left)")
        #expect(
            status.handle(.succeeded, at: .seconds(49))
                == redraw + "\u{1B}[32m✓\u{1B}[0m Signed in.\n\u{1B}[?25h")
        #expect(status.isFinished)
        #expect(status.tick(at: .seconds(50)) == "")
        #expect(status.handle(.pending(attempt: 6), at: .seconds(50)) == "")
        #expect(status.finish() == "")
    }

    @Test("On a pipe: the prompt, then one plain line per event worth telling")
    func pipe() {
        var status = LiveStatus(capabilities: Fixtures.pipe, qrMode: .never, machineName: Fixtures.machineName)
        #expect(!status.isLive)
        #expect(
            status.handle(.authorizationReceived(authorization), at: .zero)
                == prompt(Fixtures.pipe) + "Waiting for approval…\n")
        #expect(status.tick(at: .seconds(1)) == "")
        #expect(status.handle(.polling(attempt: 1, elapsed: .seconds(5)), at: .seconds(5)) == "")
        #expect(status.handle(.pending(attempt: 1), at: .seconds(5)) == "")
        #expect(
            status.handle(.slowDown(attempt: 2, newInterval: .seconds(10)), at: .seconds(10))
                == "Server asked to slow down: polling every 10 s\n")
        #expect(
            status.handle(.retrying(attempt: 3, delay: .seconds(8), reason: "timed out"), at: .seconds(20))
                == "Network problem, retrying in 8 s: timed out\n")
        #expect(status.handle(.succeeded, at: .seconds(30)) == "Signed in.\n")
        #expect(status.finish() == "")
    }

    @Test("ASCII terminal: ASCII spinner and ellipsis, no check mark")
    func ascii() {
        var status = LiveStatus(capabilities: Fixtures.serialConsole, qrMode: .never, machineName: Fixtures.machineName)
        let start = status.handle(.authorizationReceived(authorization), at: .zero)
        #expect(start.hasSuffix("\u{1B}[?25l" + Self.redraw + "- Waiting for approval... (15:00 left)"))
        #expect(status.tick(at: .seconds(1)) == Self.redraw + "\\ Waiting for approval... (14:59 left)")
        #expect(status.handle(.succeeded, at: .seconds(2)) == Self.redraw + "Signed in.\n\u{1B}[?25h")
    }

    @Test("NO_COLOR: the check mark without colour")
    func noColor() {
        var status = LiveStatus(capabilities: Fixtures.laptopNoColor, qrMode: .never, machineName: Fixtures.machineName)
        _ = status.handle(.authorizationReceived(authorization), at: .zero)
        #expect(status.handle(.succeeded, at: .seconds(2)) == Self.redraw + "✓ Signed in.\n\u{1B}[?25h")
    }

    @Test("A failure leaves the terminal clean and says nothing (the caller reports it)")
    func failure() {
        var live = LiveStatus(capabilities: Fixtures.laptop, qrMode: .never, machineName: Fixtures.machineName)
        _ = live.handle(.authorizationReceived(authorization), at: .zero)
        let error = DeviceLoginError(.accessDenied, "the user declined")
        #expect(live.handle(.failed(error), at: .seconds(3)) == "\r\u{1B}[2K\u{1B}[0m\u{1B}[?25h")
        #expect(live.finish() == "")
        var pipe = LiveStatus(capabilities: Fixtures.pipe, qrMode: .never, machineName: Fixtures.machineName)
        _ = pipe.handle(.authorizationReceived(authorization), at: .zero)
        #expect(pipe.handle(.failed(error), at: .seconds(3)) == "")
    }

    @Test("The status line is cut to the terminal's width so it never wraps")
    func narrow() {
        let capabilities = TerminalCapabilities(isTerminal: true, columns: 30, rows: 24, isUTF8: true)
        var status = LiveStatus(capabilities: capabilities, qrMode: .never, machineName: Fixtures.machineName)
        let start = status.handle(.authorizationReceived(authorization), at: .zero)
        let line = "⠋ Waiting for a… (15:00 left)"
        #expect(start.hasSuffix(Self.redraw + line))
        #expect(line.count == 29)
    }

    @Test("When the countdown runs out, the line says the code expired")
    func expired() {
        var status = LiveStatus(capabilities: Fixtures.laptop, qrMode: .never, machineName: Fixtures.machineName)
        _ = status.handle(.authorizationReceived(authorization), at: .zero)
        #expect(status.tick(at: .seconds(899)) == Self.redraw + "⠙ Waiting for approval… (0:01 left)")
        #expect(status.tick(at: .seconds(900)) == Self.redraw + "⠹ The code has expired.")
    }

    @Test("Nothing is drawn before the authorization arrives, and finishing then writes nothing")
    func beforeAuthorization() {
        var status = LiveStatus(capabilities: Fixtures.laptop, qrMode: .never, machineName: Fixtures.machineName)
        #expect(status.handle(.pending(attempt: 1), at: .zero) == "")
        #expect(status.tick(at: .seconds(1)) == "")
        #expect(status.finish() == "")
    }

    @Test("A new authorization (a restarted flow) clears the line before its prompt")
    func newAuthorization() {
        var status = LiveStatus(capabilities: Fixtures.laptop, qrMode: .never, machineName: Fixtures.machineName)
        _ = status.handle(.authorizationReceived(authorization), at: .zero)
        #expect(
            status.handle(.authorizationReceived(authorization), at: .seconds(900))
                == Self.redraw + prompt(Fixtures.laptop) + "\u{1B}[?25l" + Self.redraw
                + "⠋ Waiting for approval… (15:00 left)")
    }

    @Test("A hostile retry reason is sanitised and bounded")
    func hostileReason() {
        var status = LiveStatus(capabilities: Fixtures.pipe, qrMode: .never, machineName: Fixtures.machineName)
        _ = status.handle(.authorizationReceived(authorization), at: .zero)
        let reason = "refused\u{1B}]52;c;ZXZpbA==\u{07}\u{1B}[2J" + String(repeating: "x", count: 500)
        let line = status.handle(.retrying(attempt: 1, delay: .seconds(2), reason: reason), at: .zero)
        #expect(line == "Network problem, retrying in 2 s: refused" + String(repeating: "x", count: 152) + "…\n")
    }

    /// Every event, each kind at least once, with the end last.
    private var everyEvent: [DeviceFlowEvent] {
        [
            .authorizationReceived(authorization), .polling(attempt: 1, elapsed: .seconds(5)), .pending(attempt: 1),
            .intervalChanged(from: .seconds(5), to: .seconds(10)), .slowDown(attempt: 2, newInterval: .seconds(10)),
            .polling(attempt: 3, elapsed: .seconds(25)),
            .retrying(attempt: 3, delay: .seconds(8), reason: "connection refused"), .pending(attempt: 4),
            .failed(DeviceLoginError(.accessDenied, "the user declined")), .succeeded,
        ]
    }

    @Test(
        "An event it does not show (shows: false) writes nothing and changes nothing: left out, the text is the same",
        arguments: [Fixtures.pipe, Fixtures.laptop])
    func unshownEventsChangeNothing(capabilities: TerminalCapabilities) {
        let events = everyEvent
        #expect(events.filter { !LiveStatus.shows($0) }.count == 3)
        var all = LiveStatus(capabilities: capabilities, qrMode: .never, machineName: Fixtures.machineName)
        var shown = LiveStatus(capabilities: capabilities, qrMode: .never, machineName: Fixtures.machineName)
        var text = ""
        for (index, event) in events.enumerated() {
            let now = Duration.seconds(index * 5)
            let written = all.handle(event, at: now)
            if LiveStatus.shows(event) {
                #expect(written == shown.handle(event, at: now), "\(event)")
            } else {
                #expect(written == "", "\(event)")
            }
            let tick = all.tick(at: now + .milliseconds(250))
            #expect(tick == shown.tick(at: now + .milliseconds(250)))
            text += written + tick
        }
        #expect(all.finish() == shown.finish())
        // What was compared is the whole prompt and every notice, not empty strings.
        #expect(text.contains("Code: WDJB-MJHT"))
        #expect(text.contains("Server asked to slow down: polling every 10 s"))
        #expect(text.contains("Network problem, retrying in 8 s: connection refused"))
    }
}
