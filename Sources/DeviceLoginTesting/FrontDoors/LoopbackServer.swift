import DeviceLogin

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A small HTTP/1.1 server on 127.0.0.1 that serves a ``MockAuthorizationServer`` over real sockets: for tests of
/// real transports and the CLI, and for demos in a browser.
///
/// It only ever binds the loopback address. It is bounded: request line, head and body sizes, a read timeout, an
/// idle timeout, a connection limit and a limit of requests per connection (see ``Limits``). Connections are kept
/// alive as HTTP/1.1 says (RFC 9112 §9.3): a connection carries one request after another, answered in order,
/// until the client sends `Connection: close`, a limit ends it (the last answer then says `Connection: close`), or
/// it stays idle for ``Limits/idleTimeout``. ``connectionsAccepted`` counts the connections clients opened. The
/// model's approval page at the verification URI lets a person approve or deny a code in a browser.
///
/// Run it for the length of a scope:
///
/// ```swift
/// let model = MockAuthorizationServer(configuration: .init(defaultScript: .approve(afterPolls: 1)))
/// try await LoopbackServer.withRunning(model: model) { server in
///     let metadata = try await Discovery(transport: transport).metadata(issuer: server.baseURL.absoluteString)
///     // ...
/// }
/// ```
///
/// Or bind first and serve beside other work, in structured concurrency:
///
/// ```swift
/// let server = try LoopbackServer(model: model)
/// print("Issuer: \(server.baseURL)")
/// async let serving: Void = server.run()
/// try await runDemo(issuer: server.baseURL)
/// await server.stop()
/// try await serving
/// ```
///
/// Or, where no scope fits, ``start(model:port:limits:)`` and ``stop()``.
///
/// Binding moves the model's issuer to `http://127.0.0.1:<port>` (keeping its path), so the documents it serves
/// name this server.
public final class LoopbackServer: Sendable {
    /// The listener's bounds. Every default suits tests; a request over a bound is refused with 413, 414, 431
    /// or 400 and its connection closed.
    public struct Limits: Sendable, Hashable {
        /// The longest request line, in bytes (414 beyond). Default 8 KiB.
        public var maximumRequestLineBytes: Int
        /// The largest request head (request line and header fields), in bytes (431 beyond). Default 16 KiB.
        public var maximumHeaderBytes: Int
        /// The most header fields (431 beyond). Default 64.
        public var maximumHeaderCount: Int
        /// The largest request body, in bytes (413 beyond). Default 64 KiB.
        public var maximumBodyBytes: Int
        /// How long a client has, from connecting or from the first byte of a later request on a kept-alive
        /// connection, to send its whole request (408 after). Default 10 s.
        public var readTimeout: Duration
        /// How long a kept-alive connection may wait, after an answer, for the first byte of its next request;
        /// then it is closed without an answer. Default 30 s: longer than the polling intervals the mock uses, so
        /// that a client polling on one connection does not find it closed under it.
        public var idleTimeout: Duration
        /// The most requests one connection carries; the answer to the last says `Connection: close`. Default 100.
        public var maximumRequestsPerConnection: Int
        /// How long writing a response may take before the connection is cut. Default 30 s.
        public var writeTimeout: Duration
        /// How many connections are served at once. Default 64. When all are taken, a newcomer replaces the oldest
        /// connection that has sent nothing yet (an idle kept-alive one included; else the oldest still sending its
        /// request); only when every one is being answered do newcomers wait in the listen queue. The process needs a
        /// file descriptor for each (`RLIMIT_NOFILE`): raising that limit is the caller's business.
        public var maximumConnections: Int

        /// Creates limits; every parameter has the default documented on its property.
        public init(
            maximumRequestLineBytes: Int = 8 << 10,
            maximumHeaderBytes: Int = 16 << 10,
            maximumHeaderCount: Int = 64,
            maximumBodyBytes: Int = 64 << 10,
            readTimeout: Duration = .seconds(10),
            writeTimeout: Duration = .seconds(30),
            maximumConnections: Int = 64,
            idleTimeout: Duration = .seconds(30),
            maximumRequestsPerConnection: Int = 100
        ) {
            self.maximumRequestLineBytes = maximumRequestLineBytes
            self.maximumHeaderBytes = maximumHeaderBytes
            self.maximumHeaderCount = maximumHeaderCount
            self.maximumBodyBytes = maximumBodyBytes
            self.readTimeout = readTimeout
            self.writeTimeout = writeTimeout
            self.maximumConnections = maximumConnections
            self.idleTimeout = idleTimeout
            self.maximumRequestsPerConnection = max(1, maximumRequestsPerConnection)
        }
    }

    private enum State {
        /// Bound, not serving yet.
        case ready
        /// Bound, and asked to stop before serving: ``run()`` returns at once.
        case stopRequested
        /// ``run()`` is setting up; `stop` is whether a stop came meanwhile.
        case starting(stop: Bool)
        case running(LoopbackEventLoop)
        /// Done; the listening socket is closed.
        case finished
    }

    /// The model answering every request.
    public let model: MockAuthorizationServer
    /// The port bound on 127.0.0.1.
    public let port: UInt16
    /// `http://127.0.0.1:<port>`: the origin of every endpoint.
    public let baseURL: URL
    /// The bounds in force.
    public let limits: Limits
    private let listener: Int32
    private let state: Locked<State>
    /// The task serving a server made with ``start(model:port:limits:)``.
    private let servingTask = Locked<Task<Void, Never>?>(nil)
    private let accepted = Locked(0)

    /// How many connections this server has accepted so far: with keep-alive, fewer than the requests it answered.
    public var connectionsAccepted: Int { accepted.withLock { $0 } }

    /// Binds 127.0.0.1 and starts listening; requests are served once ``run()`` is called.
    /// - Parameters:
    ///   - model: The server model to serve; its issuer moves to this listener's origin.
    ///   - port: The port; 0 (the default) lets the system choose a free one.
    ///   - limits: The bounds; see ``Limits``.
    /// - Throws: `TransportError` when the socket cannot be bound (the port is taken).
    public init(model: MockAuthorizationServer, port: UInt16 = 0, limits: Limits = Limits()) throws {
        let (descriptor, boundPort) = try POSIXSocket.listenOnLoopback(port: port)
        let origin = "http://127.0.0.1:\(boundPort)"
        guard let url = URL(string: origin) else {
            POSIXSocket.closeDescriptor(descriptor)
            throw TransportError(.other, "could not form the URL \(origin)")
        }
        self.model = model
        self.port = boundPort
        self.limits = limits
        baseURL = url
        listener = descriptor
        state = Locked(.ready)
        model.rebase(onto: origin)
    }

    deinit {
        if case .finished = state.withLock({ $0 }) { return }
        POSIXSocket.closeDescriptor(listener)
    }

    /// The model's issuer: ``baseURL`` plus the issuer's path, if it has one.
    public var issuer: String { model.issuer }

    /// Serves requests until the task is cancelled or ``stop()`` is called, then closes every connection and the
    /// listening socket.
    ///
    /// Sockets are read and written on a dedicated thread; each request is answered in a child task of this
    /// one, so the cooperative pool never blocks. A server runs once.
    /// - Throws: `TransportError` when it already ran or the wake-up pipe cannot be made.
    public func run() async throws {
        let claimed: Bool? = state.withLock { state in
            switch state {
            case .ready:
                state = .starting(stop: false)
                return true
            case .stopRequested:
                state = .finished
                return false
            case .starting, .running, .finished:
                return nil
            }
        }
        guard let claimed else {
            throw TransportError(.other, "this loopback server has already run; make a new one")
        }
        guard claimed else { return POSIXSocket.closeDescriptor(listener) }
        let loop: LoopbackEventLoop
        do {
            loop = try LoopbackEventLoop(
                listener: listener, limits: limits, origin: baseURL.absoluteString, accepted: accepted)
        } catch {
            finish()
            throw error
        }
        let stopEarly = state.withLock { state in
            defer { state = .running(loop) }
            if case .starting(stop: true) = state { return true }
            return false
        }
        if stopEarly { loop.stop() }
        guard DedicatedThread.start({ loop.run() }) else {
            finish()
            throw TransportError(.other, "could not start the loopback server's thread")
        }
        await withTaskCancellationHandler {
            await serve(loop)
        } onCancel: {
            loop.stop()
        }
        finish()
    }

    /// Closes the listening socket (the loop's thread has returned by now) so the port is free again.
    private func finish() {
        POSIXSocket.closeDescriptor(listener)
        state.withLock { $0 = .finished }
    }

    /// Answers each request in a child task until the loop stops, then cancels the answers still waiting.
    private func serve(_ loop: LoopbackEventLoop) async {
        let model = self.model
        if #available(macOS 14, *) {
            await withDiscardingTaskGroup { group in
                for await event in loop.events {
                    group.addTask { loop.submit(await model.handle(event.request), to: event.connection) }
                }
                group.cancelAll()
            }
        } else {
            // macOS 13 has no discarding group: finished children are released when the server stops.
            await withTaskGroup(of: Void.self) { group in
                for await event in loop.events {
                    group.addTask { loop.submit(await model.handle(event.request), to: event.connection) }
                }
                group.cancelAll()
            }
        }
    }

    /// Stops serving: ``run()`` returns, connections are closed and answers still being prepared are cancelled.
    ///
    /// Safe to call more than once, and before ``run()`` (which then returns at once). For a server made with
    /// ``start(model:port:limits:)``, waits until it has stopped and its port is free.
    public func stop() async {
        requestStop()
        await servingTask.withLock { $0 }?.value
    }

    /// Asks ``run()`` to return, without waiting.
    func requestStop() {
        let loop: LoopbackEventLoop? = state.withLock { state in
            switch state {
            case .ready:
                state = .stopRequested
                return nil
            case .starting:
                state = .starting(stop: true)
                return nil
            case .running(let loop):
                return loop
            case .stopRequested, .finished:
                return nil
            }
        }
        loop?.stop()
    }

    /// Binds a server and serves it in a task of its own until ``stop()``.
    ///
    /// For code that cannot keep the server within one scope, such as a command that serves while a person
    /// approves in a browser. Where a scope fits, prefer ``withRunning(model:port:limits:_:)`` or ``run()``.
    ///
    /// ```swift
    /// let server = try LoopbackServer.start(model: model)
    /// print("Open \(server.issuer)/device")
    /// // ...
    /// await server.stop()
    /// ```
    /// - Parameters:
    ///   - model: The model to serve; its issuer moves to this listener's origin.
    ///   - port: The port; 0 (the default) for a free one.
    ///   - limits: The bounds.
    /// - Returns: The running server.
    /// - Throws: `TransportError` when the socket cannot be bound.
    public static func start(
        model: MockAuthorizationServer, port: UInt16 = 0, limits: Limits = Limits()
    ) throws -> LoopbackServer {
        let server = try LoopbackServer(model: model, port: port, limits: limits)
        // Unstructured on purpose: the caller asked for a server that outlives this call; stop() awaits it.
        let task = Task { _ = try? await server.run() }
        server.servingTask.withLock { $0 = task }
        return server
    }

    /// Binds a server, serves while `body` runs, then stops it.
    ///
    /// ```swift
    /// try await LoopbackServer.withRunning(model: model) { server in
    ///     let transport = CurlTransport()
    ///     let response = try await transport.send(HTTPRequest(method: .get, url: server.baseURL))
    /// }
    /// ```
    /// - Parameters:
    ///   - model: The model to serve.
    ///   - port: The port; 0 for a free one.
    ///   - limits: The bounds.
    ///   - body: The work to do while the server runs.
    /// - Returns: What `body` returns.
    /// - Throws: What binding or `body` throws.
    public static func withRunning<Result: Sendable>(
        model: MockAuthorizationServer,
        port: UInt16 = 0,
        limits: Limits = Limits(),
        _ body: (LoopbackServer) async throws -> Result
    ) async throws -> Result {
        let server = try LoopbackServer(model: model, port: port, limits: limits)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run() }
            do {
                let result = try await body(server)
                server.requestStop()
                try await group.waitForAll()
                return result
            } catch {
                server.requestStop()
                group.cancelAll()
                throw error
            }
        }
    }
}
