import DeviceLogin

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// The listener's I/O: one dedicated thread that accepts, reads, writes and closes every connection with
/// non-blocking sockets and `poll(2)`.
///
/// Complete requests go out through ``events``; answers come back through ``submit(_:to:)``. Only the thread
/// touches connections; the async side talks to it through a locked outbox and a wake-up pipe. Each connection
/// carries one request (`Connection: close`).
final class LoopbackEventLoop: @unchecked Sendable {
    /// A complete request and the connection to answer on.
    struct Event: Sendable {
        var connection: UInt64
        var request: HTTPRequest
    }

    private enum Phase {
        case reading(HTTPRequestParser)
        case handling
        case writing([UInt8], sent: Int)
        /// The response is out and our side is shut; read and discard until the peer closes, so that closing
        /// with unread bytes does not reset the connection before the peer has read the response.
        case draining(left: Int)
    }

    private struct Connection {
        var descriptor: Int32
        var phase: Phase
        var deadline: ContinuousClock.Instant
        /// Bytes of the request read so far: 0 for a connection that has said nothing yet.
        var received = 0
    }

    private struct Outbox {
        var answers: [(UInt64, MockResponse)] = []
        var stopRequested = false
    }

    /// The requests read, in order; finishes when the loop stops.
    let events: AsyncStream<Event>
    private let continuation: AsyncStream<Event>.Continuation
    private let listener: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let limits: LoopbackServer.Limits
    private let origin: String
    private let outbox = Locked(Outbox())
    private let clock = ContinuousClock()

    // Confined to the loop's thread.
    private var connections: [UInt64: Connection] = [:]
    private var nextConnection: UInt64 = 0
    private var readBuffer = [UInt8](repeating: 0, count: 64 * 1024)

    /// Creates a loop over a listening socket, which it does not own.
    init(listener: Int32, limits: LoopbackServer.Limits, origin: String) throws {
        (wakeRead, wakeWrite) = try POSIXSocket.makePipe()
        self.listener = listener
        self.limits = limits
        self.origin = origin
        (events, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .unbounded)
    }

    /// Hands an answer to the thread. Ignored when the connection is gone.
    func submit(_ answer: MockResponse, to connection: UInt64) {
        outbox.withLock { $0.answers.append((connection, answer)) }
        wake()
    }

    /// Asks the loop to close every connection and return.
    func stop() {
        outbox.withLock { $0.stopRequested = true }
        wake()
    }

    private func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    /// Runs until ``stop()``; call on a dedicated thread. Closes every connection and the pipe, then finishes
    /// ``events``.
    func run() {
        while true {
            let (answers, stopping) = outbox.withLock { outbox in
                defer { outbox.answers.removeAll() }
                return (outbox.answers, outbox.stopRequested)
            }
            if stopping { break }
            for (id, answer) in answers { deliver(answer, to: id) }
            expireDeadlines()
            pollOnce()
        }
        for connection in connections.values { POSIXSocket.closeDescriptor(connection.descriptor) }
        connections.removeAll()
        POSIXSocket.closeDescriptor(wakeRead)
        POSIXSocket.closeDescriptor(wakeWrite)
        continuation.finish()
    }

    private func pollOnce() {
        var descriptors = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
        // Full of connections that are all being answered: new ones wait in the listen queue. Otherwise a new
        // connection is taken even when full, in place of one still reading (see acceptAll).
        let accepting = connections.count < limits.maximumConnections || evictionCandidate() != nil
        if accepting { descriptors.append(pollfd(fd: listener, events: Int16(POLLIN), revents: 0)) }
        var order: [UInt64] = []
        for (id, connection) in connections {
            let events: Int16
            switch connection.phase {
            case .reading, .draining: events = Int16(POLLIN)
            case .writing: events = Int16(POLLOUT)
            case .handling: continue
            }
            descriptors.append(pollfd(fd: connection.descriptor, events: events, revents: 0))
            order.append(id)
        }
        POSIXSocket.wait(&descriptors, timeoutMilliseconds: timeoutUntilNextDeadline())
        if descriptors[0].revents != 0 { drainWakePipe() }
        let first = accepting ? 2 : 1
        if accepting, descriptors[1].revents != 0 { acceptAll() }
        for (offset, id) in order.enumerated() where descriptors[first + offset].revents != 0 {
            service(id)
        }
    }

    private func timeoutUntilNextDeadline() -> Int32 {
        guard
            let next = connections.values.filter({ if case .handling = $0.phase { false } else { true } })
                .map(\.deadline).min()
        else { return 1000 }
        let wait = clock.now.duration(to: next)
        let milliseconds = wait.components.seconds * 1000 + wait.components.attoseconds / 1_000_000_000_000_000
        return Int32(clamping: max(0, min(milliseconds + 1, 1000)))
    }

    private func drainWakePipe() {
        POSIXSocket.drainPipe(wakeRead)
    }

    /// The connection to close for a newcomer when every place is taken: the oldest that has sent nothing yet,
    /// else the oldest still reading a request. Idle or trickling clients (a browser's spare connections, a
    /// slowloris) must not lock everyone else out until their read deadlines.
    private func evictionCandidate() -> UInt64? {
        var silent: UInt64?
        var reading: UInt64?
        for (id, connection) in connections {
            guard case .reading = connection.phase else { continue }
            if connection.received == 0, id < (silent ?? .max) { silent = id }
            if id < (reading ?? .max) { reading = id }
        }
        return silent ?? reading
    }

    private func acceptAll() {
        while true {
            if connections.count >= limits.maximumConnections {
                guard let victim = evictionCandidate() else { return }
                guard let descriptor = POSIXSocket.accept(listener) else { return }
                close(victim)
                admit(descriptor)
                continue
            }
            guard let descriptor = POSIXSocket.accept(listener) else { return }
            admit(descriptor)
        }
    }

    private func admit(_ descriptor: Int32) {
        nextConnection += 1
        connections[nextConnection] = Connection(
            descriptor: descriptor,
            phase: .reading(HTTPRequestParser(limits: limits, origin: origin)),
            deadline: clock.now.advanced(by: limits.readTimeout)
        )
    }

    private func service(_ id: UInt64) {
        guard var connection = connections[id] else { return }
        switch connection.phase {
        case .reading(var parser):
            switch POSIXSocket.read(connection.descriptor, into: &readBuffer) {
            case .bytes(let count):
                connection.received += count
                switch parser.feed(readBuffer[0..<count]) {
                case .needMore:
                    connection.phase = .reading(parser)
                case .complete(let request):
                    connection.phase = .handling
                    continuation.yield(Event(connection: id, request: request))
                case .failure(let status, let reason):
                    connection.phase = .writing(Self.refusal(status, reason), sent: 0)
                    connection.deadline = clock.now.advanced(by: limits.writeTimeout)
                }
            case .wouldBlock:
                break
            case .endOfFile, .failed:
                return close(id)
            }
        case .writing(let bytes, let sent):
            switch POSIXSocket.write(connection.descriptor, bytes, from: sent) {
            case .bytes(let count) where sent + count >= bytes.count:
                POSIXSocket.shutdownWrite(connection.descriptor)
                connection.phase = .draining(left: max(limits.maximumBodyBytes * 4, 1 << 20))
                connection.deadline = clock.now.advanced(by: min(.seconds(2), limits.readTimeout))
            case .bytes(let count):
                connection.phase = .writing(bytes, sent: sent + count)
            case .wouldBlock, .endOfFile:
                break
            case .failed:
                return close(id)
            }
        case .draining(let left):
            switch POSIXSocket.read(connection.descriptor, into: &readBuffer) {
            case .bytes(let count) where count < left:
                connection.phase = .draining(left: left - count)
            case .wouldBlock:
                break
            case .bytes, .endOfFile, .failed:
                return close(id)
            }
        case .handling:
            break
        }
        connections[id] = connection
    }

    private func deliver(_ answer: MockResponse, to id: UInt64) {
        guard var connection = connections[id], case .handling = connection.phase else { return }
        switch answer {
        case .dropConnection:
            close(id)
        case .respond(let response):
            connection.phase = .writing(response.wireBytes, sent: 0)
            connection.deadline = clock.now.advanced(by: limits.writeTimeout)
            connections[id] = connection
        }
    }

    /// A request still incomplete at its read deadline gets 408; a response not written, or a drain not ended,
    /// by its deadline is cut off.
    private func expireDeadlines() {
        let now = clock.now
        for (id, connection) in connections where connection.deadline <= now {
            switch connection.phase {
            case .reading:
                connections[id]?.phase = .writing(Self.refusal(408, "the request took too long"), sent: 0)
                connections[id]?.deadline = now.advanced(by: limits.writeTimeout)
            case .writing, .draining:
                close(id)
            case .handling:
                break
            }
        }
    }

    private func close(_ id: UInt64) {
        guard let connection = connections.removeValue(forKey: id) else { return }
        POSIXSocket.closeDescriptor(connection.descriptor)
    }

    /// The bytes of a plain-text refusal.
    private static func refusal(_ status: Int, _ reason: String) -> [UInt8] {
        WireWriter.plain(status: status, reason).response.response?.wireBytes ?? []
    }
}
