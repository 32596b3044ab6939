import DeviceLogin

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// The few POSIX socket calls the loopback listener makes, with the platform differences in one place.
///
/// Every descriptor is non-blocking; callers wait with `poll(2)` on their own thread, never on the cooperative
/// pool.
enum POSIXSocket {
    /// The last system error as a sentence.
    static func lastError(_ action: String) -> TransportError {
        let code = errno
        let text = strerror(code).map { String(cString: $0) } ?? "error \(code)"
        return TransportError(.other, "\(action) failed: \(text)")
    }

    /// A listening TCP socket on 127.0.0.1 (never another address), and the port it got.
    /// - Parameters:
    ///   - port: The port; 0 for one the system chooses.
    ///   - backlog: The listen queue length.
    static func listenOnLoopback(port: UInt16, backlog: Int32 = 128) throws -> (descriptor: Int32, port: UInt16) {
        let descriptor = makeTCPSocket()
        guard descriptor >= 0 else { throw lastError("socket") }
        var reuse: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = loopbackAddress(port: port)
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else {
            let error = lastError("bind to 127.0.0.1:\(port)")
            closeDescriptor(descriptor)
            throw error
        }
        guard listen(descriptor, backlog) == 0 else {
            let error = lastError("listen")
            closeDescriptor(descriptor)
            throw error
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &actual) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0 else {
            let error = lastError("getsockname")
            closeDescriptor(descriptor)
            throw error
        }
        setNonBlocking(descriptor)
        return (descriptor, UInt16(bigEndian: actual.sin_port))
    }

    /// A new IPv4 TCP socket, or -1.
    static func makeTCPSocket() -> Int32 {
        #if canImport(Darwin)
        return socket(AF_INET, SOCK_STREAM, 0)
        #else
        return socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
    }

    /// The address 127.0.0.1:`port`: loopback only, by design.
    static func loopbackAddress(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        #if canImport(Darwin)
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }

    /// Accepts a pending connection, non-blocking, or returns nil when none is waiting.
    static func accept(_ listener: Int32) -> Int32? {
        #if canImport(Darwin)
        let descriptor = Darwin.accept(listener, nil, nil)
        #else
        let descriptor = Glibc.accept(listener, nil, nil)
        #endif
        guard descriptor >= 0 else { return nil }
        setNonBlocking(descriptor)
        suppressSIGPIPE(descriptor)
        return descriptor
    }

    /// Darwin has no `MSG_NOSIGNAL`: a socket option keeps a write to a closed peer from raising SIGPIPE.
    static func suppressSIGPIPE(_ descriptor: Int32) {
        #if canImport(Darwin)
        var noSignal: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &noSignal, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    /// The flags for `send(2)`: `MSG_NOSIGNAL` where it exists.
    static var sendFlags: Int32 {
        #if canImport(Darwin)
        return 0
        #else
        return Int32(MSG_NOSIGNAL)
        #endif
    }

    /// A pipe whose two ends are non-blocking: used to wake a `poll(2)`.
    static func makePipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw lastError("pipe") }
        setNonBlocking(ends[0])
        setNonBlocking(ends[1])
        return (ends[0], ends[1])
    }

    /// Empties the read end of a non-blocking pipe; returns how many bytes it held.
    ///
    /// With `read(2)`: `recv(2)` works on sockets only and fails on a pipe with ENOTSOCK, which left the wake-up
    /// pipe full and `poll(2)` returning at once, forever (a busy loop on a whole core).
    @discardableResult
    static func drainPipe(_ descriptor: Int32) -> Int {
        var scratch = [UInt8](repeating: 0, count: 64)
        var total = 0
        while true {
            let count = scratch.withUnsafeMutableBytes { raw in
                #if canImport(Darwin)
                Darwin.read(descriptor, raw.baseAddress, raw.count)
                #else
                Glibc.read(descriptor, raw.baseAddress, raw.count)
                #endif
            }
            if count > 0 {
                total += count
            } else if count < 0, errno == EINTR {
                continue
            } else {
                return total
            }
        }
    }

    static func setNonBlocking(_ descriptor: Int32) {
        let flags = fcntl(descriptor, F_GETFL, 0)
        _ = fcntl(descriptor, F_SETFL, flags | O_NONBLOCK)
    }

    /// What a read or write came to.
    enum IOResult: Equatable {
        /// This many bytes moved.
        case bytes(Int)
        /// Nothing now; try after the next `poll(2)`.
        case wouldBlock
        /// The peer closed its end (reads only).
        case endOfFile
        /// The connection failed.
        case failed
    }

    /// Reads up to `buffer.count` bytes.
    static func read(_ descriptor: Int32, into buffer: inout [UInt8]) -> IOResult {
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        if count > 0 { return .bytes(count) }
        if count == 0 { return .endOfFile }
        return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? .wouldBlock : .failed
    }

    /// Writes bytes from `offset`, never raising SIGPIPE.
    static func write(_ descriptor: Int32, _ bytes: [UInt8], from offset: Int) -> IOResult {
        let count = bytes.withUnsafeBytes { raw in
            send(descriptor, raw.baseAddress.map { $0 + offset }, raw.count - offset, sendFlags)
        }
        if count >= 0 { return .bytes(count) }
        return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? .wouldBlock : .failed
    }

    /// Ends the sending direction, so the peer reads end-of-file after the response.
    static func shutdownWrite(_ descriptor: Int32) {
        _ = shutdown(descriptor, Int32(SHUT_WR))
    }

    static func closeDescriptor(_ descriptor: Int32) {
        #if canImport(Darwin)
        _ = Darwin.close(descriptor)
        #else
        _ = Glibc.close(descriptor)
        #endif
    }

    /// Waits for events on `descriptors` for at most `timeoutMilliseconds`; fills in `revents`.
    static func wait(_ descriptors: inout [pollfd], timeoutMilliseconds: Int32) {
        _ = poll(&descriptors, nfds_t(descriptors.count), timeoutMilliseconds)
    }
}
