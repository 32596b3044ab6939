import Foundation

/// A wall clock that only moves when told: the `now` closure handed to the code under test.
final class WallClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date

    init(_ start: Date = Fixtures.start) {
        current = start
    }

    var date: Date { lock.withLock { current } }

    /// The closure to inject as `now`.
    var now: @Sendable () -> Date { { self.date } }

    func advance(seconds: TimeInterval) {
        lock.withLock { current = current.addingTimeInterval(seconds) }
    }
}

/// A `Clock` in virtual time: `advance(by:)` moves it, and a sleep returns at once after moving it to the
/// deadline (so code that waits on it runs without real waiting).
final class SteppingClock: Clock, @unchecked Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration

        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let lock = NSLock()
    private var current = Instant(offset: .zero)
    private var sleeps: [Duration] = []

    var now: Instant { lock.withLock { current } }
    var minimumResolution: Duration { .nanoseconds(1) }

    /// Every duration slept, in order.
    var sleptDurations: [Duration] { lock.withLock { sleeps } }

    func advance(by duration: Duration) {
        lock.withLock { current = current.advanced(by: duration) }
    }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        lock.withLock {
            sleeps.append(current.duration(to: deadline))
            if deadline > current { current = deadline }
        }
        await Task.yield()
    }
}
