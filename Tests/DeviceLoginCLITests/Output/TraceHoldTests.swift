import Testing

@testable import DeviceLoginCLI

@Suite("TraceHold: --verbose lines held while the kiosk screen is shown")
struct TraceHoldTests {
    @Test("Not holding: each line is written at once, as it is for a live terminal")
    func passesThrough() {
        let buffer = TextSink.buffer()
        let hold = TraceHold()
        hold.route((live: "\r\u{1B}[2Kdevice-login: a", plain: "device-login: a"), to: buffer.sink)
        #expect(buffer.contents() == "\r\u{1B}[2Kdevice-login: a\n")
    }

    @Test("Holding: nothing is written until the release, then the plain lines in order, and it passes through again")
    func holdsAndReleases() {
        let buffer = TextSink.buffer()
        let hold = TraceHold()
        hold.hold()
        for index in 1...3 { hold.route((live: "live \(index)", plain: "plain \(index)"), to: buffer.sink) }
        #expect(buffer.contents().isEmpty)
        hold.release(to: buffer.sink)
        #expect(buffer.contents() == "plain 1\nplain 2\nplain 3\n")
        hold.route((live: "live 4", plain: "plain 4"), to: buffer.sink)
        hold.release(to: buffer.sink)
        #expect(buffer.contents() == "plain 1\nplain 2\nplain 3\nlive 4\n")
    }

    @Test("Bounded: past the limit lines are counted, not kept, and the count is written in their place")
    func bounded() {
        let buffer = TextSink.buffer()
        let hold = TraceHold()
        hold.hold()
        let total = TraceHold.maximumLines + 25
        for index in 1...total { hold.route((live: "", plain: "line \(index)"), to: buffer.sink) }
        hold.release(to: buffer.sink)
        let lines = buffer.contents().split(separator: "\n")
        #expect(lines.count == TraceHold.maximumLines + 1)
        #expect(lines.first == "line 1")
        #expect(lines[TraceHold.maximumLines - 1] == "line \(TraceHold.maximumLines)")
        #expect(lines.last == "device-login: trace: 25 more lines left out while the screen was shown")
    }
}
