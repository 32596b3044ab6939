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
