import Testing

@testable import DeviceLogin

#if canImport(Glibc)
import Glibc
#endif

@Suite("BlockingIO: blocking calls on threads of its own")
struct BlockingIOTests {
    private struct Refused: Error, Equatable {}

    @Test("A result and an error come back to the caller; the work runs on another thread")
    func resultsAndErrors() async throws {
        let caller = pthread_self()
        let ranElsewhere = try await BlockingIO.run { pthread_equal(pthread_self(), caller) == 0 }
        #expect(ranElsewhere)
        #expect(try await BlockingIO.run { 6 * 7 } == 42)
        await #expect(throws: Refused()) { try await BlockingIO.run { () throws -> Int in throw Refused() } }
    }

    @Test("As many blocking calls as there are threads run at once; more queue and still run")
    func concurrentCalls() async throws {
        // Each of the first calls waits until all of them have started: they finish only if they run side by side.
        let width = BlockingThreads.maximumThreads
        let started = Locked(0)
        let results = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
            for index in 0..<width + 3 {
                group.addTask {
                    try await BlockingIO.run {
                        let arrived = started.withLock { count in
                            count += 1
                            return count
                        }
                        guard arrived <= width else { return (index, true) }
                        // Waits (at most 5 s) for the others: on fewer threads than `width`, it waits in vain.
                        for _ in 0..<5_000 where started.withLock({ $0 }) < width { usleep(1_000) }
                        return (index, started.withLock { $0 } >= width)
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.map(\.0).sorted() == Array(0..<width + 3))
        #expect(results.allSatisfy { $0.1 }, "a call waited alone: fewer threads ran than the maximum")
        #expect(started.withLock { $0 } == width + 3)
        #expect(BlockingThreads.shared.threadCount <= BlockingThreads.maximumThreads)
    }
}
