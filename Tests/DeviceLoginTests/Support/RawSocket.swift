import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Small helpers over BSD sockets on 127.0.0.1 for the raw test servers.
enum RawSocket {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// A listening TCP socket on 127.0.0.1 with a port the kernel chose.
    static func listen(backlog: Int32) throws -> (socket: Int32, port: UInt16) {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw Failure(description: "socket() failed: errno \(errno)") }
        var address = loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, Glibc.listen(socket, backlog) == 0 else {
            close(socket)
            throw Failure(description: "bind/listen failed: errno \(errno)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        return (socket, UInt16(bigEndian: address.sin_port))
    }

    /// A port on 127.0.0.1 that nothing listens on (bound, then closed).
    static func closedPort() throws -> UInt16 {
        let (socket, port) = try listen(backlog: 1)
        close(socket)
        return port
    }

    /// Starts a non-blocking connection to 127.0.0.1:`port` without waiting for it.
    static func startConnecting(to port: UInt16) -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return socket }
        _ = fcntl(socket, F_SETFL, fcntl(socket, F_GETFL) | O_NONBLOCK)
        var address = loopback(port: port)
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        return socket
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}
