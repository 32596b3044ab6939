import DeviceLogin

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The agent's socket loop: one dedicated thread in `poll(2)` over the listening socket, the open connections and
/// a wake pipe, so that no connection can hold up another, and no blocking call runs on Swift's cooperative pool.
///
/// Each connection asks one question: the loop accepts it, refuses a peer of another user (`SO_PEERCRED`; root is
/// admitted), reads one line of at most ``AgentRequest/maximumLineLength`` bytes within ``requestSeconds``, and hands
/// the parsed request to ``requests``. A line that is too long, not a request, or late closes that connection and
/// nothing else. The reply (``reply(_:to:)``) is written by the loop, without blocking, and the connection closed.
final class AgentListener: Sendable {
    /// A request read from a connection, to answer with ``reply(_:to:)``.
    struct Job: Sendable {
        let connection: Int32
        /// Which connection of that descriptor: a reply never reaches a later one that reuses the number.
        let serial: UInt64
        let request: AgentRequest
        /// The peer's process ID, for `--confirm`'s prompt.
        let peerPID: Int32
    }

    /// How long a client has to send its request line, by default.
    static let requestSeconds = 10
    /// The most connections open at once; more wait in the kernel's backlog.
    static let maximumConnections = 256

    /// The requests read, in arrival order; finished when the loop stops.
    let requests: AsyncStream<Job>
    private let continuation: AsyncStream<Job>.Continuation
    private let listening: Int32
    private let wake: (read: Int32, write: Int32)
    private let owner: UInt32
    private let requestSeconds: Int
    private let shared = Locked(Shared())

    private struct Shared {
        var replies: [(connection: Int32, serial: UInt64, bytes: [UInt8])] = []
        var stopping = false
    }

    /// Listens on `listening` (a bound, listening, non-blocking socket) for peers of user `owner` or root, who have
    /// `requestSeconds` to send their request line.
    /// - Throws: ``DeviceLoginError`` when the wake pipe or the thread cannot be made.
    init(listening: Int32, owner: UInt32, requestSeconds: Int = AgentListener.requestSeconds) throws {
        var pipe: [Int32] = [-1, -1]
        guard Glibc.pipe(&pipe) == 0 else {
            throw DeviceLoginError(.configuration, "cannot make the agent's wake pipe: \(AgentSocket.reason(errno))")
        }
        AgentSocket.makeNonBlocking(pipe[0])
        AgentSocket.makeNonBlocking(pipe[1])
        self.listening = listening
        self.wake = (pipe[0], pipe[1])
        self.owner = owner
        self.requestSeconds = requestSeconds
        (requests, continuation) = AsyncStream.makeStream(of: Job.self, bufferingPolicy: .unbounded)
    }

    /// Starts the loop on its thread.
    func start() throws {
        guard DedicatedThread.start({ [self] in loop() }) else {
            throw DeviceLoginError(.configuration, "cannot start the agent's socket thread")
        }
    }

    /// Writes `reply` to the connection of `job` and closes it (on the loop's thread).
    func reply(_ reply: AgentReply, to job: Job) {
        shared.withLock { $0.replies.append((job.connection, job.serial, Array(reply.line.utf8))) }
        poke()
    }

    /// Stops the loop: every connection is closed, ``requests`` finishes.
    func stop() {
        shared.withLock { $0.stopping = true }
        poke()
    }

    private func poke() {
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
    }

    private struct Connection {
        var input: [UInt8] = []
        var output: [UInt8] = []
        var deadline: Int
        var peerPID: Int32
        var serial: UInt64
        /// Handed over: waiting for the reply.
        var answering = false
    }

    private func loop() {
        var connections: [Int32: Connection] = [:]
        var serials: UInt64 = 0
        defer {
            for descriptor in connections.keys { close(descriptor) }
            close(wake.read)
            close(wake.write)
            continuation.finish()
        }
        while true {
            let (replies, stopping) = shared.withLock { shared in
                defer { shared.replies = [] }
                return (shared.replies, shared.stopping)
            }
            if stopping { return }
            for (descriptor, serial, bytes) in replies where connections[descriptor]?.serial == serial {
                connections[descriptor]?.output = bytes
                connections[descriptor]?.deadline = Self.seconds() + requestSeconds
            }
            var polled = [pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
            if connections.count < Self.maximumConnections {
                polled.append(pollfd(fd: listening, events: Int16(POLLIN), revents: 0))
            }
            for (descriptor, connection) in connections {
                let events = !connection.output.isEmpty ? POLLOUT : (connection.answering ? 0 : POLLIN)
                polled.append(pollfd(fd: descriptor, events: Int16(events), revents: 0))
            }
            // A second's timeout only while a connection has a deadline to keep; else the loop sleeps until the wake
            // pipe or a socket calls: an idle agent makes no wake-ups, as ssh-agent makes none (it woke every second).
            let watching = connections.values.contains { !$0.answering || !$0.output.isEmpty }
            let ready = poll(&polled, nfds_t(polled.count), watching ? 1000 : -1)
            if ready < 0, errno != EINTR { return }
            let now = Self.seconds()
            for entry in polled {
                if entry.fd == wake.read {
                    if entry.revents != 0 { drainWake() }
                } else if entry.fd == listening {
                    if entry.revents & Int16(POLLIN) != 0 { accept(into: &connections, serials: &serials, now: now) }
                } else if entry.revents != 0 {
                    if !serve(entry.fd, revents: entry.revents, in: &connections) {
                        drop(entry.fd, from: &connections)
                    }
                }
            }
            // A connection that stays silent, or never takes its reply, is closed; one being answered waits.
            for (descriptor, connection) in connections where !connection.answering || !connection.output.isEmpty {
                if now > connection.deadline { drop(descriptor, from: &connections) }
            }
        }
    }

    /// Reads from or writes to `descriptor`; false when the connection is to be closed.
    private func serve(_ descriptor: Int32, revents: Int16, in connections: inout [Int32: Connection]) -> Bool {
        guard var connection = connections[descriptor] else { return false }
        if !connection.output.isEmpty {
            let count = connection.output.withUnsafeBytes {
                send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if count < 0 { return errno == EAGAIN || errno == EINTR }
            connection.output.removeFirst(count)
            connections[descriptor] = connection
            return !connection.output.isEmpty
        }
        guard !connection.answering else { return revents & Int16(POLLHUP | POLLERR) == 0 }
        var chunk = [UInt8](repeating: 0, count: 4096)
        let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        if count < 0 { return errno == EAGAIN || errno == EINTR }
        if count == 0 { return false }
        connection.input += chunk[0..<count]
        guard let end = connection.input.firstIndex(of: UInt8(ascii: "\n")) else {
            connections[descriptor] = connection
            // Oversized: closed without an answer.
            return connection.input.count < AgentRequest.maximumLineLength
        }
        guard end + 1 == connection.input.count, let request = try? AgentRequest(line: Array(connection.input[..<end]))
        else { return false }
        connection.answering = true
        connection.input = []
        connections[descriptor] = connection
        continuation.yield(
            Job(connection: descriptor, serial: connection.serial, request: request, peerPID: connection.peerPID))
        return true
    }

    private func accept(into connections: inout [Int32: Connection], serials: inout UInt64, now: Int) {
        let descriptor = Glibc.accept(listening, nil, nil)
        guard descriptor >= 0 else { return }
        AgentSocket.makeNonBlocking(descriptor)
        guard let peer = AgentSocket.peer(descriptor), AgentSocket.admits(peer: peer.uid, owner: owner) else {
            close(descriptor)
            return
        }
        serials += 1
        connections[descriptor] = Connection(deadline: now + requestSeconds, peerPID: peer.pid, serial: serials)
    }

    private func drop(_ descriptor: Int32, from connections: inout [Int32: Connection]) {
        guard connections.removeValue(forKey: descriptor) != nil else { return }
        close(descriptor)
    }

    private func drainWake() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while bytes.withUnsafeMutableBytes({ read(wake.read, $0.baseAddress, $0.count) }) > 0 {}
    }

    private static func seconds() -> Int {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int(now.tv_sec)
    }
}
