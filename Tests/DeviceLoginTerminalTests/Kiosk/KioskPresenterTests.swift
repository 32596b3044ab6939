import DeviceLogin
import DeviceLoginTesting
import Testing

@testable import DeviceLoginTerminal

/// The live kiosk driver in virtual time: the alternate screen entered and left on every way out, the countdown,
/// resizes, and the states after expiry.
@Suite("KioskPresenter")
struct KioskPresenterTests {
    private let authorization = Fixtures.authorization()
    private let screen = KioskScreen(capabilities: Fixtures.laptop, machineName: Fixtures.machineName)

    private func frame(_ secondsLeft: Int, _ state: KioskState = .waiting, columns: Int = 80, rows: Int = 24) -> String
    {
        screen.frame(for: authorization, secondsLeft: secondsLeft, state: state, columns: columns, rows: rows)
    }

    @Test("Enter, the first frame on a cleared screen, the countdown each second, a resize redrawn at the new size")
    func countdownAndResize() async {
        let clock = ManualClock()
        let output = RecordingOutput()
        let presenter = KioskPresenter(screen: screen, columns: 80, rows: 24, output: output, clock: clock)
        let (updates, sink) = AsyncStream.makeStream(of: KioskUpdate.self)
        async let finished: Void = presenter.run(updates: updates)
        var writes = output.writes.makeAsyncIterator()
        #expect(await writes.next() == KioskScreen.enter)

        sink.yield(.show(authorization))
        #expect(await writes.next() == KioskDisplay.clear + frame(900))

        await clock.sleepers(atLeast: 1)
        clock.advance(by: .seconds(1))
        #expect(await writes.next() == frame(899))

        sink.yield(.resized(columns: 120, rows: 40))
        #expect(await writes.next() == KioskDisplay.clear + frame(899, columns: 120, rows: 40))

        sink.yield(.flow(.retrying(attempt: 2, delay: .seconds(4), reason: "connection refused")))
        #expect(await writes.next() == frame(899, .retrying(reason: "connection refused"), columns: 120, rows: 40))
        sink.yield(.flow(.pending(attempt: 3)))
        #expect(await writes.next() == frame(899, columns: 120, rows: 40))

        sink.yield(.state(.expired(next: .pressKey)))
        #expect(await writes.next() == frame(899, .expired(next: .pressKey), columns: 120, rows: 40))

        sink.finish()
        #expect(await writes.next() == KioskScreen.leave)
        await finished
        #expect(clock.sleeperCount == 0)
        #expect(output.text.hasSuffix("\u{1B}[?1049l"))
    }

    @Test("A tick that changes nothing writes nothing; a resize to the same size redraws nothing")
    func unchanged() {
        var display = KioskDisplay(columns: 80, rows: 24)
        #expect(display.frame(screen, at: .zero).isEmpty)
        display.apply(.show(authorization), at: .zero)
        #expect(display.frame(screen, at: .zero) == KioskDisplay.clear + frame(900))
        #expect(display.frame(screen, at: .milliseconds(500)) == "")
        display.apply(.resized(columns: 80, rows: 24), at: .milliseconds(600))
        #expect(display.frame(screen, at: .milliseconds(600)) == "")
        display.apply(.resized(columns: 0, rows: 24), at: .milliseconds(600))
        #expect(display.columns == 80)
        #expect(display.frame(screen, at: .seconds(2)) == frame(898))
    }

    @Test("A new code restarts the countdown from its expires_in")
    func newCode() {
        var display = KioskDisplay(columns: 80, rows: 24)
        display.apply(.show(authorization), at: .zero)
        _ = display.frame(screen, at: .zero)
        display.apply(.state(.requestingCode), at: .seconds(900))
        #expect(display.frame(screen, at: .seconds(900)) == frame(0, .requestingCode))
        let second = Fixtures.authorization(userCode: "BCDF-GHJK", expiresIn: 600)
        display.apply(.flow(.authorizationReceived(second)), at: .seconds(901))
        #expect(display.state == .waiting)
        #expect(
            display.frame(screen, at: .seconds(901))
                == screen.frame(for: second, secondsLeft: 600, state: .waiting, columns: 80, rows: 24))
    }

    @Test("Cancelled while drawing: the alternate screen is left, the cursor shown, attributes reset")
    func cancelled() async {
        let clock = ManualClock()
        let output = RecordingOutput()
        let presenter = KioskPresenter(screen: screen, columns: 80, rows: 24, output: output, clock: clock)
        let (updates, sink) = AsyncStream.makeStream(of: KioskUpdate.self)
        let task = Task { await presenter.run(updates: updates) }
        var writes = output.writes.makeAsyncIterator()
        #expect(await writes.next() == KioskScreen.enter)
        sink.yield(.show(authorization))
        #expect(await writes.next() == KioskDisplay.clear + frame(900))
        task.cancel()
        await task.value
        #expect(await writes.next() == KioskScreen.leave)
        #expect(output.text.hasPrefix("\u{1B}[?1049h") && output.text.hasSuffix("\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l"))
        sink.finish()
    }

    @Test("restore() leaves the alternate screen at once")
    func restore() {
        let output = RecordingOutput()
        KioskPresenter(screen: screen, columns: 80, rows: 24, output: output, clock: ManualClock()).restore()
        #expect(output.text == KioskScreen.leave)
    }
}
