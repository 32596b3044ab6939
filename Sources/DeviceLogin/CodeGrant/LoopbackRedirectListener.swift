#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The loopback redirect listener of a native app (RFC 8252 §7.3): `http://127.0.0.1:PORT/callback` or
/// `http://[::1]:PORT/callback`, on a random port unless one is fixed.
///
/// It waits for exactly one redirect that ``AuthorizationResponse`` accepts for this sign-in (the path, the
/// `state`, `iss`), answers it with a small page saying the window can be closed — fixed text, nothing of the
/// request or the server echoed — and closes. Anything else (another path, another method, a wrong `state`, a
/// request over ``maximumRequestBytes`` or slower than ``requestTimeoutMilliseconds``) gets a refusal and the
/// listener keeps waiting. It binds the loopback address only, and runs its `poll(2)` loop on a dedicated thread,
/// never on the cooperative pool; cancelling the waiting task closes it within
/// ``cancellationCheckMilliseconds``.
///
/// ```swift
/// let listener = try LoopbackRedirectListener()
/// let request = try AuthorizationRequest.make(clientID: "app", redirectURI: listener.redirectURI, scopes: [])
/// let response = try await listener.waitForRedirect(expecting: expectation)
/// ```
public final class LoopbackRedirectListener: Sendable {
    /// Which loopback literal to listen on.
    public enum Address: String, Sendable, Hashable {
        /// `127.0.0.1`.
        case ipv4
        /// `[::1]`.
        case ipv6
    }

    /// The redirect URI to register and send: `http://127.0.0.1:PORT/path` or `http://[::1]:PORT/path`.
    public let redirectURI: String
    /// The port listened on.
    public let port: UInt16
    /// The path the redirect must have.
    public let path: String
    private let listener: Locked<Int32>

    /// The largest request read, head included, in bytes.
    public static let maximumRequestBytes = 8192
    /// How long one connection may take to send its request.
    public static let requestTimeoutMilliseconds: Int32 = 2000
    /// How often the loop looks at whether its task was cancelled.
    public static let cancellationCheckMilliseconds: Int32 = 100

    /// Opens the listener.
    /// - Parameters:
    ///   - address: The loopback literal.
    ///   - port: The port; 0 for one the system chooses (RFC 8252 §7.3 recommends a random one).
    ///   - path: The redirect's path, starting with `/`.
    /// - Throws: ``DeviceLoginError`` (``DeviceLoginError/Code/configuration``) when the socket cannot be opened
    ///   (the port is taken, IPv6 is off).
    public init(address: Address = .ipv4, port: UInt16 = 0, path: String = "/callback") throws {
        guard path.hasPrefix("/"), path.utf8.allSatisfy({ (0x21...0x7E).contains($0) && $0 != UInt8(ascii: "?") })
        else { throw DeviceLoginError(.configuration, "a loopback redirect path must start with / and be plain") }
        let (descriptor, bound) = try Self.listen(address: address, port: port)
        self.listener = Locked(descriptor)
        self.port = bound
        self.path = path
        self.redirectURI = "http://\(address == .ipv4 ? "127.0.0.1" : "[::1]"):\(bound)\(path)"
    }

    /// Opens the listener on `127.0.0.1`, or on `[::1]` when IPv4 loopback cannot be bound (RFC 8252 §7.3, §8.3:
    /// IPv4 loopback first, since some providers accept only it, and whichever literal is available otherwise).
    ///
    /// ```swift
    /// let listener = try LoopbackRedirectListener.onAvailableLoopback()
    /// print(listener.redirectURI) // http://127.0.0.1:49152/callback, or http://[::1]:49152/callback
    /// ```
    /// - Parameters:
    ///   - port: The port; 0 for one the system chooses.
    ///   - path: The redirect's path, starting with `/`.
    /// - Returns: The listener on the first literal that could be bound.
    /// - Throws: The IPv4 literal's ``DeviceLoginError`` when neither can be bound (or when `path` is refused).
    public static func onAvailableLoopback(port: UInt16 = 0, path: String = "/callback") throws
        -> LoopbackRedirectListener
    {
        do {
            return try LoopbackRedirectListener(address: .ipv4, port: port, path: path)
        } catch let first {
            do { return try LoopbackRedirectListener(address: .ipv6, port: port, path: path) } catch { throw first }
        }
    }

    deinit { close() }

    /// Closes the socket; a wait in progress ends with `CancellationError`. Safe to call more than once.
    public func close() {
        let descriptor = listener.withLock { descriptor in
            defer { descriptor = -1 }
            return descriptor
        }
        if descriptor >= 0 { _ = systemClose(descriptor) }
    }

    /// Whether the socket is still open.
    public var isOpen: Bool { listener.withLock { $0 >= 0 } }

    /// Waits for the one redirect this sign-in expects, answers it and closes.
    /// - Returns: The authorization response.
    /// - Throws: What ``AuthorizationResponse/parse(query:expecting:)`` throws for an `error` answer of this
    ///   sign-in (`access_denied` …); `CancellationError` when the task is cancelled or the listener closed.
    public func waitForRedirect(
        expecting expected: AuthorizationResponse.Expectation
    ) async throws -> AuthorizationResponse {
        let cancelled = Locked(false)
        defer { close() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let started = DedicatedThread.start {
                    continuation.resume(with: Result { try self.serve(expected, cancelled: cancelled) })
                }
                if !started {
                    continuation.resume(
                        throwing: DeviceLoginError(.configuration, "could not start the loopback listener's thread"))
                }
            }
        } onCancel: {
            cancelled.withLock { $0 = true }
        }
    }

    /// The loop: wait for a connection, read one request, answer it; until one is this sign-in's redirect.
    private func serve(
        _ expected: AuthorizationResponse.Expectation, cancelled: Locked<Bool>
    ) throws -> AuthorizationResponse {
        while true {
            let descriptor = listener.withLock { $0 }
            guard descriptor >= 0, !cancelled.withLock({ $0 }) else { throw CancellationError() }
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, Self.cancellationCheckMilliseconds) > 0 else { continue }
            let connection = accept(descriptor, nil, nil)
            guard connection >= 0 else { continue }
            defer { _ = systemClose(connection) }
            if let outcome = answer(connection, expected: expected) { return try outcome.get() }
        }
    }

    /// Reads one request and answers it; the sign-in's outcome when it was this sign-in's redirect, else nil.
    private func answer(
        _ connection: Int32, expected: AuthorizationResponse.Expectation
    ) -> Result<AuthorizationResponse, any Error>? {
        guard let head = Self.readHead(connection) else {
            Self.reply(connection, status: "400 Bad Request", page: Self.refusedPage)
            return nil
        }
        let verdict = Self.judge(head: head, path: path, expected: expected)
        switch verdict {
        case .refused(let status):
            Self.reply(connection, status: status, page: Self.refusedPage)
            return nil
        case .finished(let outcome):
            let signedIn = (try? outcome.get()) != nil
            Self.reply(connection, status: "200 OK", page: signedIn ? Self.successPage : Self.declinedPage)
            return outcome
        }
    }

    /// What a request is to this listener.
    enum Verdict {
        /// Not this sign-in's redirect: answered with this status, and the wait goes on.
        case refused(String)
        /// This sign-in's redirect: a code, or the server's error.
        case finished(Result<AuthorizationResponse, any Error>)
    }

    /// Judges a request head (a pure function: the listener's tests drive it with tables).
    static func judge(head: String, path: String, expected: AuthorizationResponse.Expectation) -> Verdict {
        let requestLine = head.split(separator: "\r\n", maxSplits: 1).first ?? ""
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[2].hasPrefix("HTTP/1.") else { return .refused("400 Bad Request") }
        guard parts[0] == "GET" else { return .refused("405 Method Not Allowed") }
        let target = parts[1].split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        guard target[0] == path else { return .refused("404 Not Found") }
        do {
            return .finished(
                .success(try AuthorizationResponse.parse(query: target.count > 1 ? target[1] : "", expecting: expected))
            )
        } catch let error as DeviceLoginError where error.code == .accessDenied || error.code == .oauth {
            return .finished(.failure(error))
        } catch {
            return .refused("400 Bad Request")
        }
    }

    /// Reads up to the end of the request head, at most ``maximumRequestBytes``, within the time limit.
    private static func readHead(_ connection: Int32) -> String? {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 2048)
        var remaining = requestTimeoutMilliseconds
        while remaining > 0 {
            var entry = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
            let step = min(remaining, 100)
            remaining -= step
            guard poll(&entry, 1, step) > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return nil }
            bytes.append(contentsOf: buffer[0..<count])
            guard bytes.count <= maximumRequestBytes else { return nil }
            if let end = bytes.firstRange(of: [13, 10, 13, 10]) {
                return String(decoding: bytes[..<end.lowerBound], as: UTF8.self)
            }
        }
        return nil
    }

    private static func reply(_ connection: Int32, status: String, page: String) {
        let response =
            "HTTP/1.1 \(status)\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: \(page.utf8.count)\r\n"
            + "Cache-Control: no-store\r\nReferrer-Policy: no-referrer\r\nConnection: close\r\n\r\n" + page
        var bytes = Array(response.utf8)[...]
        while !bytes.isEmpty {
            #if canImport(Darwin)
            let flags: Int32 = 0
            #else
            let flags = Int32(MSG_NOSIGNAL)
            #endif
            let sent = bytes.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, flags) }
            guard sent > 0 else { return }
            bytes = bytes.dropFirst(sent)
        }
    }

    private static func page(_ title: String, _ text: String) -> String {
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>\(title)</title></head>"
            + "<body><h1>\(title)</h1><p>\(text)</p></body></html>"
    }
    static let successPage = page("Signed in", "You can close this window and return to the terminal.")
    static let declinedPage = page("Sign-in not completed", "You can close this window; the terminal says why.")
    static let refusedPage = page("Not this sign-in", "This is not the request the sign-in is waiting for.")

    /// A listening socket on the loopback literal, and its port.
    private static func listen(address: Address, port: UInt16) throws -> (Int32, UInt16) {
        let family = address == .ipv4 ? AF_INET : AF_INET6
        #if canImport(Darwin)
        let descriptor = socket(family, SOCK_STREAM, 0)
        #else
        let descriptor = socket(family, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        func failure(_ action: String) -> DeviceLoginError {
            let text = strerror(errno).map { String(cString: $0) } ?? "error \(errno)"
            let place = address == .ipv4 ? "127.0.0.1" : "[::1]"
            return DeviceLoginError(
                .configuration, "the loopback listener could not \(action) on \(place):\(port): \(text)",
                hint: port == 0 ? nil : "another program may hold the port: free it or choose another"
            )
        }
        guard descriptor >= 0 else { throw failure("open a socket") }
        if port != 0 {
            // A fixed port is bound again by the next sign-in: the last one's connection, in TIME_WAIT for a minute,
            // must not hold it. A port another program listens on is still refused (EADDRINUSE).
            var on: Int32 = 1
            _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        }
        var storage = sockaddr_storage()
        let length: socklen_t
        if address == .ipv4 {
            var ipv4 = sockaddr_in()
            ipv4.sin_family = sa_family_t(AF_INET)
            ipv4.sin_port = port.bigEndian
            ipv4.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: ipv4, as: sockaddr_in.self) }
        } else {
            var ipv6 = sockaddr_in6()
            ipv6.sin6_family = sa_family_t(AF_INET6)
            ipv6.sin6_port = port.bigEndian
            ipv6.sin6_addr = in6addr_loopback
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: ipv6, as: sockaddr_in6.self) }
        }
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard bound == 0, systemListen(descriptor, 16) == 0 else {
            let error = failure("listen")
            _ = systemClose(descriptor)
            throw error
        }
        var named = sockaddr_storage()
        var namedLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &named) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &namedLength) }
        }
        let boundPort = withUnsafeBytes(of: &named) { raw in
            address == .ipv4
                ? raw.load(as: sockaddr_in.self).sin_port : raw.load(as: sockaddr_in6.self).sin6_port
        }
        return (descriptor, UInt16(bigEndian: boundPort))
    }
}

/// `close(2)`, out of the way of the listener's own `close()`.
private func systemClose(_ descriptor: Int32) -> Int32 {
    #if canImport(Darwin)
    Darwin.close(descriptor)
    #else
    Glibc.close(descriptor)
    #endif
}

/// `listen(2)`, out of the way of the listener's own `listen(address:port:)`.
private func systemListen(_ descriptor: Int32, _ backlog: Int32) -> Int32 {
    #if canImport(Darwin)
    Darwin.listen(descriptor, backlog)
    #else
    Glibc.listen(descriptor, backlog)
    #endif
}
