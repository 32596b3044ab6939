import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One accepted connection of a ``RawHTTPServer``, used by the handler's thread only.
final class RawConnection: @unchecked Sendable {
    /// The most bytes one request may have.
    static let maximumRequestBytes = 4 << 20

    private let socket: Int32
    private let server: RawHTTPServer
    private var isClosed = false

    init(socket: Int32, server: RawHTTPServer) {
        self.socket = socket
        self.server = server
        // Long enough for a client slowed by a loaded machine or a sanitizer to send its next request on a
        // kept-alive connection (at 5 s, two reuse tests saw a second connection under load).
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Reads one request (head, then as many body bytes as `Content-Length` says) and records it on the server.
    /// - Returns: The request, or `nil` when the peer closed, stalled for 30 s, or sent more than 4 MiB.
    @discardableResult
    func readRequest() -> RawRequest? {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while bytes.count <= Self.maximumRequestBytes {
            if let request = RawRequest(parsing: bytes) {
                server.record(request)
                return request
            }
            let count = recv(socket, &buffer, buffer.count, 0)
            guard count > 0 else { return nil }
            bytes += buffer[..<count]
        }
        return nil
    }

    /// Writes all of `bytes`.
    /// - Returns: Whether every byte was written (false when the peer went away or stalled).
    @discardableResult
    func write(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    /// Writes `text` as UTF-8.
    @discardableResult
    func write(_ text: String) -> Bool {
        write(Array(text.utf8))
    }

    /// Shrinks the kernel's send buffer, so that writes block (and fail) soon after the peer stops reading.
    func limitSendBuffer(to bytes: Int32) {
        var size = bytes
        setsockopt(socket, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Waits until the peer closes the connection, reading and discarding whatever it sends, for at most `seconds`.
    /// - Returns: Whether the peer closed in time.
    func waitForPeerToClose(seconds: Int) -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while ContinuousClock.now < deadline {
            var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 50) > 0 else { continue }
            if recv(socket, &buffer, buffer.count, 0) <= 0 { return true }
        }
        return false
    }

    /// How many requests the server has read so far, on all connections.
    var requestsSoFar: Int { server.requests.count }

    /// Notes an event on the server, for the test to check.
    func note(_ text: String) {
        server.note(text)
    }

    /// Closes the connection (the server does this after the handler returns).
    func close() {
        guard !isClosed else { return }
        isClosed = true
        Glibc.close(socket)
    }
}
