#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension FileTokenStore {
    /// The first pause between two attempts at a held lock: 2 ms, doubling up to ``maximumLockBackoff``.
    static let initialLockBackoff = Duration.milliseconds(2)
    /// The longest pause between two attempts at a held lock: 100 ms.
    static let maximumLockBackoff = Duration.milliseconds(100)

    /// Runs `body` while holding an exclusive `flock` on the profile's lock file.
    ///
    /// Each call opens the lock file anew, so the lock also excludes other tasks of this process (`flock` locks
    /// belong to an open file description). Waiting never blocks a thread: a non-blocking attempt is repeated
    /// after sleeps on the store's clock (2 ms doubling to 100 ms) until ``lockTimeout`` has been slept. Once the
    /// lock is held, temporary files a killed writer left behind are removed
    /// (`removeStaleTemporaryFiles(profile:holdingLock:)`).
    /// - Parameters:
    ///   - name: The profile name.
    ///   - body: The critical section.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws; ``DeviceLoginError`` with code ``DeviceLoginError/Code/storage`` when the lock
    ///   file cannot be opened or the wait times out; `CancellationError` when cancelled while waiting.
    public func withExclusiveAccess<Value: Sendable>(
        profile name: String,
        _ body: @Sendable () async throws -> Value
    ) async throws -> Value {
        let path = try lockPath(profile: name)
        let fd = try await BlockingIO.run { [self] in
            try ensureDirectory()
            do {
                return try POSIX.openFile(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, mode: 0o600)
            } catch let error as SystemCallError {
                throw storageError(error, doing: "open the lock file", path: path)
            }
        }
        // Closing the descriptor releases the lock too; unlocking first makes the order explicit.
        defer { POSIX.closeFile(fd) }
        try await acquire(fd, path: path)
        defer { POSIX.unlock(fd) }
        // No writer of this profile is between writing and renaming now: what temporary files remain are stale.
        try await BlockingIO.run { [self] in removeStaleTemporaryFiles(profile: name, holdingLock: true) }
        return try await body()
    }

    private func acquire(_ fd: Int32, path: String) async throws {
        var pause = Self.initialLockBackoff
        var waited = Duration.zero
        while true {
            do {
                if try POSIX.tryLock(fd) { return }
            } catch let error as SystemCallError {
                throw storageError(error, doing: "lock", path: path)
            }
            guard waited < lockTimeout else {
                throw DeviceLoginError(
                    .storage,
                    "another process has held the lock \(path) for \(waited.components.seconds) seconds",
                    hint: "wait for the other process to finish, or stop it", reason: .storeLocked(path: path)
                )
            }
            try await self.clock.sleep(for: pause)
            waited += pause
            pause = min(pause * 2, Self.maximumLockBackoff)
        }
    }
}
