#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
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
    /// lock is held, temporary files a killed writer left behind are dealt with
    /// (`removeStaleTemporaryFiles(profile:holdingLock:)`).
    ///
    /// The lock file may be deleted by ``remove(profile:)`` (see `takeLock(at:)` for why that is safe), and is
    /// created again here when it is missing, as is the directory.
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
        let fd = try await takeLock(at: path)
        // Closing the descriptor releases the lock too; unlocking first makes the order explicit.
        defer {
            POSIX.unlock(fd)
            POSIX.closeFile(fd)
        }
        // No writer of this profile is between writing and renaming now: what temporary files remain are stale.
        try await BlockingIO.run { [self] in removeStaleTemporaryFiles(profile: name, holdingLock: true) }
        return try await body()
    }

    /// Opens the lock file at `path` (creating it and the directory when missing), waits for its lock, and returns
    /// the descriptor holding it.
    ///
    /// **Deleting a lock file safely.** ``remove(profile:)`` unlinks the lock file while holding its lock. A process
    /// that opened the file before the unlink and waits for it then gets a lock on a file nobody else will ever open,
    /// while a newcomer creates a new file under the same name and locks that: two holders at once. So a lock counts
    /// only when the descriptor still is the file at `path` (same device and inode, `isLockFile(_:at:)`); when it is
    /// not, the lock is dropped and the file at `path` opened and locked anew. The remover unlinks only while holding
    /// the lock, so whoever holds a lock that passes this check is alone: any other holder either holds the same
    /// file (impossible, the lock is exclusive) or a file that was unlinked before this one was locked, and that
    /// holder finds so and lets go without doing anything.
    func takeLock(at path: String) async throws -> Int32 {
        while true {
            let fd = try await BlockingIO.run { [self] in
                try ensureDirectory()
                do {
                    return try POSIX.openLockFile(path)
                } catch let error as SystemCallError {
                    throw storageError(error, doing: "open the lock file", path: path)
                }
            }
            do {
                try await acquire(fd, path: path)
            } catch {
                POSIX.closeFile(fd)
                throw error
            }
            if isLockFile(fd, at: path) { return fd }
            // The file was deleted (or replaced) while this waited for it: lock what is at the path now.
            POSIX.unlock(fd)
            POSIX.closeFile(fd)
        }
    }

    /// Whether `fd` is the file at `path` now: not deleted or replaced since it was opened.
    func isLockFile(_ fd: Int32, at path: String) -> Bool {
        guard let held = try? POSIX.fileStatus(fd), let named = try? POSIX.pathStatus(path) else { return false }
        return held.identity == named.identity
    }

    /// Deletes profile `name`'s lock file when nothing of the profile is left to lock for: no record and no pending
    /// sign-in. Call only while holding that lock (see `takeLock(at:)`). Best effort: a lock file left is harmless.
    func removeLockFileIfUnused(profile name: String) {
        guard let lock = try? lockPath(profile: name), let record = try? filePath(profile: name),
            let pending = try? pendingPath(profile: name), Self.isMissing(record), Self.isMissing(pending)
        else { return }
        if (try? POSIX.removeFile(lock)) == true { try? POSIX.flushDirectory(directory) }
    }

    /// Whether nothing is at `path` (false also when that cannot be told).
    private static func isMissing(_ path: String) -> Bool {
        do {
            return try POSIX.pathStatus(path) == nil
        } catch {
            return false
        }
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

    /// The most of a failure's message the lock file keeps.
    static let maximumFailureMessageBytes = 512

    /// Writes the failure into the profile's lock file, which the caller holds: `failed_at <Unix seconds>`, a newline,
    /// the message (cut to 512 bytes, `maximumFailureMessageBytes`). Best effort: a failure not noted is only not shared.
    public func recordRefreshFailure(profile name: String, at failedAt: Date, message: String) async {
        guard let path = try? lockPath(profile: name) else { return }
        let seconds = failedAt.timeIntervalSince1970
        guard seconds.isFinite else { return }
        let text =
            "failed_at \(seconds)\n"
            + String(decoding: Array(message.utf8.prefix(Self.maximumFailureMessageBytes)), as: UTF8.self)
        _ = try? await BlockingIO.run {
            guard let fd = try? POSIX.openExistingFile(path, forWriting: true) else { return }
            defer { POSIX.closeFile(fd) }
            try? POSIX.truncate(fd)
            try? POSIX.writeFully(fd, Array(text.utf8))
        }
    }

    /// The failure written in the profile's lock file, if it holds one in the form ``recordRefreshFailure(profile:at:message:)``
    /// writes; nil for anything else (an empty lock file, a torn write).
    public func lastRefreshFailure(profile name: String) async -> (at: Date, message: String)? {
        guard let path = try? lockPath(profile: name) else { return nil }
        let bytes: [UInt8]? = try? await BlockingIO.run { () throws -> [UInt8]? in
            guard let fd = try? POSIX.openExistingFile(path, forWriting: false) else { return nil }
            defer { POSIX.closeFile(fd) }
            return try? POSIX.readUpTo(fd, limit: Self.maximumFailureMessageBytes + 64)
        }
        guard let bytes, let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        let head = String(decoding: bytes[..<newline], as: UTF8.self)
        guard head.hasPrefix("failed_at "), let seconds = Double(head.dropFirst("failed_at ".count)), seconds.isFinite
        else { return nil }
        return (Date(timeIntervalSince1970: seconds), String(decoding: bytes[(newline + 1)...], as: UTF8.self))
    }
}
