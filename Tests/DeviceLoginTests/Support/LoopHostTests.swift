import Testing

@testable import DeviceLogin

/// What a loop host's wait in `curl_multi_poll` is given for the sleep queue's next deadline (issue 19): whole
/// milliseconds, never fewer than the delay, and within what `curl_multi_poll` takes.
@Suite("LoopHost: waits in whole milliseconds")
struct LoopHostTests {
    @Test("a wait in whole milliseconds never ends before its delay, and is bounded")
    func waitMilliseconds() {
        #expect(Duration.zero.waitMilliseconds == 0)
        #expect(Duration.milliseconds(-5).waitMilliseconds == 0)
        #expect(Duration.nanoseconds(1).waitMilliseconds == 1)
        #expect(Duration.milliseconds(1).waitMilliseconds == 1)
        #expect((Duration.milliseconds(1) + .nanoseconds(1)).waitMilliseconds == 2)
        #expect(Duration.seconds(5).waitMilliseconds == 5_000)
        #expect(Duration.seconds(Int64.max / 2).waitMilliseconds == Int32.max)
        #expect(Duration.seconds(3_000_000).waitMilliseconds == Int32.max)
    }
}
