#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A ``TokenStore`` that keeps one JSON file per profile in a private directory: the default on Linux.
///
/// **Where.** `$DEVICE_LOGIN_HOME` when set, else `$XDG_STATE_HOME/device-login`, else
/// `~/.local/state/device-login` (see ``defaultDirectory(environment:)``). Profile `work` lives in `work.json`,
/// its lock in `work.lock`, and the DPoP key of a profile that uses DPoP in `work.dpop.jwk`
/// (``saveDPoPKey(_:profile:)``).
///
/// **Who may read.** The directory is created `0700` and files `0600`. On every read the directory and the
/// file are checked: a file or directory that other users can access, or that another user owns, is refused
/// with an error naming it and the `chmod` to run — tokens are never read from a place others could have
/// read or planted them. Symbolic links are not followed.
///
/// **Atomic and durable writes.** A record is written to a new temporary file in the same directory (created
/// with `O_EXCL`, mode `0600`), flushed with `fsync`, renamed over the old file, and the directory is flushed.
/// A reader — or a process killed at any moment — sees the old record or the new one, never a mix. A process
/// killed between the create and the rename can leave a `.<profile>.json.<random>.tmp` file behind, which may
/// hold the only copy of a rotated refresh token. The next load or save of the profile settles it while holding the
/// profile's lock (`removeStaleTemporaryFiles(profile:holdingLock:)`): a complete record of the same profile, newer
/// than the one in place by its ``ProfileRecord/revision``, is renamed into place; anything else is removed.
///
/// **Ready before a sign-in.** ``checkReady(profile:)`` finds the problems a save would meet — an unsafe or
/// symbolic-linked directory, lock file or token file, a directory where nothing can be written — before the person
/// is asked to approve anything.
///
/// **Never destroys what it cannot read.** A corrupt, oversized (over ``maximumFileBytes``) or unreadable file is
/// reported with ``DeviceLoginError/Code/storage``, naming the file and what to do; it is not overwritten or
/// deleted behind the user's back.
///
/// **Tokens elsewhere.** A profile whose ``Profile/tokenStore`` names another store keeps only its settings in the
/// file; its tokens rest in that store (`FileTokenStore+KeyStores.swift`), and the lock stays this store's.
///
/// **Cross-process lock.** ``withExclusiveAccess(profile:_:)`` takes a `flock` on `<profile>.lock`. It asks
/// without waiting (`LOCK_NB`) and sleeps between attempts on the injected clock, so no thread of Swift's
/// cooperative pool ever blocks on the lock, and cancellation stops the wait. The kernel drops the lock when
/// its holder dies, so a crash never leaves a stale lock. File I/O runs off the cooperative pool.
///
/// ```swift
/// let store = try FileTokenStore(environment: ProcessInfo.processInfo.environment)
/// try await store.save(ProfileRecord(profile: profile, tokens: tokens))
/// let record = try await store.load(profile: profile.name)
/// ```
public struct FileTokenStore: TokenStore {
    /// The largest file read: 1 MiB. A larger one is refused as corrupt.
    public static let maximumFileBytes = 1 << 20
    /// The directory name under the XDG state directory: `device-login`.
    public static let directoryName = "device-login"

    /// The directory holding the profile files.
    public let directory: String
    /// How long ``withExclusiveAccess(profile:_:)`` waits for another process before giving up.
    public let lockTimeout: Duration
    /// The lock timeout when none is given: 60 seconds, longer than a refresh request may take.
    public static let defaultLockTimeout = Duration.seconds(60)
    let clock: any Clock<Duration>
    /// The kernel keyring of the profiles whose tokens rest there (``TokenStoreKind/keyring``).
    public let keyring: KeyringTokenStore.Keyring

    /// Creates a store in `directory`, which is created (mode `0700`) on the first write.
    /// - Parameters:
    ///   - directory: An absolute directory path.
    ///   - clock: The clock the lock waits on; default ``SystemTime/clock``.
    ///   - lockTimeout: How long to wait for another process's lock; default ``defaultLockTimeout``.
    ///   - keyring: The kernel keyring for profiles that keep their tokens there; default the persistent one.
    public init(
        directory: String,
        clock: any Clock<Duration> = SystemTime.clock,
        lockTimeout: Duration = defaultLockTimeout,
        keyring: KeyringTokenStore.Keyring = .persistent
    ) {
        var path = directory
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        self.directory = path
        self.clock = clock
        self.lockTimeout = lockTimeout
        self.keyring = keyring
    }

    /// Creates a store in the directory the environment names (``defaultDirectory(environment:)``).
    /// - Parameters:
    ///   - environment: The process environment, e.g. `ProcessInfo.processInfo.environment`.
    ///   - clock: The clock the lock waits on.
    ///   - lockTimeout: How long to wait for another process's lock.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/storage`` when no directory can be named.
    public init(
        environment: [String: String],
        clock: any Clock<Duration> = SystemTime.clock,
        lockTimeout: Duration = defaultLockTimeout
    ) throws {
        self.init(
            directory: try Self.defaultDirectory(environment: environment), clock: clock,
            lockTimeout: lockTimeout, keyring: try Self.keyring(environment: environment))
    }

    /// The environment variables ``defaultDirectory(environment:)`` reads.
    public static let environmentVariables = ["DEVICE_LOGIN_HOME", "XDG_STATE_HOME", "HOME", keyringVariable]

    /// The store's directory for an environment.
    ///
    /// `DEVICE_LOGIN_HOME` when set (used as is); else `$XDG_STATE_HOME/device-login` when `XDG_STATE_HOME` is an
    /// absolute path (the XDG Base Directory spec says to ignore a relative one); else
    /// `$HOME/.local/state/device-login`.
    /// - Parameter environment: The process environment.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/storage`` when `DEVICE_LOGIN_HOME` is not
    ///   absolute, or when neither it nor `HOME` is set.
    public static func defaultDirectory(environment: [String: String]) throws -> String {
        if let home = environment["DEVICE_LOGIN_HOME"], !home.isEmpty {
            guard home.hasPrefix("/") else {
                throw DeviceLoginError(
                    .storage, "DEVICE_LOGIN_HOME is not an absolute path: \(home)",
                    hint: "set DEVICE_LOGIN_HOME to an absolute directory path"
                )
            }
            return home
        }
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            return join(state, directoryName)
        }
        guard let home = environment["HOME"], home.hasPrefix("/") else {
            throw DeviceLoginError(
                .storage, "cannot find a directory for tokens: HOME is not set",
                hint: "set DEVICE_LOGIN_HOME or XDG_STATE_HOME to an absolute directory path"
            )
        }
        return join(join(join(home, ".local"), "state"), directoryName)
    }

    /// The file holding a profile's record.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/configuration`` for an invalid name.
    public func filePath(profile name: String) throws -> String {
        try Profile.validate(name: name)
        return Self.join(directory, name + ".json")
    }

    /// The lock file of a profile.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/configuration`` for an invalid name.
    public func lockPath(profile name: String) throws -> String {
        try Profile.validate(name: name)
        return Self.join(directory, name + ".lock")
    }

    /// Reads a profile's record: one open, one `fstat` and one read of the file.
    public func load(profile name: String) async throws -> ProfileRecord? {
        let path = try filePath(profile: name)
        return try await BlockingIO.run { [self] in try readRecord(at: path, profile: name) }
    }

    /// The profile's settings and bindings as its file keeps them, without reading the store its tokens rest in: a
    /// profile in the kernel keyring or the Secret Service comes back with no tokens, a file profile with its own. For
    /// showing a profile whose tokens cannot be read now (a locked Secret Service collection): `status` still says
    /// what the profile is and where its tokens rest.
    /// - Returns: The record, or nil when there is none.
    /// - Throws: The errors of ``load(profile:)`` that concern the file.
    package func loadSettings(profile name: String) async throws -> ProfileRecord? {
        let path = try filePath(profile: name)
        return try await BlockingIO.run { [self] () throws -> ProfileRecord? in
            guard let bytes = try readRecordBytes(at: path, profile: name) else { return nil }
            var record = try Self.decode(bytes, path: path, profile: name)
            if record.profile.tokenStore != .file { record.tokens = nil }
            return record
        }
    }

    /// What the fast lane needs of a profile's record, read on the calling thread: the same checks, the same one
    /// read and the same reader as ``load(profile:)`` (``ProfileRecord/init(stored:)``), without `JSONDecoder` or
    /// `Codable`. For a process that has started no concurrency yet — the CLI's fast lane, which answers
    /// `device-login token` before anything else starts — where blocking the caller is blocking no one.
    ///
    /// A glance, not a record: for a profile whose tokens rest in the Secret Service it holds only the kernel
    /// keyring's copy of the access token (no refresh or ID token, no ``ProfileGlance/record``), or no token: the
    /// lane never waits for D-Bus. For the others it holds the whole record.
    /// - Returns: The glance, or nil when there is no record.
    /// - Throws: The errors of ``load(profile:)``.
    package func glanceOnCallingThread(profile name: String) throws -> ProfileGlance? {
        let path = try filePath(profile: name)
        guard let bytes = try readRecordBytes(at: path, profile: name) else { return nil }
        return try glance(try Self.decode(bytes, path: path, profile: name))
    }

    /// Replaces a profile's record atomically and durably.
    ///
    /// Temporary files that killed writers left behind are removed first, when the profile's lock is free (see
    /// `removeStaleTemporaryFiles(profile:holdingLock:)`).
    public func save(_ record: ProfileRecord) async throws {
        let path = try filePath(profile: record.name)
        try await BlockingIO.run { [self] in
            try writeAtomically(try prepareSave(record, path: path), to: path)
        }
    }

    /// What ``save(_:)`` writes for `record` at `path`: its bytes, with ``ProfileRecord/revision`` one past the record
    /// in place — after the temporary files killed writers left are settled, which may put a newer record there.
    /// Creates the directory once the record is known to encode.
    func prepareSave(_ record: ProfileRecord, path: String) throws -> [UInt8] {
        var numbered = try placingTokens(record)
        numbered.revision = 1
        if try checkDirectory() {
            removeStaleTemporaryFiles(profile: record.name, holdingLock: false)
            let stored = storedRevision(at: path)
            numbered.revision = stored == Int.max ? stored : stored + 1
        }
        let bytes = try Self.encode(numbered, path: path)
        try ensureDirectory()
        return bytes
    }

    /// The revision of the record at `path`: 0 when there is none, it has none, or it cannot be read.
    func storedRevision(at path: String) -> Int {
        guard let bytes = try? readPrivateFile(at: path, kind: "token file", maximumBytes: Self.maximumFileBytes),
            let value = try? JSONParser.parse(bytes), let fields = try? JSONFields(value),
            let revision = try? fields.integerIfPresent("revision")
        else { return 0 }
        return max(0, revision)
    }

    /// Deletes a profile's record and its DPoP key file, if any, while holding the profile's lock, so that no
    /// refresh of another process saves the record again afterwards; then the lock file too, unless a pending
    /// sign-in of the profile remains. Deleting a lock file others may be waiting for is safe because every lock
    /// taken is checked to be on the file the name leads to (see ``withExclusiveAccess(profile:_:)``).
    ///
    /// Takes the profile's lock: do not call it inside ``withExclusiveAccess(profile:_:)`` for the same profile.
    /// Creates nothing when the directory does not exist.
    public func remove(profile name: String) async throws {
        let path = try filePath(profile: name)
        let key = try dpopKeyPath(profile: name)
        guard try await BlockingIO.run({ [self] in try checkDirectory() }) else { return }
        try await withExclusiveAccess(profile: name) { [self] in
            try await BlockingIO.run { [self] in
                try removeKeyStoreCopies(profile: name, from: storeNamed(profile: name), to: .file)
                try removeFile(at: path, kind: "token file")
                try removeFile(at: key, kind: "DPoP key file")
                removeLockFileIfUnused(profile: name)
            }
        }
    }

    /// Deletes one file of the store, if it is there, and flushes the directory. Call after ``checkDirectory()``.
    func removeFile(at path: String, kind: String) throws {
        do {
            if try POSIX.removeFile(path) { try POSIX.flushDirectory(directory) }
        } catch let error as SystemCallError {
            throw storageError(error, doing: "delete the \(kind)", path: path)
        }
    }

    /// The names of the profiles with a file in the directory, sorted.
    public func profileNames() async throws -> [String] {
        try await BlockingIO.run { [self] in try profileNamesOnCallingThread() }
    }

    /// ``profileNames()`` on the calling thread, as ``glanceOnCallingThread(profile:)`` reads.
    package func profileNamesOnCallingThread() throws -> [String] {
        guard try checkDirectory() else { return [] }
        let entries: [String]
        do {
            entries = try POSIX.directoryEntries(directory)
        } catch let error as SystemCallError {
            throw storageError(error, doing: "list", path: directory)
        }
        return entries.compactMap { entry -> String? in
            guard entry.hasSuffix(".json") else { return nil }
            let name = String(entry.dropLast(".json".count))
            return (try? Profile.validate(name: name)) == nil ? nil : name
        }.sorted()
    }

    // MARK: - Reading

    /// Checks the directory when it exists. Returns false when it does not.
    func checkDirectory() throws -> Bool {
        let linkHint = "set DEVICE_LOGIN_HOME to the real directory the link points to"
        guard let status = try inspect(directory, kind: "token directory", linkHint: linkHint) else { return false }
        guard status.type == POSIX.directory else {
            throw DeviceLoginError(
                .storage, "the token directory \(directory) is not a directory",
                hint: "move it aside or set DEVICE_LOGIN_HOME to another directory"
            )
        }
        try checkOwnership(status, path: directory, kind: "token directory", mode: "700")
        return true
    }

    /// The status of `path` itself (`lstat`), or nil when nothing is there; a symbolic link is refused, with
    /// `linkHint`, since the store never follows one.
    func inspect(_ path: String, kind: String, linkHint: String) throws -> POSIX.Status? {
        let status: POSIX.Status
        do {
            guard let found = try POSIX.pathStatus(path) else { return nil }
            status = found
        } catch let error as SystemCallError {
            throw storageError(error, doing: "inspect the \(kind)", path: path)
        }
        guard status.type != POSIX.symbolicLink else {
            throw DeviceLoginError(
                .storage, "the \(kind) \(path) is a symbolic link; refusing to follow it", hint: linkHint
            )
        }
        return status
    }

    /// Refuses a file or directory of another user, or one that other users can access (the hint: `chmod mode`).
    func checkOwnership(_ status: POSIX.Status, path: String, kind: String, mode: String) throws {
        try checkOwner(status, path: path, kind: kind)
        guard status.permissions & 0o077 == 0 else {
            throw DeviceLoginError(
                .storage,
                "the \(kind) \(path) can be accessed by other users (mode \(Self.octal(status.permissions))); "
                    + "refusing to use it",
                hint: "run: chmod \(mode) \(path)"
            )
        }
    }

    /// Refuses a file or directory that belongs to another user.
    func checkOwner(_ status: POSIX.Status, path: String, kind: String) throws {
        guard status.owner == POSIX.effectiveUserID else {
            throw DeviceLoginError(
                .storage, "the \(kind) \(path) belongs to another user (uid \(status.owner)); refusing to use it",
                hint: "set DEVICE_LOGIN_HOME to a directory of your own"
            )
        }
    }

    /// A profile's record, after the checks of the directory and the file; nil when there is none.
    private func readRecord(at path: String, profile name: String) throws -> ProfileRecord? {
        guard let bytes = try readRecordBytes(at: path, profile: name) else { return nil }
        return try withStoredTokens(try Self.decode(bytes, path: path, profile: name))
    }

    /// The bytes of a profile's file, after the checks of the directory and the file; nil when there is none.
    private func readRecordBytes(at path: String, profile name: String) throws -> [UInt8]? {
        guard try checkDirectory() else { return nil }
        removeStaleTemporaryFiles(profile: name, holdingLock: false)
        return try readPrivateFile(at: path, kind: "token file", maximumBytes: Self.maximumFileBytes)
    }

    /// Reads one of the store's private files (`kind` names it in errors: "token file"): one open without following
    /// a symbolic link, one `fstat` — a regular file of this user that no other user can access, at most
    /// `maximumBytes` — and one read. Call after ``checkDirectory()``.
    /// - Returns: The bytes, or nil when there is no file.
    func readPrivateFile(at path: String, kind: String, maximumBytes: Int) throws -> [UInt8]? {
        do {
            let fd: Int32
            do {
                fd = try POSIX.openForReading(path)
            } catch let error as SystemCallError where error.isMissing {
                return nil
            } catch let error as SystemCallError where error.isSymbolicLink {
                throw DeviceLoginError(
                    .storage, "the \(kind) \(path) is a symbolic link; refusing to follow it",
                    hint: "replace it with a regular file, or remove it and sign in again"
                )
            }
            defer { POSIX.closeFile(fd) }
            let status = try POSIX.fileStatus(fd)
            guard status.type == POSIX.regularFile else {
                throw DeviceLoginError(
                    .storage, "the \(kind) \(path) is not a regular file",
                    hint: "move it aside and sign in again"
                )
            }
            try checkOwnership(status, path: path, kind: kind, mode: "600")
            guard status.size <= maximumBytes else { throw tooLarge(path, kind: kind, maximumBytes: maximumBytes) }
            let bytes = try POSIX.readUpTo(fd, limit: maximumBytes)
            guard bytes.count <= maximumBytes else { throw tooLarge(path, kind: kind, maximumBytes: maximumBytes) }
            return bytes
        } catch let error as SystemCallError {
            throw storageError(error, doing: "read the \(kind)", path: path)
        }
    }

    private func tooLarge(_ path: String, kind: String, maximumBytes: Int) -> DeviceLoginError {
        DeviceLoginError(
            .storage, "the \(kind) \(path) is larger than \(maximumBytes) bytes; it is not a \(kind)",
            hint: "move it aside (mv \(path) \(path).bad) and sign in again"
        )
    }

    // MARK: - Writing

    /// Creates the directory (and missing parents) with mode `0700`, or checks the existing one.
    func ensureDirectory() throws {
        if try checkDirectory() { return }
        var prefix = ""
        for component in directory.split(separator: "/") {
            prefix += "/" + component
            do {
                try POSIX.makeDirectory(prefix, mode: 0o700)
            } catch let error as SystemCallError {
                throw storageError(error, doing: "create the token directory", path: prefix)
            }
        }
        do {
            try POSIX.setPermissions(path: directory, 0o700)
        } catch let error as SystemCallError {
            throw storageError(error, doing: "set the permissions of", path: directory)
        }
        _ = try checkDirectory()
    }

    /// Writes `bytes` to a new temporary file (mode `0600`) and renames it over `path`; `kind` names the file in
    /// errors. Call after ``ensureDirectory()``.
    func writeAtomically(_ bytes: [UInt8], to path: String, kind: String = "token file") throws {
        let temporary = try writeTemporaryFile(bytes, for: path, kind: kind)
        do {
            try POSIX.renameFile(temporary, path)
        } catch let error as SystemCallError {
            _ = try? POSIX.removeFile(temporary)
            throw storageError(error, doing: "write the \(kind)", path: path)
        }
        do {
            try POSIX.flushDirectory(directory)
        } catch let error as SystemCallError {
            throw storageError(error, doing: "write the \(kind)", path: path)
        }
    }

    /// Writes `bytes` to a new temporary file beside `path` (created with `O_EXCL`, mode `0600`) and flushes it to
    /// disk: the first half of ``writeAtomically(_:to:kind:)``. Removes it again when that fails.
    /// - Returns: The temporary file's path.
    func writeTemporaryFile(_ bytes: [UInt8], for path: String, kind: String) throws -> String {
        let temporary = Self.join(directory, Self.temporaryFileName(for: path))
        do {
            let fd = try POSIX.createNewFile(temporary)
            defer { POSIX.closeFile(fd) }
            do {
                try POSIX.setPermissions(fd, 0o600)
                try POSIX.writeFully(fd, bytes)
                try POSIX.flushToDisk(fd)
            } catch {
                _ = try? POSIX.removeFile(temporary)
                throw error
            }
            return temporary
        } catch let error as SystemCallError {
            throw storageError(error, doing: "write the \(kind)", path: path)
        }
    }

    // MARK: - Encoding

    static func encode(_ record: ProfileRecord, path: String) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        do {
            return Array(try encoder.encode(record)) + [UInt8(ascii: "\n")]
        } catch EncodingError.invalidValue(_, let context) {
            // The one value the stored form refuses: a time outside `TokenSet.storedTimes`, named with its field.
            throw DeviceLoginError(.storage, "could not encode the record for \(path): \(context.debugDescription)")
        } catch {
            throw DeviceLoginError(.storage, "could not encode the record for \(path)")
        }
    }

    /// Reads the record in `bytes`, the file of profile `name` at `path`, with the one reader
    /// (``ProfileRecord/init(stored:)``) through the strict ``JSONParser``: a format version newer than this one
    /// understands is refused before anything else is read.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/storage`` naming the file, what is wrong
    ///   with it (a field by its path, never a value) and what to do.
    static func decode(_ bytes: [UInt8], path: String, profile name: String) throws -> ProfileRecord {
        let hint = "move it aside (mv \(path) \(path).bad) and sign in again"
        guard let value = try? JSONParser.parse(bytes), let fields = try? JSONFields(value) else {
            throw DeviceLoginError(.storage, "the token file \(path) is corrupt: it is not a JSON object", hint: hint)
        }
        if let version = try? fields.integerIfPresent("version"), version > ProfileRecord.currentVersion {
            throw DeviceLoginError(
                .storage,
                "the token file \(path) has format version \(version), newer than this version understands",
                hint: "use a newer version, or move the file aside and sign in again",
                reason: .storeFromNewerVersion(path: path, version: version)
            )
        }
        let record: ProfileRecord
        do {
            record = try ProfileRecord(stored: fields)
        } catch let error as DeviceLoginError {
            throw DeviceLoginError(.storage, "the token file \(path) is corrupt: \(error.message)", hint: hint)
        }
        guard record.name == name else {
            throw DeviceLoginError(
                .storage, "the token file \(path) holds profile \"\(record.name)\", not \"\(name)\"", hint: hint
            )
        }
        return record
    }

    // MARK: - Helpers

    func storageError(_ error: SystemCallError, doing action: String, path: String) -> DeviceLoginError {
        var hint = "check the permissions of \(directory)"
        if error.isDiskFull { hint = "free some disk space" }
        if error.isReadOnlyFileSystem { hint = "set DEVICE_LOGIN_HOME to a writable directory" }
        return DeviceLoginError(.storage, "could not \(action) \(path): \(error.reason)", hint: hint)
    }

    static func join(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    static func octal(_ permissions: UInt32) -> String {
        let text = String(permissions, radix: 8)
        return String(repeating: "0", count: max(0, 4 - text.count)) + text
    }
}
