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
}
