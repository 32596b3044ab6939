import DeviceLogin

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension PAMConfiguration {
    /// A file as the checks see it: its bytes (at most the bound and one more), owner and permission bits.
    struct FileRead: Sendable, Equatable {
        /// The file's first bytes.
        var bytes: [UInt8]
        /// Its owner's user ID.
        var owner: UInt32
        /// Its mode: type and permission bits.
        var mode: UInt32
    }

    /// Reads and checks the configuration at `path`: a regular file of at most ``maximumFileBytes`` bytes, owned by
    /// root or by the user running the check, and writable by no one else (``permissionProblem(of:path:user:)``).
    /// - Throws: ``Problem`` naming the file.
    static func load(path: String) throws(Problem) -> PAMConfiguration {
        let file = try read(path, limit: maximumFileBytes, what: "the configuration file")
        if let problem = permissionProblem(of: file, path: path, user: UInt32(geteuid())) {
            throw Problem(line: 0, reason: problem)
        }
        guard let text = String(validating: file.bytes, as: UTF8.self) else {
            throw Problem(line: 0, reason: "\(path) is not UTF-8 text")
        }
        do {
            return try parse(text)
        } catch {
            throw Problem(line: error.line, reason: "\(path): " + error.reason)
        }
    }

    /// The client secret of ``clientSecretFile``, when there is one: the file checked as the configuration is, and
    /// unreadable by other users too.
    /// - Throws: ``Problem`` naming the file, never the secret.
    func clientSecret() throws(Problem) -> String? {
        guard let path = clientSecretFile else { return nil }
        let file = try Self.read(path, limit: ClientSecretOption.maximumBytes, what: "the client secret file")
        if let problem = Self.permissionProblem(of: file, path: path, user: UInt32(geteuid())) {
            throw Problem(line: 0, reason: problem)
        }
        guard file.mode & 0o044 == 0 else {
            throw Problem(line: 0, reason: "other users can read the client secret file \(path): chmod 600 it")
        }
        do {
            return try ClientSecretOption.secret(file.bytes, from: path)
        } catch let error as DeviceLoginError {
            throw Problem(line: 0, reason: error.message)
        } catch {
            throw Problem(line: 0, reason: "cannot read the client secret file \(path)")
        }
    }

    /// The mapping of ``usernameMap``, when there is one: the file checked as the configuration is.
    /// - Throws: ``Problem`` naming the file and the line.
    func userMap() throws(Problem) -> PAMUserMap? {
        guard let path = usernameMap else { return nil }
        let file = try Self.read(path, limit: PAMUserMap.maximumFileBytes, what: "the mapping file")
        if let problem = Self.permissionProblem(of: file, path: path, user: UInt32(geteuid())) {
            throw Problem(line: 0, reason: problem)
        }
        guard let text = String(validating: file.bytes, as: UTF8.self) else {
            throw Problem(line: 0, reason: "\(path) is not UTF-8 text")
        }
        do {
            return try PAMUserMap.parse(text)
        } catch {
            throw Problem(line: error.line, reason: "\(path): " + error.reason)
        }
    }

    /// Why a file with this owner and mode may not be trusted by `user`, or nil: a file that anyone but root or its
    /// owner can write (group or other write bits) could be changed to let anyone in, and so could one owned by
    /// another ordinary user.
    static func permissionProblem(of file: FileRead, path: String, user: UInt32) -> String? {
        let mode = String(file.mode & 0o7777, radix: 8)
        if file.mode & 0o022 != 0 {
            return "\(path) is writable by others than its owner (mode \(mode)): chmod go-w it"
        }
        if file.owner != 0 && file.owner != user {
            return "\(path) is owned by user \(file.owner), neither root nor the user running the check (\(user))"
        }
        return nil
    }

    /// Opens `path` and reads at most `limit` bytes of a regular file.
    private static func read(_ path: String, limit: Int, what: String) throws(Problem) -> FileRead {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard descriptor >= 0 else {
            throw Problem(line: 0, reason: "cannot open \(what) \(path): " + String(cString: strerror(errno)))
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw Problem(line: 0, reason: "\(what) \(path) is not a regular file")
        }
        guard status.st_size <= limit else {
            throw Problem(line: 0, reason: "\(what) \(path) is larger than \(limit) bytes")
        }
        do {
            let bytes = try ClientSecretOption.readUpTo(descriptor, limit: limit, what: path)
            return FileRead(bytes: bytes, owner: UInt32(status.st_uid), mode: UInt32(status.st_mode))
        } catch {
            throw Problem(line: 0, reason: "cannot read \(what) \(path)")
        }
    }
}
