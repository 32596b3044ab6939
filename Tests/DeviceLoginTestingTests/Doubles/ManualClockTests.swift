import DeviceLoginTesting
import Testing

@Suite("ManualClock")
struct ManualClockTests {
    @Test("instants are offsets from zero with Duration arithmetic")
    func instantArithmetic() {
        let start = ManualClock.Instant.zero
        let later = start + .seconds(5)
        #expect(later.offset == .seconds(5))
        #expect(later - start == .seconds(5))
        #expect(start.duration(to: later) == .seconds(5))
        #expect(later - .seconds(2) == ManualClock.Instant(offset: .seconds(3)))
        #expect(start < later)
        var moving = start
        moving += .milliseconds(1500)
        #expect(moving == ManualClock.Instant(offset: .milliseconds(1500)))
        #expect(later.description == "+5.0 seconds")
    }

    @Test("a sleeper wakes only when time passes its deadline")
    func sleeperWakesAtDeadline() async throws {
        let clock = ManualClock()
        async let slept: Void = clock.sleep(until: .zero + .seconds(5))
        await clock.sleepers(atLeast: 1)
        #expect(clock.pendingDeadlines == [.zero + .seconds(5)])
        clock.advance(by: .seconds(4))
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .seconds(1))
        try await slept
        #expect(clock.sleeperCount == 0)
        #expect(clock.now == .zero + .seconds(5))
        #expect(clock.elapsed == .seconds(5))
    }

    @Test("sleeping until now or earlier returns at once")
    func pastDeadlineReturnsAtOnce() async throws {
        let clock = ManualClock(now: .zero + .seconds(10))
        try await clock.sleep(until: .zero + .seconds(10))
        try await clock.sleep(for: .zero)
        #expect(clock.sleeperCount == 0)
    }

    @Test("sleepers wake in deadline order")
    func wakeOrder() async throws {
        let clock = ManualClock()
        let order = Recorder()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for seconds in [3, 1, 2] {
                group.addTask {
                    try await clock.sleep(until: .zero + .seconds(seconds))
                    await order.append(seconds)
                }
            }
            await clock.sleepers(atLeast: 3)
            #expect(clock.pendingDeadlines == [1, 2, 3].map { .zero + .seconds($0) })
            clock.advance(to: .zero + .seconds(1))
            await order.waitForCount(1)
            clock.advance(to: .zero + .seconds(2))
            await order.waitForCount(2)
            clock.advance(to: .zero + .seconds(3))
            try await group.waitForAll()
        }
        #expect(await order.values == [1, 2, 3])
    }

    @Test("a cancelled sleeper throws CancellationError at once and is removed")
    func cancellation() async {
        let clock = ManualClock()
        let task = Task { try await clock.sleep(until: .zero + .seconds(60)) }
        await clock.sleepers(atLeast: 1)
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(clock.sleeperCount == 0)
        #expect(clock.now == .zero)
    }

    @Test("a task cancelled before it sleeps throws without registering")
    func cancelledBeforeSleeping() async {
        let clock = ManualClock()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await clock.sleep(until: .zero + .seconds(1))
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(clock.sleeperCount == 0)
    }

    @Test("time never goes back")
    func timeNeverGoesBack() {
        let clock = ManualClock(now: .zero + .seconds(10))
        clock.advance(to: .zero + .seconds(3))
        clock.advance(by: .seconds(-4))
        #expect(clock.now == .zero + .seconds(10))
    }

    @Test("advanceToNextDeadline jumps to the earliest sleeper")
    func advanceToNextDeadline() async throws {
        let clock = ManualClock()
        #expect(clock.advanceToNextDeadline() == nil)
        async let first: Void = clock.sleep(until: .zero + .seconds(7))
        async let second: Void = clock.sleep(until: .zero + .seconds(9))
        await clock.sleepers(atLeast: 2)
        #expect(clock.advanceToNextDeadline() == .zero + .seconds(7))
        try await first
        #expect(clock.sleeperCount == 1)
        #expect(clock.advanceToNextDeadline() == .zero + .seconds(9))
        try await second
    }

    @Test("sleepers(atLeast:) returns when its task is cancelled")
    func waitingForSleepersIsCancellable() async {
        let clock = ManualClock()
        let waiter = Task { await clock.sleepers(atLeast: 1) }
        waiter.cancel()
        await waiter.value
        #expect(clock.sleeperCount == 0)
    }

    @Test("requestedSleeps lists every sleep asked, in order: its deadline less the time it was asked at")
    func requestedSleeps() async throws {
        let clock = ManualClock(now: .zero + .seconds(10))
        #expect(clock.requestedSleeps.isEmpty)
        try await clock.sleep(until: .zero + .seconds(4))
        try await clock.withAutoAdvance {
            try await clock.sleep(for: .seconds(2))
            try await clock.sleep(until: clock.now + .milliseconds(500))
        }
        let cancelled = Task { try await clock.sleep(for: .seconds(60)) }
        await clock.sleepers(atLeast: 1)
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(clock.requestedSleeps == [.seconds(-6), .seconds(2), .milliseconds(500), .seconds(60)])
        #expect(clock.now == .zero + .milliseconds(12_500))
    }

    @Test("withAutoAdvance runs a sequential task through its sleeps in virtual time")
    func autoAdvance() async throws {
        let clock = ManualClock()
        let wakeTimes = try await clock.withAutoAdvance {
            var times: [Duration] = []
            for step in [5, 5, 10] {
                try await clock.sleep(for: .seconds(step))
                times.append(clock.elapsed)
            }
            return times
        }
        #expect(wakeTimes == [.seconds(5), .seconds(10), .seconds(20)])
        #expect(clock.now == .zero + .seconds(20))
        #expect(clock.sleeperCount == 0)
    }

    @Test("withAutoAdvance(whenSleeping: 2): a ticker beside the flow does not move time while the flow waits")
    func autoAdvanceWithATicker() async throws {
        let clock = ManualClock()
        let (atAnswer, atWake) = try await clock.withAutoAdvance(whenSleeping: 2) {
            try await withThrowingTaskGroup(of: (Duration, Duration)?.self) { group in
                group.addTask {
                    // The countdown: redrawn every virtual second until the flow ends.
                    while !Task.isCancelled { try? await clock.sleep(for: .seconds(1)) }
                    return nil
                }
                group.addTask {
                    // Waiting for the server in real time, with only the ticker asleep on the clock.
                    try await Task.sleep(for: .milliseconds(50))
                    let atAnswer = clock.elapsed
                    try await clock.sleep(for: .seconds(5))
                    return (atAnswer, clock.elapsed)
                }
                defer { group.cancelAll() }
                while let next = try await group.next() {
                    if let times = next { return times }
                }
                throw CancellationError()
            }
        }
        #expect(atAnswer == .zero)
        #expect(atWake == .seconds(5))
    }

    @Test("withAutoAdvance passes on the operation's error")
    func autoAdvanceRethrows() async {
        struct Failure: Error {}
        let clock = ManualClock()
        await #expect(throws: Failure.self) {
            try await clock.withAutoAdvance { () async throws -> Int in
                try await clock.sleep(for: .seconds(1))
                throw Failure()
            }
        }
        #expect(clock.now == .zero + .seconds(1))
    }
}

/// Collects values from concurrent tasks, and lets a test wait for a count without sleeping.
actor Recorder {
    private(set) var values: [Int] = []
    private var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    func append(_ value: Int) {
        values.append(value)
        let ready = waiters.filter { $0.count <= values.count }
        waiters.removeAll { $0.count <= values.count }
        for waiter in ready { waiter.continuation.resume() }
    }

    func waitForCount(_ count: Int) async {
        guard values.count < count else { return }
        await withCheckedContinuation { waiters.append((count, $0)) }
    }
}
