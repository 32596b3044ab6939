import Testing

@testable import DeviceLoginTerminal

@Suite("TimeText")
struct TimeTextTests {
    @Test(
        "Words for the prompt",
        arguments: [
            (0, "0 s"), (1, "1 s"), (59, "59 s"), (60, "1 min"), (61, "1 min 1 s"), (900, "15 min"),
            (3599, "59 min 59 s"),
            (3600, "1 h"), (3660, "1 h 1 min"), (7199, "1 h 59 min"), (-5, "0 s"),
        ])
    func words(seconds: Int, text: String) {
        #expect(TimeText.words(seconds: seconds) == text)
    }

    @Test(
        "Clock figures for the countdown",
        arguments: [
            (0, "0:00"), (5, "0:05"), (59, "0:59"), (60, "1:00"), (899, "14:59"), (3599, "59:59"), (3600, "1:00:00"),
            (3661, "1:01:01"), (-1, "0:00"),
        ])
    func clock(seconds: Int, text: String) {
        #expect(TimeText.clock(seconds: seconds) == text)
    }

    @Test(
        "Durations round up to whole seconds",
        arguments: [
            (Duration.zero, 0), (.milliseconds(1), 1), (.seconds(1), 1), (.milliseconds(1001), 2), (.seconds(10), 10),
            (.milliseconds(-500), 0),
        ])
    func roundingUp(duration: Duration, seconds: Int) {
        #expect(TimeText.seconds(roundingUp: duration) == seconds)
    }
}
