import Testing

@testable import DeviceLogin
@testable import DeviceLoginCLI

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The CLI runs its async work on one ``SerialThreadExecutor`` (issue 19: a waiting login made 30 threads on the
/// default executor, 6 on this one). These tests pin what that relies on: every job of a preferring task, of its
/// child tasks and of the default actors it calls runs on the executor's one thread, one at a time.
@Suite("SerialThreadExecutor: a preferring task's jobs run on its one thread")
struct SerialThreadExecutorTests {
    private actor Counter {
        var threads: [pthread_t] = []
        func note() { threads.append(pthread_self()) }
    }

    private static func thread(of executor: SerialThreadExecutor) async -> pthread_t {
        await Task(executorPreference: executor) { pthread_self() }.value
    }

    @Test("a preferring task, its children, a sleep's resumption and a default actor all run on the one thread")
    func everythingOnOneThread() async throws {
        let executor = SerialThreadExecutor()
        #expect(executor.start())
        let expected = await Self.thread(of: executor)
        #expect(pthread_equal(expected, pthread_self()) == 0)
        let counter = Counter()
        let seen = try await Task(executorPreference: executor) { () async throws -> [pthread_t] in
            var seen = [pthread_self()]
            try await SleepQueue.shared.sleep(until: .now + .milliseconds(5))
            seen.append(pthread_self())
            await withTaskGroup(of: pthread_t.self) { group in
                for _ in 0..<8 { group.addTask { pthread_self() } }
                for await thread in group { seen.append(thread) }
            }
            for _ in 0..<4 { await counter.note() }
            return seen
        }.value
        let noted = await counter.threads
        #expect(seen.count == 10)
        #expect(noted.count == 4)
        #expect((seen + noted).allSatisfy { pthread_equal($0, expected) != 0 })
    }

    @Test("jobs never overlap: 200 children that each stay a while and check they were alone")
    func oneJobAtATime() async {
        let executor = SerialThreadExecutor()
        #expect(executor.start())
        #expect(await Self.overlaps(preferring: executor) == 0)
    }

    /// How many of 200 child tasks found another one running beside them. Each stays without suspending for a
    /// while (where the default executor's threads would overlap), so only a serial executor gives 0 every time.
    private static func overlaps(preferring executor: (any TaskExecutor)?) async -> Int {
        let running = Locked(0)
        return await Task(executorPreference: executor) { () async -> Int in
            await withTaskGroup(of: Int.self) { group in
                for _ in 0..<200 {
                    group.addTask {
                        let entered = running.withLock { count -> Int in
                            count += 1
                            return count
                        }
                        var sum = 0
                        for value in 0..<50_000 { sum &+= value &* value }
                        let left = running.withLock { count -> Int in
                            defer { count -= 1 }
                            return count
                        }
                        return entered == 1 && left == 1 && sum != 0 ? 0 : 1
                    }
                }
                return await group.reduce(0, +)
            }
        }.value
    }

    /// Every resumption below comes from the sleep queue's thread while this executor's thread waits or is about to:
    /// the hand-over that `enqueue` signals after unlocking. A lost signal leaves the task waiting for ever, which the
    /// time limit turns into a failure.
    @Test(
        "jobs handed over from another thread while the executor's thread waits are never lost: 300 in a row",
        .timeLimit(.minutes(1)))
    func handOversFromAnotherThread() async throws {
        let executor = SerialThreadExecutor()
        #expect(executor.start())
        let expected = await Self.thread(of: executor)
        let resumed = try await Task(executorPreference: executor) { () async throws -> Int in
            var resumed = 0
            for _ in 0..<300 {
                try await SleepQueue.shared.sleep(until: .now + .microseconds(100))
                if pthread_equal(pthread_self(), expected) != 0 { resumed += 1 }
            }
            return resumed
        }.value
        #expect(resumed == 300)
    }

    @Test("start is idempotent: a second call keeps the one thread")
    func startTwice() async {
        let executor = SerialThreadExecutor()
        #expect(executor.start())
        let first = await Self.thread(of: executor)
        #expect(executor.start())
        let second = await Self.thread(of: executor)
        #expect(pthread_equal(first, second) != 0)
    }

    // MARK: The executor as a loop host (issue 19): the sleeps and the HTTP loop on its thread

    /// An executor and a sleep queue it serves, both new (the shared queue keeps its own thread in tests).
    private static func hostedPair() -> (SerialThreadExecutor, SleepQueue) {
        let queue = SleepQueue()
        let executor = SerialThreadExecutor(sleeps: queue)
        queue.serve(by: executor)
        return (executor, queue)
    }

    @Test(
        "sleeps it hosts resume on its thread, never before their deadlines: 300 in a row", .timeLimit(.minutes(1)))
    func hostedSleeps() async throws {
        let (executor, queue) = Self.hostedPair()
        #expect(executor.start())
        let expected = await Self.thread(of: executor)
        let (onThread, early) = try await Task(executorPreference: executor) { () async throws -> (Int, Int) in
            var onThread = 0
            var early = 0
            for round in 0..<300 {
                let deadline = ContinuousClock.now + .microseconds(100 + (round % 7) * 300)
                try await queue.sleep(until: deadline)
                if ContinuousClock.now < deadline { early += 1 }
                if pthread_equal(pthread_self(), expected) != 0 { onThread += 1 }
            }
            return (onThread, early)
        }.value
        #expect(onThread == 300)
        #expect(early == 0)
    }

    @Test(
        "a sleep begun on another thread ends the host's longer wait: it wakes on time, not at the host's deadline",
        .timeLimit(.minutes(1)))
    func sleepFromAnotherThreadInterrupts() async throws {
        let (executor, queue) = Self.hostedPair()
        #expect(executor.start())
        // The host waits for this one, 30 s away, before the other sleep begins.
        let long = Task(executorPreference: executor) { try await queue.sleep(until: .now + .seconds(30)) }
        try await Task.sleep(for: .milliseconds(50))
        let started = ContinuousClock.now
        // Not preferring the executor: this task's jobs run on the global executor's threads.
        try await Task.detached { try await queue.sleep(until: .now + .milliseconds(20)) }.value
        let took = started.duration(to: .now)
        long.cancel()
        #expect(took >= .milliseconds(20))
        #expect(took < .seconds(10))
        await #expect(throws: CancellationError.self) { try await long.value }
    }

    /// A stand-in for the HTTP loop: `wait` sleeps on a condition until interrupted (kept until the next wait, as
    /// `curl_multi_wakeup` is) or until its time is up, and each call is counted.
    private final class FakeDriver: LoopDriver, @unchecked Sendable {
        private let mutex = PThreadObjects.makeMutex()
        private let condition = PThreadObjects.makeMonotonicCondition()
        private var pending = false
        private var counts = (drives: 0, waits: 0, shortestWait: Int32.max)
        private var threads: [pthread_t] = []

        func drive() -> Bool {
            pthread_mutex_lock(mutex)
            counts.drives += 1
            threads.append(pthread_self())
            pthread_mutex_unlock(mutex)
            return false
        }

        func wait(milliseconds: Int32) {
            pthread_mutex_lock(mutex)
            counts.waits += 1
            counts.shortestWait = min(counts.shortestWait, milliseconds)
            threads.append(pthread_self())
            if !pending {
                PThreadObjects.wait(condition, mutex, for: .milliseconds(Int64(min(milliseconds, 60_000))))
            }
            pending = false
            pthread_mutex_unlock(mutex)
        }

        func interrupt() {
            pthread_mutex_lock(mutex)
            pending = true
            pthread_mutex_unlock(mutex)
            pthread_cond_signal(condition)
        }

        var seen: (drives: Int, waits: Int, shortestWait: Int32, threads: [pthread_t]) {
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return (counts.drives, counts.waits, counts.shortestWait, threads)
        }
    }

    @Test(
        "once it adopts a driver it waits there, on its own thread: jobs from other threads and hosted sleeps end the wait",
        .timeLimit(.minutes(1)))
    func adoptedDriver() async throws {
        let (executor, queue) = Self.hostedPair()
        #expect(executor.start())
        let expected = await Self.thread(of: executor)
        let driver = FakeDriver()
        executor.adopt(driver)
        // 200 tasks started from the global executor's threads, each a job handed to the waiting host.
        var handedOver = 0
        for _ in 0..<200 {
            let thread = await Task(executorPreference: executor) { pthread_self() }.value
            if pthread_equal(thread, expected) != 0 { handedOver += 1 }
        }
        #expect(handedOver == 200)
        // A sleep the host serves: the driver's wait is bounded by its deadline, and it ends on time.
        let deadline = ContinuousClock.now + .milliseconds(30)
        let woke = try await Task(executorPreference: executor) { () async throws -> ContinuousClock.Instant in
            try await queue.sleep(until: deadline)
            return .now
        }.value
        #expect(woke >= deadline)
        #expect(deadline.duration(to: woke) < .seconds(5))
        let seen = driver.seen
        #expect(seen.drives > 0)
        #expect(seen.waits > 0)
        // The sleep bounded a wait: 30 ms, in whole milliseconds rounded up.
        #expect(seen.shortestWait <= 31)
        #expect(seen.threads.allSatisfy { pthread_equal($0, expected) != 0 })
    }
}
