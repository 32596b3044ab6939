import Foundation

/// A clock for these tests whose time moves only on ``advance(by:)``: the ticker sleeps on it, and a test wakes it
/// without real waiting. (The testing kit's ManualClock is written in parallel; this one is private to the tests.)
final class TestClock: Clock, @unchecked Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        let id: Int
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    // Every field is guarded by `lock`.
    private let lock = NSLock()
    private var current = Instant(offset: .zero)
    private var sleepers: [Sleeper] = []
    private var cancelled: Set<Int> = []
    private var nextID = 0
    private var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    var now: Instant { lock.locked { current } }
    var minimumResolution: Duration { .zero }
    /// How many tasks are asleep on this clock now.
    var sleeperCount: Int { lock.locked { sleepers.count } }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let id = lock.locked {
            nextID += 1
            return nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Void, any Error>? = lock.locked {
                    if cancelled.remove(id) != nil { return .failure(CancellationError()) }
                    if deadline <= current { return .success(()) }
                    sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return nil
                }
                if let outcome {
                    continuation.resume(with: outcome)
                } else {
                    wakeWaiters()
                }
            }
        } onCancel: {
            let sleeper: Sleeper? = lock.locked {
                guard let index = sleepers.firstIndex(where: { $0.id == id }) else {
                    cancelled.insert(id)
                    return nil
                }
                return sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward and wakes every sleeper whose deadline has come.
    func advance(by duration: Duration) {
        let due: [Sleeper] = lock.locked {
            current = current.advanced(by: duration)
            let due = sleepers.filter { $0.deadline <= current }
            sleepers.removeAll { $0.deadline <= current }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Returns once at least `count` tasks are asleep on this clock.
    func sleepers(atLeast count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready: Bool = lock.locked {
                if sleepers.count >= count { return true }
                waiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    private func wakeWaiters() {
        let ready: [CheckedContinuation<Void, Never>] = lock.locked {
            let ready = waiters.filter { $0.count <= sleepers.count }.map(\.continuation)
            waiters.removeAll { $0.count <= sleepers.count }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }
}
