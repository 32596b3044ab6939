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
/// touches connections; the async side talks to it through a locked outbox and a wake-up pipe.
///
/// Connections are kept alive (RFC 9112 §9.3): after an answer, a connection reads the next request, unless the
/// client sent `Connection: close` (or spoke HTTP/1.0 without `keep-alive`), the answer was a refusal, or the
/// connection has carried ``LoopbackServer/Limits/maximumRequestsPerConnection`` requests; then the answer says
/// `Connection: close` and the connection is closed after it. A kept-alive connection that sends nothing for
/// ``LoopbackServer/Limits/idleTimeout`` is closed without an answer. Requests on one connection are answered one
/// at a time, in order: a pipelined request waits, unread, in the parser's leftover bytes or the socket, until
/// the answer before it is written.
final class LoopbackEventLoop: @unchecked Sendable {
    /// A complete request and the connection to answer on.
    struct Event: Sendable {
        var connection: UInt64
        var request: HTTPRequest
    }

    private enum Phase {
        case reading(HTTPRequestParser)
        /// A request is with the model; `keepAlive` is whether its client allows another request after it, and
        /// `leftover` the bytes that followed it (the start of a pipelined request).
        case handling(keepAlive: Bool, leftover: [UInt8])
        /// Writing a response; `thenClose` is whether the connection ends after it.
        case writing([UInt8], sent: Int, thenClose: Bool)
        /// The response is out and our side is shut; read and discard until the peer closes, so that closing
        /// with unread bytes does not reset the connection before the peer has read the response.
        case draining(left: Int)
    }

    private struct Connection {
        var descriptor: Int32
        var phase: Phase
        var deadline: ContinuousClock.Instant
        /// Bytes of the request read so far: 0 for a connection that has said nothing yet, or nothing since its
        /// last answer.
        var received = 0
        /// Requests answered on this connection so far.
        var answered = 0
        /// While a response is written on a kept-alive connection: the bytes that followed its request.
        var pending: [UInt8] = []
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
    /// Counts every connection accepted, for ``LoopbackServer/connectionsAccepted``.
    private let accepted: Locked<Int>

    // Confined to the loop's thread.
    private var connections: [UInt64: Connection] = [:]
    private var nextConnection: UInt64 = 0
    private var readBuffer = [UInt8](repeating: 0, count: 64 * 1024)

    /// Creates a loop over a listening socket, which it does not own.
    /// - Parameters:
    ///   - listener: The listening socket.
    ///   - limits: The bounds of each connection and request.
    ///   - origin: `http://127.0.0.1:PORT`, to make each request's URL absolute.
    ///   - accepted: The count of accepted connections to add to.
    init(listener: Int32, limits: LoopbackServer.Limits, origin: String, accepted: Locked<Int>) throws {
        (wakeRead, wakeWrite) = try POSIXSocket.makePipe()
        self.accepted = accepted
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
        accepted.withLock { $0 += 1 }
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
                if connection.received == 0, connection.answered > 0 {
                    // A kept-alive connection's next request: it has the read timeout from its first byte.
                    connection.deadline = clock.now.advanced(by: limits.readTimeout)
                }
                connection.received += count
                accept(parser.feed(readBuffer[0..<count]), parser: parser, on: &connection, id: id)
            case .wouldBlock:
                break
            case .endOfFile, .failed:
                return close(id)
            }
        case .writing(let bytes, let sent, let thenClose):
            switch POSIXSocket.write(connection.descriptor, bytes, from: sent) {
            case .bytes(let count) where sent + count >= bytes.count && thenClose:
                POSIXSocket.shutdownWrite(connection.descriptor)
                connection.phase = .draining(left: max(limits.maximumBodyBytes * 4, 1 << 20))
                connection.deadline = clock.now.advanced(by: min(.seconds(2), limits.readTimeout))
            case .bytes(let count) where sent + count >= bytes.count:
                readNext(on: &connection, id: id)
            case .bytes(let count):
                connection.phase = .writing(bytes, sent: sent + count, thenClose: thenClose)
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

    /// Moves a connection on after its parser took bytes: reads on, hands a complete request to the model, or
    /// writes a refusal and closes.
    private func accept(
        _ progress: HTTPRequestParser.Progress, parser: HTTPRequestParser, on connection: inout Connection, id: UInt64
    ) {
        switch progress {
        case .needMore:
            connection.phase = .reading(parser)
        case .complete(let request):
            connection.phase = .handling(keepAlive: parser.keepsAlive, leftover: Array(parser.leftover))
            continuation.yield(Event(connection: id, request: request))
        case .failure(let status, let reason):
            // The framing of what follows is lost: the connection ends after the refusal.
            connection.phase = .writing(Self.refusal(status, reason), sent: 0, thenClose: true)
            connection.deadline = clock.now.advanced(by: limits.writeTimeout)
        }
    }

    /// After an answer on a kept-alive connection: starts the next request with the bytes that followed the last
    /// one (a pipelined request is handled at once), or waits for it, at most the idle timeout.
    private func readNext(on connection: inout Connection, id: UInt64) {
        connection.answered += 1
        let leftover = connection.pending
        connection.pending = []
        var parser = HTTPRequestParser(limits: limits, origin: origin)
        connection.received = leftover.count
        if leftover.isEmpty {
            connection.phase = .reading(parser)
            connection.deadline = clock.now.advanced(by: limits.idleTimeout)
        } else {
            connection.deadline = clock.now.advanced(by: limits.readTimeout)
            accept(parser.feed(leftover), parser: parser, on: &connection, id: id)
        }
    }

    private func deliver(_ answer: MockResponse, to id: UInt64) {
        guard var connection = connections[id], case .handling(let keepAlive, let leftover) = connection.phase else {
            return
        }
        switch answer {
        case .dropConnection:
            close(id)
        case .respond(let response):
            let staying = keepAlive && connection.answered + 1 < limits.maximumRequestsPerConnection
            connection.phase = .writing(response.wireBytes(keepAlive: staying), sent: 0, thenClose: !staying)
            connection.deadline = clock.now.advanced(by: limits.writeTimeout)
            connection.pending = staying ? leftover : []
            connections[id] = connection
        }
    }

    /// A request still incomplete at its read deadline gets 408; a kept-alive connection idle for the idle timeout
    /// is closed without a word (RFC 9112 §9.5); a response not written, or a drain not ended, by its deadline is cut
    /// off.
    private func expireDeadlines() {
        let now = clock.now
        for (id, connection) in connections where connection.deadline <= now {
            switch connection.phase {
            case .reading where connection.received == 0 && connection.answered > 0:
                close(id)
            case .reading:
                connections[id]?.phase = .writing(
                    Self.refusal(408, "the request took too long"), sent: 0, thenClose: true)
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
