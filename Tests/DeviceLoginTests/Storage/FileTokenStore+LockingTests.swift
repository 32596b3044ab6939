import DeviceLoginTesting
import Foundation
import Testing

@testable import DeviceLogin
@testable import StoreCrashHelper

@Suite struct FileTokenStoreLockingTests {
    /// Counts how many bodies run at once.
    final class Occupancy: @unchecked Sendable {
        private let lock = NSLock()
        private var inside = 0
        private(set) var most = 0
        private(set) var entries = 0

        func enter() {
            lock.withLock {
                inside += 1
                entries += 1
                most = max(most, inside)
            }
        }
        func leave() { lock.withLock { inside -= 1 } }
    }

    /// `flock` locks belong to an open file description: each call opens the lock file anew, so tasks of one
    /// process exclude each other exactly as two processes do.
    @Test func tasksWithSeparateDescriptorsExcludeEachOther() async throws {
        let (root, store) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let occupancy = Occupancy()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    try await store.withExclusiveAccess(profile: "default") {
                        occupancy.enter()
                        try await Task.sleep(for: .milliseconds(2))
                        occupancy.leave()
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(occupancy.entries == 20)
        #expect(occupancy.most == 1)
        #expect(try permissions(root + "/default.lock") == 0o600)
    }

    @Test func twoProcessesIncrementingUnderTheLockLoseNoUpdate() async throws {
        let (root, store) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await store.save(crashRecord(profile: "counter", number: 0))
        let processes = try (0..<2).map { _ in try HelperProcess.start(["increment", root, "counter", "100"]).0 }
        for process in processes {
            #expect(await HelperProcess.exitStatus(of: process) == 0)
        }
        let count = try await store.load(profile: "counter")?.tokens?.issuedAt.timeIntervalSince1970
        #expect(count == 200)
    }

    @Test func differentProfilesHaveDifferentLocks() async throws {
        let (root, store) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let inner = try await store.withExclusiveAccess(profile: "a") {
            try await store.withExclusiveAccess(profile: "b") { "both held" }
        }
        #expect(inner == "both held")
    }

    @Test func waitingBacksOffOnTheInjectedClockThenTimesOut() async throws {
        let clock = ManualClock()
        let (root, store) = try makeStore(clock: clock, lockTimeout: .seconds(1))
        defer { try? FileManager.default.removeItem(atPath: root) }
        let holder = try holdLock(root + "/default.lock")
        defer { close(holder) }

        let error = try await clock.withAutoAdvance {
            try await storageError {
                try await store.withExclusiveAccess(profile: "default") { _ = Issue.record("entered a held lock") }
            }
        }
        #expect(error.message.contains(root + "/default.lock"))
        let slept = clock.requestedSleeps
        #expect(Array(slept.prefix(7)) == [2, 4, 8, 16, 32, 64, 100].map { Duration.milliseconds($0) })
        #expect(slept.reduce(.zero, +) >= .seconds(1))
        #expect(slept.reduce(.zero, +) < .seconds(1) + .milliseconds(100))
        #expect(clock.elapsed == slept.reduce(.zero, +))
    }

    @Test func cancellationStopsTheWait() async throws {
        let (root, store) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let holder = try holdLock(root + "/default.lock")
        defer { close(holder) }

        let waiter = Task {
            try await store.withExclusiveAccess(profile: "default") { _ = Issue.record("entered a held lock") }
        }
        try await Task.sleep(for: .milliseconds(20))
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
    }

    @Test func theLockIsFreeAgainAfterTheBodyThrows() async throws {
        let (root, store) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: root) }
        struct Failure: Error {}
        await #expect(throws: Failure.self) {
            try await store.withExclusiveAccess(profile: "default") { throw Failure() }
        }
        let holder = try holdLock(root + "/default.lock")
        close(holder)
    }

    // MARK: Deleting the lock file (issue 17: `logout` left an empty lock file)

    @Test("remove deletes the profile's lock file, holding it, and nothing is left of the profile")
    func removeDeletesTheLockFile() async throws {
        let (root, store) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await store.withExclusiveAccess(profile: "default") {
            try await store.save(try Fixtures.record(tokens: Fixtures.tokens()))
        }
        try await store.withExclusiveAccess(profile: "other") {}
        try await store.remove(profile: "default")
        #expect(try FileManager.default.contentsOfDirectory(atPath: root) == ["other.lock"])
        // The next sign-in makes it again.
        try await store.withExclusiveAccess(profile: "default") {}
        #expect(FileManager.default.fileExists(atPath: root + "/default.lock"))
    }

    @Test("remove keeps the lock file while a pending sign-in of the profile remains")
    func removeKeepsTheLockOfAPendingSignIn() async throws {
        let (root, store) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await store.save(try Fixtures.record(tokens: Fixtures.tokens()))
        try write("{}", to: root + "/default.pending")
        try await store.remove(profile: "default")
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: root)) == ["default.pending", "default.lock"])
    }

    @Test("remove creates no directory and no lock file when there is no directory")
    func removeWithoutADirectoryCreatesNothing() async throws {
        let (root, _) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let store = FileTokenStore(directory: root + "/missing")
        try await store.remove(profile: "default")
        #expect(!FileManager.default.fileExists(atPath: root + "/missing"))
    }

    /// A waiter opened the lock file before its holder deleted it; a newcomer then created a new lock file and holds
    /// it. When the old holder lets go, the waiter's lock is on a file nobody else uses: it must lock the new one.
    @Test("a waiter whose lock file was deleted locks the file now at the path, never the deleted one")
    func aWaiterOfADeletedLockFileTakesTheNewOne() async throws {
        let clock = ManualClock()
        let (root, store) = try makeStore(clock: clock)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let path = root + "/default.lock"
        let first = try holdLock(path)
        let occupancy = Occupancy()
        let waiter = Task {
            try await store.withExclusiveAccess(profile: "default") { occupancy.enter() }
        }
        await clock.sleepers(atLeast: 1)
        // The remover deletes the file while holding it; a newcomer creates and locks a new one; the remover lets go.
        try #require(unlink(path) == 0)
        let second = try holdLock(path)
        close(first)
        clock.advance(by: .milliseconds(2))
        // The waiter took the old file's lock, saw it is not the file at the path, and now waits for the new one
        // (or, wrongly, entered).
        while clock.sleeperCount == 0, occupancy.entries == 0 { try await Task.sleep(for: .milliseconds(1)) }
        #expect(occupancy.entries == 0, "entered while another held the lock file at the path")
        close(second)
        clock.advance(by: .milliseconds(100))
        try await waiter.value
        #expect(occupancy.entries == 1)
    }
}

/// Takes the lock with a descriptor of the test's own, as another process would.
func holdLock(_ path: String) throws -> Int32 {
    let fd = open(path, O_RDWR | O_CREAT, 0o600)
    try #require(fd >= 0)
    try #require(flock(fd, LOCK_EX | LOCK_NB) == 0, "the lock is already held")
    return fd
}
