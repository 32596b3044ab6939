import Testing

@testable import DeviceLoginCLI

@Suite("DurationOption: 90, 90s, 15m, 2h")
struct DurationOptionTests {
    @Test(
        "what a duration stands for",
        arguments: [
            ("90", 90), ("90s", 90), ("15m", 900), ("2h", 7200), ("0", 0), ("999999999h", 999_999_999 * 3600),
        ] as [(String, Int)])
    func seconds(text: String, seconds: Int) {
        #expect(DurationOption.seconds(text) == seconds)
    }

    @Test("not durations", arguments: ["", "s", "1.5m", "-5", "+5", "5 m", "2d", "1e3", "٣", "1234567890", "5ms"])
    func notDurations(text: String) {
        #expect(DurationOption.seconds(text) == nil)
    }
}
