import DeviceLogin
import DeviceLoginTesting
import Foundation
import Testing

@testable import DeviceLoginTerminal

@Suite("LivePresenter")
struct LivePresenterTests {
    private let authorization = Fixtures.authorization()
    private static let redraw = "\r\u{1B}[2K"

    @Test("On a pipe: exactly the prompt and one line per event worth telling")
    func pipe() async {
        let output = RecordingOutput()
        let presenter = LivePresenter(
            capabilities: Fixtures.pipe, qrMode: .auto, output: output, clock: ManualClock(),
            machineName: Fixtures.machineName
        )
        let (events, sink) = AsyncStream.makeStream(of: DeviceFlowEvent.self)
        for event: DeviceFlowEvent in [
            .authorizationReceived(authorization), .polling(attempt: 1, elapsed: .seconds(5)), .pending(attempt: 1),
            .slowDown(attempt: 2, newInterval: .seconds(10)), .intervalChanged(from: .seconds(5), to: .seconds(10)),
            .retrying(attempt: 3, delay: .seconds(8), reason: "connection refused"),
            .polling(attempt: 4, elapsed: .seconds(33)),
            .succeeded,
        ] {
            sink.yield(event)
        }
        sink.finish()
        await presenter.run(events: events)
        #expect(
            output.text == """
                Open this page in a browser: https://auth.example.com/device
                You will be sent to auth.example.com.
                Only continue if you started this sign-in on build-box just now.
                Code: WDJB-MJHT
                The code expires in 15 min.
                Waiting for approval…
                Server asked to slow down: polling every 10 s
                Network problem, retrying in 8 s: connection refused
                Signed in.

                """)
    }

    @Test("On a terminal: the ticker redraws on the injected clock, and success restores the cursor")
    func liveWithClock() async {
        let clock = ManualClock()
        let output = RecordingOutput()
        let presenter = LivePresenter(
            capabilities: Fixtures.laptop, qrMode: .never, output: output, clock: clock,
            machineName: Fixtures.machineName
        )
        let (events, sink) = AsyncStream.makeStream(of: DeviceFlowEvent.self)
        async let finished: Void = presenter.run(events: events)
        var writes = output.writes.makeAsyncIterator()

        sink.yield(.authorizationReceived(authorization))
        let renderer = PromptRenderer(capabilities: Fixtures.laptop, qrMode: .never, machineName: Fixtures.machineName)
        let prompt = renderer.render(authorization, secondsLeft: 900)
        #expect(await writes.next() == prompt + "\u{1B}[?25l" + Self.redraw + "⠋ Waiting for approval… (15:00 left)")

        await clock.sleepers(atLeast: 1)
        clock.advance(by: .milliseconds(250))
        #expect(await writes.next() == Self.redraw + "⠙ Waiting for approval… (15:00 left)")

        await clock.sleepers(atLeast: 1)
        clock.advance(by: .seconds(1))
        #expect(await writes.next() == Self.redraw + "⠹ Waiting for approval… (14:59 left)")

        sink.yield(.succeeded)
        #expect(await writes.next() == Self.redraw + "\u{1B}[32m✓\u{1B}[0m Signed in.\n\u{1B}[?25h")
        await finished
        // The ticker stopped with the flow: nothing sleeps on the clock, and time passing writes nothing more.
        #expect(clock.sleeperCount == 0)
        clock.advance(by: .seconds(10))
        #expect(output.text.hasSuffix("Signed in.\n\u{1B}[?25h"))
    }

    @Test("Cancelling the task stops the ticker and leaves the terminal clean")
    func cancellation() async {
        let clock = ManualClock()
        let output = RecordingOutput()
        let presenter = LivePresenter(
            capabilities: Fixtures.laptop, qrMode: .never, output: output, clock: clock,
            machineName: Fixtures.machineName
        )
        let (events, sink) = AsyncStream.makeStream(of: DeviceFlowEvent.self)
        let task = Task { await presenter.run(events: events) }
        var writes = output.writes.makeAsyncIterator()
        sink.yield(.authorizationReceived(authorization))
        _ = await writes.next()
        await clock.sleepers(atLeast: 1)
        task.cancel()
        await task.value
        #expect(clock.sleeperCount == 0)
        #expect(await writes.next() == "\r\u{1B}[2K\u{1B}[0m\u{1B}[?25h")
        #expect(output.text.hasSuffix("(15:00 left)\r\u{1B}[2K\u{1B}[0m\u{1B}[?25h"))
    }

    @Test("The event stream ending without a result also restores the terminal")
    func streamEnds() async {
        let output = RecordingOutput()
        let presenter = LivePresenter(
            capabilities: Fixtures.laptop, qrMode: .never, output: output, clock: ManualClock(),
            machineName: Fixtures.machineName
        )
        let (events, sink) = AsyncStream.makeStream(of: DeviceFlowEvent.self)
        sink.yield(.authorizationReceived(authorization))
        sink.finish()
        await presenter.run(events: events)
        #expect(output.text.hasSuffix("(15:00 left)\r\u{1B}[2K\u{1B}[0m\u{1B}[?25h"))
    }

    @Test("restore() writes the clean-up sequence on a terminal and nothing on a pipe")
    func restore() {
        let terminal = RecordingOutput()
        LivePresenter(capabilities: Fixtures.laptop, output: terminal).restore()
        #expect(terminal.text == "\r\u{1B}[2K\u{1B}[0m\u{1B}[?25h")
        let pipe = RecordingOutput()
        LivePresenter(capabilities: Fixtures.pipe, output: pipe).restore()
        #expect(pipe.text == "")
    }
}
