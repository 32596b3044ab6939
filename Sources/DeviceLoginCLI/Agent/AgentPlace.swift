import DeviceLogin

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Where the agent listens: a socket (0600) in a folder of this user that nobody else may enter (0700), made for
/// it under `$XDG_RUNTIME_DIR` (else `/tmp`) unless `--socket` names one.
struct AgentPlace {
    /// The socket's path.
    let socket: String
    /// The folder made for it, removed at exit; nil for a `--socket` in an existing folder.
    let madeFolder: String?

    /// The place for `--socket` (nil: a new private folder).
    /// - Throws: ``DeviceLoginError`` (configuration) for a path too long, a folder that is not this user's or is
    ///   open to others, or a path taken by anything but a dead socket.
    static func make(_ given: String?, environment: [String: String]) throws -> AgentPlace {
        if let given {
            guard given.hasPrefix("/"), let slash = given.lastIndex(of: "/") else {
                throw refusal("--socket must be an absolute path")
            }
            let folder = slash == given.startIndex ? "/" : String(given[..<slash])
            var made: String?
            if mkdir(folder, 0o700) == 0 {
                made = folder
            } else if errno != EEXIST {
                throw refusal("cannot make the folder \(folder): \(AgentSocket.reason(errno))")
            }
            try checkPrivate(folder)
            return AgentPlace(socket: given, madeFolder: made)
        }
        var base = "/tmp"
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") { base = runtime }
        var template = Array((base + "/device-login-agent.XXXXXX").utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw refusal("cannot make a private folder under \(base): \(AgentSocket.reason(errno))")
        }
        let folder = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return AgentPlace(socket: folder + "/agent.sock", madeFolder: folder)
    }

    /// Refuses a folder that is not this user's, or that group or others may write or enter.
    private static func checkPrivate(_ folder: String) throws {
        var status = stat()
        guard lstat(folder, &status) == 0 else {
            throw refusal("cannot read the folder \(folder): \(AgentSocket.reason(errno))")
        }
        guard status.st_mode & S_IFMT == S_IFDIR, status.st_uid == getuid(), status.st_mode & 0o077 == 0 else {
            throw refusal("the folder \(folder) must be a folder of yours that nobody else may enter (chmod 700)")
        }
    }

    /// Binds and listens (non-blocking), the socket made 0600. A dead socket left at the path is replaced.
    func listen() throws -> Int32 {
        let descriptor = AgentSocket.stream(nonBlocking: true)
        guard descriptor >= 0 else { throw Self.refusal("cannot make a socket: \(AgentSocket.reason(errno))") }
        var status = stat()
        if lstat(socket, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFSOCK, !Self.answers(socket) else {
                close(descriptor)
                throw Self.refusal("\(socket) is taken (an agent listens there, or it is not a socket)")
            }
            unlink(socket)
        }
        // No umask around the bind: it is the whole process's, and a folder another thread made meanwhile came out
        // 0600 (a test that makes one while the agent's tests bind saw it). Until the chmod below the socket is
        // reachable only through its folder, which is ours and closed to everybody else (checked above).
        let bound = AgentSocket.withAddress(socket) { bind(descriptor, $0, $1) }
        guard let bound else {
            close(descriptor)
            throw Self.refusal("the socket path is longer than \(AgentSocket.maximumPathLength) bytes")
        }
        guard bound == 0, chmod(socket, 0o600) == 0, Glibc.listen(descriptor, 128) == 0 else {
            let reason = AgentSocket.reason(errno)
            close(descriptor)
            throw Self.refusal("cannot listen on \(socket): \(reason)")
        }
        return descriptor
    }

    /// Removes the socket, and the folder made for it.
    func remove() {
        unlink(socket)
        if let madeFolder { rmdir(madeFolder) }
    }

    /// Whether something accepts connections at `path`.
    private static func answers(_ path: String) -> Bool {
        let descriptor = AgentSocket.stream()
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return AgentSocket.withAddress(path) { connect(descriptor, $0, $1) } == 0
    }

    private static func refusal(_ message: String) -> DeviceLoginError {
        DeviceLoginError(.configuration, "agent: " + message)
    }
}
