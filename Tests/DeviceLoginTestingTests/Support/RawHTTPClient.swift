import DeviceLogin
import Foundation

@testable import DeviceLoginTesting

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// A deliberately tiny HTTP/1.1 client over POSIX sockets, to test the loopback listener without any transport
/// of the library.
///
/// Each exchange runs its blocking calls on a thread of its own, so the cooperative pool never blocks; socket
/// timeouts bound every wait.
enum RawHTTPClient {
    /// Everything the server sent before it closed the connection.
    struct Exchange: Sendable {
        /// The raw bytes received.
        var bytes: [UInt8]
        /// Whether the server closed the connection (end-of-file or reset), rather than the client timing out.
        var closedByServer: Bool

        /// The status code, when a status line arrived.
        var status: Int? {
            guard let line = head.first else { return nil }
            let parts = line.split(separator: " ")
            return parts.count >= 2 ? Int(parts[1]) : nil
        }

        /// The value of the first header with this name, case-insensitively.
        func header(_ name: String) -> String? {
            for line in head.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                if line[..<colon].lowercased() == name.lowercased() {
                    return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
            }
            return nil
        }

        /// The body: what follows the blank line.
        var body: String {
            let text = String(decoding: bytes, as: UTF8.self)
            guard let range = text.range(of: "\r\n\r\n") else { return "" }
            return String(text[range.upperBound...])
        }

        /// The response as a library value, for reading OAuth answers.
        var response: HTTPResponse {
            let headers = head.dropFirst().compactMap { line -> HTTPHeader? in
                guard let colon = line.firstIndex(of: ":") else { return nil }
                return HTTPHeader(
                    String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                )
            }
            return HTTPResponse(status: status ?? 0, headers: headers, body: Data(body.utf8))
        }

        private var head: [String] {
            let text = String(decoding: bytes, as: UTF8.self)
            guard let range = text.range(of: "\r\n\r\n") else { return [] }
            return text[..<range.lowerBound].components(separatedBy: "\r\n")
        }
    }

    /// The bytes of a request. It asks the server to close the connection after its answer (an ``exchange``
    /// reads until the server closes), unless `keepAlive`.
    static func request(
        _ method: String, _ target: String, headers: [(String, String)] = [], body: String? = nil,
        keepAlive: Bool = false
    ) -> [UInt8] {
        var text = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        if !keepAlive { text += "Connection: close\r\n" }
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if let body { text += "Content-Length: \(body.utf8.count)\r\n" }
        text += "\r\n" + (body ?? "")
        return Array(text.utf8)
    }

    /// A form POST.
    static func form(
        _ target: String, _ pairs: [(String, String)], headers: [(String, String)] = [], keepAlive: Bool = false
    ) -> [UInt8] {
        request(
            "POST", target, headers: [("Content-Type", "application/x-www-form-urlencoded")] + headers,
            body: FormEncoding.encode(pairs), keepAlive: keepAlive
        )
    }

    /// What one connection carried: the responses, split by their `Content-Length`, and how it ended.
    struct Session: Sendable {
        /// Each response received, in order.
        var responses: [Exchange]
        /// Whether the server closed the connection after the last response (rather than the client timing out).
        var closedByServer: Bool
        /// Bytes received after the last whole response.
        var trailing: [UInt8]
    }

    /// Sends `requests` on one connection and reads a whole response after each (or, when `pipelined`, sends them
    /// all at once and then reads the responses); then reads on until the server closes or `timeoutSeconds` pass
    /// without data. Stops early when the server closes.
    static func session(
        port: UInt16, _ requests: [[UInt8]], pipelined: Bool = false, timeoutSeconds: Int = 20
    ) async -> Session {
        await withCheckedContinuation { continuation in
            let thread = Thread {
                continuation.resume(
                    returning: blockingSession(
                        port: port, requests, pipelined: pipelined, timeoutSeconds: timeoutSeconds))
            }
            thread.start()
        }
    }

    /// Connects to 127.0.0.1:`port`, sends `request` (possibly in pieces, with a pause between them), and reads
    /// until the server closes or `timeoutSeconds` pass without data.
    static func exchange(
        port: UInt16, _ request: [UInt8], pieces: Int = 1, pauseMilliseconds: Int = 0, timeoutSeconds: Int = 20
    ) async -> Exchange {
        await withCheckedContinuation { continuation in
            let thread = Thread {
                continuation.resume(
                    returning: blockingExchange(
                        port: port, request, pieces: pieces, pauseMilliseconds: pauseMilliseconds,
                        timeoutSeconds: timeoutSeconds
                    ))
            }
            thread.start()
        }
    }

    /// Opens a connection that sends nothing, for connection limits; close it with ``close(_:)``.
    static func idleConnection(port: UInt16) -> Int32? {
        let descriptor = connectSocket(port: port, timeoutSeconds: 20)
        return descriptor >= 0 ? descriptor : nil
    }

    static func close(_ descriptor: Int32) {
        POSIXSocket.closeDescriptor(descriptor)
    }

    /// A blocking socket connected to 127.0.0.1:`port`, with send and receive timeouts, or -1.
    private static func connectSocket(port: UInt16, timeoutSeconds: Int) -> Int32 {
        let descriptor = POSIXSocket.makeTCPSocket()
        guard descriptor >= 0 else { return -1 }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        POSIXSocket.suppressSIGPIPE(descriptor)
        var address = POSIXSocket.loopbackAddress(port: port)
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            return -1
        }
        return descriptor
    }

    private static func blockingSession(
        port: UInt16, _ requests: [[UInt8]], pipelined: Bool, timeoutSeconds: Int
    ) -> Session {
        var session = Session(responses: [], closedByServer: true, trailing: [])
        let descriptor = connectSocket(port: port, timeoutSeconds: timeoutSeconds)
        guard descriptor >= 0 else { return session }
        defer { close(descriptor) }
        var buffer: [UInt8] = []
        let writes = pipelined ? [requests.flatMap { $0 }] : requests
        let expected = requests.count
        for write in writes {
            let sent = write.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, POSIXSocket.sendFlags) }
            guard sent == write.count else { break }
            let wanted = pipelined ? expected : session.responses.count + 1
            while session.responses.count < wanted {
                if let (response, rest) = splitResponse(buffer) {
                    session.responses.append(response)
                    buffer = rest
                    continue
                }
                guard let more = receive(descriptor) else {
                    session.closedByServer = errno != EAGAIN && errno != EWOULDBLOCK
                    session.trailing = buffer
                    return session
                }
                buffer += more
            }
        }
        while let more = receive(descriptor) { buffer += more }
        session.closedByServer = errno != EAGAIN && errno != EWOULDBLOCK
        session.trailing = buffer
        return session
    }

    /// One read: the bytes, or nil when the server closed (errno 0 or ECONNRESET) or the read timed out (EAGAIN).
    private static func receive(_ descriptor: Int32) -> [UInt8]? {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        errno = 0
        let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        if count > 0 { return Array(chunk[0..<count]) }
        if count == 0 { errno = 0 }
        return nil
    }

    /// The first whole response in `bytes` (head and `Content-Length` body), and the bytes after it.
    private static func splitResponse(_ bytes: [UInt8]) -> (Exchange, [UInt8])? {
        let separator = Array("\r\n\r\n".utf8)
        guard bytes.count >= separator.count,
            let end = (0...(bytes.count - separator.count)).first(where: {
                bytes[$0..<($0 + separator.count)].elementsEqual(separator)
            })
        else { return nil }
        let head = Exchange(bytes: Array(bytes[..<(end + 4)]), closedByServer: false)
        let length = head.header("Content-Length").flatMap { Int($0) } ?? 0
        let total = end + 4 + length
        guard bytes.count >= total else { return nil }
        return (Exchange(bytes: Array(bytes[..<total]), closedByServer: false), Array(bytes[total...]))
    }

    private static func blockingExchange(
        port: UInt16, _ request: [UInt8], pieces: Int, pauseMilliseconds: Int, timeoutSeconds: Int
    ) -> Exchange {
        let descriptor = connectSocket(port: port, timeoutSeconds: timeoutSeconds)
        guard descriptor >= 0 else { return Exchange(bytes: [], closedByServer: true) }
        defer { close(descriptor) }
        let flags = POSIXSocket.sendFlags
        let pieceSize = max(1, (request.count + pieces - 1) / pieces)
        var offset = 0
        sending: while offset < request.count {
            let end = min(offset + pieceSize, request.count)
            while offset < end {
                let sent = request[offset..<end].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, flags) }
                guard sent > 0 else { break sending } // The server may refuse and close before reading it all.
                offset += sent
            }
            if offset < request.count, pauseMilliseconds > 0 { usleep(useconds_t(pauseMilliseconds * 1000)) }
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                received.append(contentsOf: buffer[0..<count])
            } else if count == 0 || errno == ECONNRESET {
                return Exchange(bytes: received, closedByServer: true)
            } else {
                return Exchange(bytes: received, closedByServer: false)
            }
        }
    }
}
