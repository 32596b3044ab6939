#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed system call: its name and `errno`.
struct SystemCallError: Error, Sendable {
    /// The call that failed (`open`, `fsync`...).
    var call: String
    /// The `errno` it left.
    var code: Int32

    /// The system's text for the error, e.g. "Permission denied".
    var reason: String { String(cString: strerror(code)) }

    /// Whether the file is not there (`ENOENT`).
    var isMissing: Bool { code == ENOENT }
    /// Whether the path is a symbolic link that was not followed (`ELOOP` with `O_NOFOLLOW`).
    var isSymbolicLink: Bool { code == ELOOP }
    /// Whether the disk is full (`ENOSPC`).
    var isDiskFull: Bool { code == ENOSPC }
    /// Whether the file system is read-only (`EROFS`).
    var isReadOnlyFileSystem: Bool { code == EROFS }
}

/// The few file-system calls the file store needs, retrying on `EINTR` and throwing ``SystemCallError``.
///
/// Every call here may block; callers run them through ``BlockingIO``.
enum POSIX {
    /// The `S_IFMT` bits of `st_mode` (portable: the constant's type differs between Glibc and Darwin).
    static let fileTypeMask: UInt32 = 0o170000
    /// `S_IFREG`.
    static let regularFile: UInt32 = 0o100000
    /// `S_IFDIR`.
    static let directory: UInt32 = 0o040000
    /// `S_IFLNK`.
    static let symbolicLink: UInt32 = 0o120000

    /// What `fstat`/`lstat` tell about a file, in portable types.
    struct Status: Sendable {
        var type: UInt32
        var permissions: UInt32
        var owner: UInt32
        var size: Int
        /// The device and inode: which file this is, whatever its name (`st_dev`, `st_ino`).
        var identity: FileIdentity

        init(_ raw: stat) {
            type = UInt32(raw.st_mode) & POSIX.fileTypeMask
            permissions = UInt32(raw.st_mode) & 0o7777
            owner = UInt32(raw.st_uid)
            size = Int(raw.st_size)
            identity = FileIdentity(device: UInt64(raw.st_dev), inode: UInt64(raw.st_ino))
        }
    }

    /// Which file a name or a descriptor leads to: two are the same file when device and inode match.
    struct FileIdentity: Sendable, Equatable {
        var device: UInt64
        var inode: UInt64
    }

    static var effectiveUserID: UInt32 { UInt32(geteuid()) }

    static func openFile(_ path: String, _ flags: Int32, mode: UInt32 = 0o600) throws -> Int32 {
        while true {
            let fd = open(path, flags, mode_t(mode))
            if fd >= 0 { return fd }
            if errno != EINTR { throw SystemCallError(call: "open", code: errno) }
        }
    }

    /// Opens, creating it (0600) when missing, a lock file: for reading and writing, never through a symbolic link,
    /// never inherited by a child.
    static func openLockFile(_ path: String) throws -> Int32 {
        try openFile(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, mode: 0o600)
    }

    /// Opens a private file of the store's for reading: never through a symbolic link (`ELOOP`:
    /// ``SystemCallError/isSymbolicLink``), never waiting for a FIFO's writer, never inherited by a child.
    static func openForReading(_ path: String) throws -> Int32 {
        try openFile(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
    }

    /// Creates a new file, mode 0600, for writing: never one that exists, never through a symbolic link, never
    /// inherited by a child.
    static func createNewFile(_ path: String) throws -> Int32 {
        try openFile(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode: 0o600)
    }

    /// Opens an existing file for reading only, or writing only: never through a symbolic link, never inherited by
    /// a child.
    static func openExistingFile(_ path: String, forWriting: Bool) throws -> Int32 {
        try openFile(path, (forWriting ? O_WRONLY : O_RDONLY) | O_NOFOLLOW | O_CLOEXEC)
    }

    /// This process's ID.
    static var processID: Int32 { getpid() }

    static func closeFile(_ fd: Int32) {
        _ = close(fd)
    }

    static func fileStatus(_ fd: Int32) throws -> Status {
        var raw = stat()
        guard fstat(fd, &raw) == 0 else { throw SystemCallError(call: "fstat", code: errno) }
        return Status(raw)
    }

    /// The status of `path` itself (not following a final symbolic link), or nil when it does not exist.
    static func pathStatus(_ path: String) throws -> Status? {
        var raw = stat()
        guard lstat(path, &raw) == 0 else {
            if errno == ENOENT { return nil }
            throw SystemCallError(call: "lstat", code: errno)
        }
        return Status(raw)
    }

    /// The status of what `path` leads to, following symbolic links (`stat`), or nil when it does not exist.
    static func fileStatus(following path: String) throws -> Status? {
        var raw = stat()
        guard stat(path, &raw) == 0 else {
            if errno == ENOENT { return nil }
            throw SystemCallError(call: "stat", code: errno)
        }
        return Status(raw)
    }

    /// Reads until end of file or until more than `limit` bytes have been read (then returns `limit + 1` bytes).
    static func readUpTo(_ fd: Int32, limit: Int) throws -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while bytes.count <= limit {
            let wanted = min(chunk.count, limit + 1 - bytes.count)
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, wanted) }
            if count < 0 {
                if errno == EINTR { continue }
                throw SystemCallError(call: "read", code: errno)
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return bytes
    }

    static func writeFully(_ fd: Int32, _ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress.map { $0 + offset }, bytes.count - offset) }
            if count < 0 {
                if errno == EINTR { continue }
                throw SystemCallError(call: "write", code: errno)
            }
            offset += count
        }
    }

    /// Flushes a file's data to stable storage. On Darwin `fsync` only reaches the drive's cache, so
    /// `F_FULLFSYNC` is asked first.
    static func flushToDisk(_ fd: Int32) throws {
        #if canImport(Darwin)
        if fcntl(fd, F_FULLFSYNC) == 0 { return }
        #endif
        while fsync(fd) != 0 {
            if errno != EINTR { throw SystemCallError(call: "fsync", code: errno) }
        }
    }

    /// Flushes a directory, so that a rename or unlink in it survives a power loss.
    static func flushDirectory(_ path: String) throws {
        let fd = try openFile(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        defer { closeFile(fd) }
        try flushToDisk(fd)
    }

    static func setPermissions(_ fd: Int32, _ mode: UInt32) throws {
        guard fchmod(fd, mode_t(mode)) == 0 else { throw SystemCallError(call: "fchmod", code: errno) }
    }

    static func setPermissions(path: String, _ mode: UInt32) throws {
        guard chmod(path, mode_t(mode)) == 0 else { throw SystemCallError(call: "chmod", code: errno) }
    }

    static func renameFile(_ source: String, _ destination: String) throws {
        guard rename(source, destination) == 0 else { throw SystemCallError(call: "rename", code: errno) }
    }

    /// Deletes a file. Returns false when there was none.
    @discardableResult
    static func removeFile(_ path: String) throws -> Bool {
        guard unlink(path) == 0 else {
            if errno == ENOENT { return false }
            throw SystemCallError(call: "unlink", code: errno)
        }
        return true
    }

    /// Creates a directory. Returns false when something already exists at `path`.
    @discardableResult
    static func makeDirectory(_ path: String, mode: UInt32) throws -> Bool {
        guard mkdir(path, mode_t(mode)) == 0 else {
            if errno == EEXIST { return false }
            throw SystemCallError(call: "mkdir", code: errno)
        }
        return true
    }

    /// Tries to take an exclusive `flock` without waiting. Returns false when another open file holds it.
    static func tryLock(_ fd: Int32) throws -> Bool {
        while true {
            if flock(fd, LOCK_EX | LOCK_NB) == 0 { return true }
            let code = errno
            if code == EINTR { continue }
            if code == EWOULDBLOCK || code == EAGAIN { return false }
            throw SystemCallError(call: "flock", code: code)
        }
    }

    /// Empties a file opened for writing.
    static func truncate(_ fd: Int32) throws {
        while ftruncate(fd, 0) != 0 {
            if errno != EINTR { throw SystemCallError(call: "ftruncate", code: errno) }
        }
    }

    static func unlock(_ fd: Int32) {
        _ = flock(fd, LOCK_UN)
    }

    /// The entries of a directory, without `.` and `..`.
    static func directoryEntries(_ path: String) throws -> [String] {
        guard let handle = opendir(path) else { throw SystemCallError(call: "opendir", code: errno) }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }
}
