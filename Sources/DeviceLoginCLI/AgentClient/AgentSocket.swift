#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The POSIX calls the agent and its clients share: a UNIX socket's address, the peer's credentials, time limits.
/// Blocking calls only, on the caller's thread: the lane's client runs before any runtime starts, and the agent's
/// listener on a dedicated thread.
enum AgentSocket {
    /// The environment variable that names the agent's socket, as `SSH_AUTH_SOCK` names ssh-agent's.
    static let variable = "DEVICE_LOGIN_AGENT_SOCK"

    /// The agent's socket, when the environment names one: then every helper answers through the agent, on either
    /// path, and `status` shows what it holds. The one decision of both paths.
    static func named(in environment: (String) -> String?) -> String? {
        guard let socket = environment(variable), !socket.isEmpty else { return nil }
        return socket
    }

    /// The longest socket path `sockaddr_un` takes, without its NUL.
    static let maximumPathLength = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    /// Runs `body` with the address of the socket at `path`; nil when the path is empty, too long or has a NUL.
    static func withAddress<Result>(
        _ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Result
    ) -> Result? {
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count <= maximumPathLength, !bytes.contains(0) else { return nil }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
            raw[bytes.count] = 0
        }
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                body($0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
    }

    /// A new stream socket, close-on-exec; -1 on failure (errno set).
    static func stream(nonBlocking: Bool = false) -> Int32 {
        let flags = Int32(SOCK_CLOEXEC.rawValue) | (nonBlocking ? Int32(SOCK_NONBLOCK.rawValue) : 0)
        return socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | flags, 0)
    }

    /// Makes `descriptor` close-on-exec and non-blocking (what `accept4` and `pipe2` would, were they in Swift's
    /// Glibc module).
    static func makeNonBlocking(_ descriptor: Int32) {
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
    }

    /// Sets the send and receive time limits of `descriptor` (connect on a UNIX socket waits on the send limit).
    static func setTimeouts(_ descriptor: Int32, send: Int, receive: Int) {
        var sending = timeval(tv_sec: send, tv_usec: 0)
        var receiving = timeval(tv_sec: receive, tv_usec: 0)
        let size = socklen_t(MemoryLayout<timeval>.size)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &sending, size)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &receiving, size)
    }

    /// The connected peer's process and user (`SO_PEERCRED`); nil when the kernel does not say.
    static func peer(_ descriptor: Int32) -> (pid: Int32, uid: UInt32)? {
        // struct ucred { pid_t pid; uid_t uid; gid_t gid; }: three 32-bit fields on Linux.
        var credentials: (Int32, UInt32, UInt32) = (0, 0, 0)
        var size = socklen_t(MemoryLayout.size(ofValue: credentials))
        guard getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, &credentials, &size) == 0,
            size == socklen_t(MemoryLayout.size(ofValue: credentials))
        else { return nil }
        return (credentials.0, credentials.1)
    }

    /// Whether a peer of user `uid` may use an agent run by `owner`: the same user, or root.
    static func admits(peer uid: UInt32, owner: UInt32) -> Bool {
        uid == owner || uid == 0
    }

    /// The text of `errno`'s message.
    static func reason(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
