#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension FileTokenStore {
    /// The largest pending-authorization file read: 64 KiB.
    public static let maximumPendingFileBytes = 64 << 10

    /// The file holding a profile's pending sign-in (``PendingAuthorization``): `<profile>.pending` beside the
    /// profile's file. Its name does not end in `.json`, so it is never taken for a profile.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/configuration`` for an invalid name.
    public func pendingPath(profile name: String) throws -> String {
        try file(ofProfile: name, suffix: ".pending")
    }

    /// The lock file held by the one process polling a profile's pending sign-in: `<profile>.pending.lock`, holding
    /// that process's ID. It is not the profile's own lock, which every refresh and save of the profile takes for a
    /// moment and which a poller must not hold for minutes.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/configuration`` for an invalid name.
    public func pendingLockPath(profile name: String) throws -> String {
        try file(ofProfile: name, suffix: ".pending.lock")
    }

    /// The file `<profile><suffix>` in the store's directory, for a valid profile name.
    private func file(ofProfile name: String, suffix: String) throws -> String {
        try Profile.validate(name: name)
        return Self.join(directory, name + suffix)
    }

    /// Reads a profile's pending sign-in, with the checks a token file gets: a regular file of this user, mode
    /// `0600`, no symbolic link, at most ``maximumPendingFileBytes``.
    /// - Parameter name: The profile name.
    /// - Returns: The pending sign-in, or nil when there is none.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/storage`` when the file is unsafe or corrupt,
    ///   naming it and what to do; ``DeviceLoginError/Code/insecureEndpoint`` or
    ///   ``DeviceLoginError/Code/configuration`` when an endpoint it names fails the HTTPS policy or is not its
    ///   profile's server's (``PendingAuthorization/checkServer(savedProfile:)``).
    public func loadPending(profile name: String) async throws -> PendingAuthorization? {
        let path = try pendingPath(profile: name)
        let bytes = try await BlockingIO.run { [self] () throws -> [UInt8]? in
            guard try checkDirectory() else { return nil }
            return try readPrivateFile(
                at: path, kind: "pending sign-in file", maximumBytes: Self.maximumPendingFileBytes)
        }
        guard let bytes else { return nil }
        let hint = "remove it (rm \(path)) and sign in again"
        let pending: PendingAuthorization
        do {
            pending = try JSONDecoder().decode(PendingAuthorization.self, from: Data(bytes))
        } catch let error as DeviceLoginError {
            throw DeviceLoginError(
                .storage, "the pending sign-in file \(path) is corrupt: \(error.message)", hint: hint)
        } catch {
            throw DeviceLoginError(.storage, "the pending sign-in file \(path) is corrupt", hint: hint)
        }
        guard pending.version <= PendingAuthorization.currentVersion else {
            throw DeviceLoginError(
                .storage,
                "the pending sign-in file \(path) has format version \(pending.version), newer than this "
                    + "version understands", hint: "use a newer version, or remove it and sign in again")
        }
        guard pending.name == name else {
            throw DeviceLoginError(
                .storage, "the pending sign-in file \(path) is for profile \"\(pending.name)\", not \"\(name)\"",
                hint: hint)
        }
        // Its endpoints pass the policy one on the command line passes, and are its profile's server's: nothing is
        // sent to an endpoint only a file names. A saved profile that cannot be read is no reference.
        let saved = (try? await load(profile: name))?.profile
        do {
            try pending.checkServer(savedProfile: saved)
        } catch var error as DeviceLoginError {
            error.message = "the pending sign-in file \(path) is refused: " + error.message
            error.hint = "remove it (rm \(path)) and start the sign-in again with `device-login login`"
            throw error
        }
        return pending
    }

    /// Saves a profile's pending sign-in atomically and durably, as a record is saved (a new `0600` file, flushed,
    /// renamed over the old one), while holding the profile's lock (``withExclusiveAccess(profile:_:)``) — so do not
    /// call it from inside that section.
    /// - Parameter pending: The pending sign-in; its profile's name is the key.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/storage``.
    public func savePending(_ pending: PendingAuthorization) async throws {
        let path = try pendingPath(profile: pending.name)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let bytes: [UInt8]
        do {
            bytes = Array(try encoder.encode(pending)) + [UInt8(ascii: "\n")]
        } catch {
            throw DeviceLoginError(.storage, "could not encode the pending sign-in for \(path)")
        }
        try await withExclusiveAccess(profile: pending.name) { [self] in
            try await BlockingIO.run { [self] in
                try ensureDirectory()
                try writeAtomically(bytes, to: path, kind: "pending sign-in file")
            }
        }
    }

    /// Deletes a profile's pending sign-in, if there is one, while holding the profile's lock.
    /// - Parameter name: The profile name.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/storage``.
    public func removePending(profile name: String) async throws {
        let path = try pendingPath(profile: name)
        guard try await BlockingIO.run({ [self] in try checkDirectory() }) else { return }
        try await withExclusiveAccess(profile: name) { [self] in
            try await BlockingIO.run { [self] in try removeFile(at: path, kind: "pending sign-in file") }
        }
    }

    /// Runs `body` as the one process that polls profile `name`'s pending sign-in: holding an exclusive `flock` on
    /// ``pendingLockPath(profile:)``, with this process's ID written in the file for whoever asks next.
    ///
    /// It does not wait: when another process (or task) polls already, it throws at once, naming that process.
    /// The kernel drops the lock when its holder dies, so a killed poller never blocks the next one.
    /// - Parameters:
    ///   - name: The profile name.
    ///   - body: What to do while polling alone.
    /// - Returns: What `body` returns.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/storage`` and reason
    ///   ``DeviceLoginError/Reason/Kind/pendingSignInBusy`` (its ``DeviceLoginError/Reason/processID``
    ///   when known) when another polls; what `body` throws.
    public func withPendingPolling<Value: Sendable>(
        profile name: String, _ body: @Sendable () async throws -> Value
    ) async throws -> Value {
        let path = try pendingLockPath(profile: name)
        let fd = try await BlockingIO.run { [self] () throws -> Int32 in
            try ensureDirectory()
            let fd: Int32
            do {
                fd = try POSIX.openLockFile(path)
            } catch let error as SystemCallError {
                throw storageError(error, doing: "open the lock file", path: path)
            }
            do {
                guard try POSIX.tryLock(fd) else {
                    let holder = Self.processID(in: (try? POSIX.readUpTo(fd, limit: 32)) ?? [])
                    POSIX.closeFile(fd)
                    throw DeviceLoginError(
                        .storage,
                        "another process\(holder.map { " (pid \($0))" } ?? "") is already polling the pending "
                            + "sign-in of profile '\(name)'",
                        hint: "wait for it to finish, or stop it",
                        reason: .pendingSignInBusy(path: path, processID: holder)
                    )
                }
                try POSIX.truncate(fd)
                try POSIX.writeFully(fd, Array("\(POSIX.processID)\n".utf8))
            } catch let error as SystemCallError {
                POSIX.closeFile(fd)
                throw storageError(error, doing: "lock", path: path)
            }
            return fd
        }
        defer {
            POSIX.unlock(fd)
            POSIX.closeFile(fd)
        }
        return try await body()
    }

    /// The process ID a poller wrote in the lock file: decimal digits and a newline; nil for anything else.
    static func processID(in bytes: [UInt8]) -> Int? {
        let digits = bytes.prefix { $0 != UInt8(ascii: "\n") }
        guard !digits.isEmpty, digits.count <= 10,
            digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return nil }
        return Int(String(decoding: digits, as: UTF8.self)).flatMap { $0 > 0 ? $0 : nil }
    }
}
