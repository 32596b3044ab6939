import Foundation
import Testing

@testable import DeviceLogin

@Suite("PollingProgress: where polling stands, in wall-clock time, from the flow's events")
struct PollingProgressTests {
    private let start = Date(timeIntervalSince1970: 1_800_000_000)

    private func at(_ seconds: Double) -> Date { start.addingTimeInterval(seconds) }

    private func authorization(interval: Int? = 5) -> DeviceAuthorization {
        DeviceAuthorization(
            response: DeviceAuthorizationResponse(
                deviceCode: "dc", userCode: "ABCD-EFGH", verificationURI: "https://example.com/device", expiresIn: 600,
                interval: interval),
            receivedAt: start)
    }

    @Test("a new authorization: its interval (5 s when the server sent none), the first poll one interval later")
    func fresh() {
        let progress = PollingProgress(authorization(interval: 7))
        #expect(progress == PollingProgress(interval: .seconds(7), notBefore: at(7)))
        #expect(PollingProgress(authorization(interval: nil)).notBefore == at(5))
    }

    @Test(
        "each event moves the progress as the flow decided",
        arguments: [
            (DeviceFlowEvent.polling(attempt: 3, elapsed: .seconds(9)), 5, 2, 3, 9.0 as Double?, 14.0),
            (.pending(attempt: 1), 5, 0, 0, nil, 14.0),
            (.slowDown(attempt: 1, newInterval: .seconds(10)), 10, 0, 0, nil, 19.0),
            (.intervalChanged(from: .seconds(5), to: .seconds(10)), 10, 2, 0, nil, 5.0),
            (.retrying(attempt: 1, delay: .seconds(20), reason: "HTTP 503"), 5, 3, 0, nil, 29.0),
            (.retrying(attempt: 1, delay: .seconds(1), reason: "HTTP 503"), 5, 3, 0, nil, 14.0),
            (.succeeded, 5, 2, 0, nil, 5.0),
        ])
    func record(
        event: DeviceFlowEvent, interval: Int, failures: Int, attempts: Int, lastPoll: Double?, notBefore: Double
    ) {
        var progress = PollingProgress(interval: .seconds(5), consecutiveFailures: 2, notBefore: at(5))
        progress.record(event, at: at(9))
        #expect(progress.interval == .seconds(interval))
        #expect(progress.consecutiveFailures == failures)
        #expect(progress.attempts == attempts)
        #expect(progress.lastPollAt == lastPoll.map(at))
        #expect(progress.notBefore == at(notBefore))
    }

    @Test("slow_down is kept: every later answer plans the next poll with the grown interval")
    func slowDownKept() {
        var progress = PollingProgress(authorization())
        progress.record(.polling(attempt: 1, elapsed: .seconds(5)), at: at(5))
        progress.record(.slowDown(attempt: 1, newInterval: .seconds(10)), at: at(5))
        progress.record(.intervalChanged(from: .seconds(5), to: .seconds(10)), at: at(5))
        progress.record(.polling(attempt: 2, elapsed: .seconds(15)), at: at(15))
        progress.record(.pending(attempt: 2), at: at(15))
        #expect(progress == PollingProgress(interval: .seconds(10), attempts: 2, lastPollAt: at(15), notBefore: at(25)))
    }

    @Test("negative counts from outside are read as none")
    func bounded() {
        let progress = PollingProgress(interval: .seconds(5), consecutiveFailures: -3, attempts: -1, notBefore: start)
        #expect(progress.consecutiveFailures == 0)
        #expect(progress.attempts == 0)
    }
}
