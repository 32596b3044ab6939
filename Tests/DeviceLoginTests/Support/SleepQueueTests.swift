import Testing

@testable import DeviceLogin

/// SleepQueue sleeps on the real `ContinuousClock` (what it replaces is `Task.sleep`): the waits here are tens of
/// milliseconds, and the bounds on lateness are loose, so that a loaded machine does not fail them.
@Suite("SleepQueue: one thread wakes every ContinuousClock sleeper, never early")
struct SleepQueueTests {
    /// Lateness no machine should reach: far below the 600 s sleeps that cancellation must cut short, far above the
    /// 14 s a cooperative pool starved by the whole suite on 2 loaded cores took to resume a task (the queue itself
    /// adds at most `SleepQueue.coalescing`).
    private static let patience = Duration.seconds(120)

    @Test("a sleeper wakes at or after its deadline, not before")
    func wakesNotBeforeDeadline() async throws {
        let deadline = ContinuousClock.now + .milliseconds(40)
        try await SleepQueue.shared.sleep(until: deadline)
        let woke = ContinuousClock.now
        #expect(woke >= deadline)
        #expect(woke < deadline + Self.patience)
    }

    @Test("300 sleepers at once, deadlines spread over 60 ms and given out of order: each wakes at or after its own")
    func manySleepersEachOnTime() async throws {
        let start = ContinuousClock.now
        let early = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<300 {
                // 7 is coprime with 300: the deadlines arrive in a scrambled order, so the heap has work to do.
                let deadline = start + .microseconds(200 * ((index * 7) % 300))
                group.addTask {
                    try await SleepQueue.shared.sleep(until: deadline)
                    return ContinuousClock.now < deadline
                }
            }
            var early = 0
            for try await wokeEarly in group where wokeEarly { early += 1 }
            return early
        }
        #expect(early == 0)
    }

    /// The thread waits for the 600 s sleeper; each short sleep is a new earliest deadline, which `wait` signals after
    /// unlocking. A lost signal would leave a short sleeper waiting for the long one: the time limit fails that.
    @Test(
        "a new earliest deadline wakes the thread that waits for a later one, 100 times in a row",
        .timeLimit(.minutes(1)))
    func earlierDeadlineWakesTheThread() async throws {
        let start = ContinuousClock.now
        let long = Task { try await SleepQueue.shared.sleep(until: start + .seconds(600)) }
        defer { long.cancel() }
        for _ in 0..<100 {
            let deadline = ContinuousClock.now + .milliseconds(1)
            try await SleepQueue.shared.sleep(until: deadline)
            #expect(ContinuousClock.now >= deadline)
        }
        #expect(start.duration(to: .now) < Self.patience)
    }

    @Test("a deadline already past returns at once")
    func pastDeadline() async throws {
        let start = ContinuousClock.now
        try await SleepQueue.shared.sleep(until: start - .seconds(1))
        #expect(start.duration(to: .now) < Self.patience)
    }

    @Test("cancelling a sleeping task wakes it at once with CancellationError")
    func cancelWhileSleeping() async throws {
        let start = ContinuousClock.now
        let sleeper = Task { try await SleepQueue.shared.sleep(until: start + .seconds(600)) }
        try await Task.sleep(for: .milliseconds(20))
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(start.duration(to: .now) < Self.patience)
    }

    @Test("a task cancelled before it sleeps does not sleep")
    func cancelledBeforeSleeping() async throws {
        let start = ContinuousClock.now
        let sleeper = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await SleepQueue.shared.sleep(until: start + .seconds(600))
        }
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(start.duration(to: .now) < Self.patience)
    }

    @Test("a sleeper cancelled does not disturb the others: they still wake on time")
    func cancellationLeavesOthers() async throws {
        let start = ContinuousClock.now
        let cancelled = Task { try await SleepQueue.shared.sleep(until: start + .milliseconds(30)) }
        let kept = Task { () -> ContinuousClock.Instant in
            try await SleepQueue.shared.sleep(until: start + .milliseconds(60))
            return ContinuousClock.now
        }
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        let woke = try await kept.value
        #expect(woke >= start + .milliseconds(60))
    }

    @Test("FlowClock on ContinuousClock measures from its origin and sleeps in the queue for at least the delay")
    func flowClockOnContinuousClock() async throws {
        let clock = FlowClock(ContinuousClock())
        let before = clock.elapsed()
        #expect(before >= .zero)
        try await clock.sleep(for: .milliseconds(30))
        #expect(clock.elapsed() - before >= .milliseconds(30))
    }
}
