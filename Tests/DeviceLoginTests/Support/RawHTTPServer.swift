import DeviceLogin
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A scripted server on a random 127.0.0.1 port that speaks raw bytes, so tests see exactly what a client sent
/// and can answer with anything, HTTP or not.
///
/// A thread accepts connections and hands each to `handler` on a thread of its own. Everything is bounded: at
/// most 64 connections, 30 s socket timeouts, 4 MiB per request, and the server stops by itself after 150 s (long,
/// because a test starved of threads in a parallel sanitizer run can take 20 s and more to send its request).
/// Call ``stop()`` when done.
final class RawHTTPServer: Sendable {
    /// What the server does with one connection.
    typealias Handler = @Sendable (RawConnection) -> Void

    private struct State {
        var stopped = false
        var connections = 0
        var requests: [RawRequest] = []
        var notes: [String] = []
    }

    /// The port the server listens on.
    let port: UInt16
    private let listener: Int32
    private let state = Locked(State())

    /// Starts listening and accepting.
    /// - Parameter handler: The script each connection runs; the connection is closed after it returns.
    init(handler: @escaping Handler) throws {
        (listener, port) = try RawSocket.listen(backlog: 64)
        let thread = Thread { [self] in acceptLoop(handler) }
        thread.start()
    }

    /// The requests read so far, in arrival order.
    var requests: [RawRequest] { state.withLock { $0.requests } }
    /// What handlers noted so far (e.g. "peer closed", "send failed").
    var notes: [String] { state.withLock { $0.notes } }
    /// How many connections the server accepted so far.
    var acceptedConnections: Int { state.withLock { $0.connections } }

    /// `http://127.0.0.1:<port><path>`.
    func url(_ path: String = "/") -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)")!
    }

    /// Stops accepting; connections still open end by their own timeouts.
    func stop() {
        state.withLock { $0.stopped = true }
    }

    /// Waits (polling, at most `timeout`) until `condition` holds. The default is long because the polling task
    /// itself can wait seconds for a thread in a parallel run (10 s seen under ASan); it is spent only on failure.
    /// - Returns: Whether it held in time.
    func wait(timeout: Duration = .seconds(60), until condition: (RawHTTPServer) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition(self) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition(self)
    }

    func record(_ request: RawRequest) {
        state.withLock { $0.requests.append(request) }
    }

    func note(_ text: String) {
        state.withLock { $0.notes.append(text) }
    }

    private var isStopped: Bool { state.withLock { $0.stopped } }

    private func acceptLoop(_ handler: @escaping Handler) {
        defer { close(listener) }
        let deadline = ContinuousClock.now + .seconds(150)
        while !isStopped, ContinuousClock.now < deadline {
            var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 50) > 0 else { continue }
            let socket = accept(listener, nil, nil)
            guard socket >= 0 else { continue }
            let admitted = state.withLock { state in
                state.connections += 1
                return state.connections <= 64
            }
            guard admitted else {
                close(socket)
                continue
            }
            let connection = RawConnection(socket: socket, server: self)
            Thread {
                handler(connection)
                connection.close()
            }.start()
        }
    }
}

extension RawHTTPServer {
    /// The bytes of an HTTP/1.1 response with a `Content-Length`, and `Connection: close` unless `keepAlive`.
    static func response(
        status: Int = 200,
        reason: String = "OK",
        headers: [(String, String)] = [],
        body: String = "",
        keepAlive: Bool = false
    ) -> [UInt8] {
        var head = "HTTP/1.1 \(status) \(reason)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(body.utf8.count)\r\n\(keepAlive ? "" : "Connection: close\r\n")\r\n"
        return Array((head + body).utf8)
    }

    /// A server that answers every request with `bytes`.
    static func replying(_ bytes: [UInt8]) throws -> RawHTTPServer {
        try RawHTTPServer { connection in
            guard connection.readRequest() != nil else { return }
            connection.write(bytes)
        }
    }

    /// A server that keeps each connection open and answers every request on it with `bytes` (which should be a
    /// keep-alive response), until the client closes it or stays silent for 30 s. Requests must come one at a
    /// time, as libcurl sends them: bytes past the end of a request are dropped.
    /// - Parameters:
    ///   - bytes: The response.
    ///   - beforeAnswering: Runs on the connection's thread for each request, after reading it and before
    ///     answering.
    static func keepingAlive(
        _ bytes: [UInt8], beforeAnswering: @escaping @Sendable () -> Void = {}
    ) throws -> RawHTTPServer {
        try RawHTTPServer { connection in
            while connection.readRequest() != nil {
                beforeAnswering()
                guard connection.write(bytes) else { return }
            }
        }
    }
}
