import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A port on 127.0.0.1 whose accept queue is full, so new connections hang in the handshake.
///
/// The listener never accepts and its backlog is 0; a few connections fill the queue, after which the kernel
/// drops further SYNs: a client's connect waits until its own connect timeout. Call ``stop()`` when done.
final class RawFullListener {
    /// The port whose connections never complete.
    let port: UInt16
    private var sockets: [Int32]

    private init() throws {
        let (listener, port) = try RawSocket.listen(backlog: 0)
        self.port = port
        sockets = [listener]
        for _ in 0..<3 {
            sockets.append(RawSocket.startConnecting(to: port))
        }
    }

    /// Listens, fills the queue, and gives the fillers' handshakes a moment to land in it.
    static func start() async throws -> RawFullListener {
        let listener = try RawFullListener()
        try await Task.sleep(for: .milliseconds(100))
        return listener
    }

    /// `http://127.0.0.1:<port>/`.
    var url: URL { URL(string: "http://127.0.0.1:\(port)/")! }

    /// Closes the listener and the fillers.
    func stop() {
        for socket in sockets where socket >= 0 { close(socket) }
        sockets = []
    }
}
