import DeviceLogin

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The helpers' side of the agent protocol: one request, one reply, over a blocking socket on the calling thread —
/// no Swift concurrency, no Foundation, so that it costs the fast lane no more than the read of a profile file.
///
/// Every wait is bounded: ``connectSeconds`` to connect and send, ``replySeconds`` for each read of the reply (the
/// agent may refresh, or ask its person with `--confirm`). An agent that dies mid-request closes the socket, and
/// the read ends at once.
enum AgentClient {
    /// The time limit to connect and to send the request.
    static let connectSeconds = 5
    /// The time limit of each read of the reply.
    static let replySeconds = 30

    /// Why no reply arrived: the agent's socket is named but not usable, or it broke the protocol.
    struct Failure: Error, Equatable {
        /// What went wrong, for the one line shown (no token in it).
        var message: String
    }

    /// Sends `request` to the agent at `path` and reads its reply.
    static func ask(_ request: AgentRequest, socket path: String) -> Result<AgentReply, Failure> {
        let descriptor = AgentSocket.stream()
        guard descriptor >= 0 else { return .failure(Failure(message: "cannot make a socket: \(reasonNow())")) }
        defer { close(descriptor) }
        AgentSocket.setTimeouts(descriptor, send: connectSeconds, receive: replySeconds)
        guard let connected = AgentSocket.withAddress(path, { connect(descriptor, $0, $1) }) else {
            return .failure(Failure(message: "the agent socket path is empty or too long"))
        }
        guard connected == 0 else {
            return .failure(Failure(message: "cannot reach the agent: \(reasonNow())"))
        }
        guard send(descriptor, Array(request.line.utf8)) else {
            return .failure(Failure(message: "cannot send to the agent: \(reasonNow())"))
        }
        var reply: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                // An agent killed with the request unread resets the connection.
                if errno == ECONNRESET { return .failure(closed(request)) }
                let timedOut = errno == EAGAIN || errno == EWOULDBLOCK
                return .failure(
                    Failure(
                        message: timedOut
                            ? "the agent did not answer within \(replySeconds) s" : "reading the agent: \(reasonNow())")
                )
            }
            if count == 0 { return .failure(closed(request)) }
            reply += chunk[0..<count]
            if let end = reply.firstIndex(of: UInt8(ascii: "\n")) {
                do {
                    return .success(try AgentReply(line: Array(reply[..<end])))
                } catch {
                    return .failure(Failure(message: "the agent's reply is not understood: \(error)"))
                }
            }
            guard reply.count < AgentReply.maximumLineLength else {
                return .failure(Failure(message: "the agent's reply is longer than 32 KiB"))
            }
        }
    }

    /// The agent closed the connection without a reply: it refused the request. Every agent knows `token`; one older
    /// than the `dpop`, `erase` and `list` operations refuses them so (docs/agent.md), which is worth saying.
    static func closed(_ request: AgentRequest) -> Failure {
        let message = "the agent closed the connection without answering"
        guard request.operation != .token else { return Failure(message: message) }
        return Failure(
            message: message + " (an agent older than this device-login does not know its '"
                + request.operation.name + "' request: update device-login where the agent runs)")
    }

    private static func send(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return false }
            sent += count
        }
        return true
    }

    /// Asks the agent at `socket` from a command of the full path (`status`), on a thread of its own.
    /// - Throws: `CancellationError` when the caller is cancelled; the agent's failures are the result's.
    static func ask(_ request: AgentRequest, socket: String) async throws -> Result<AgentReply, AgentClient.Failure> {
        try await onThread { .success(ask(request, socket: socket)) }.get()
    }

    /// Runs `body` on a thread of its own and gives its result; cancelling the caller stops the wait at once (the
    /// thread ends on its own, within the client's bounded waits, and its result is dropped).
    static func onThread<Value: Sendable>(_ body: @escaping @Sendable () -> Result<Value, any Error>) async
        -> Result<Value, any Error>
    {
        let once = Locked<CheckedContinuation<Result<Value, any Error>, Never>?>(nil)
        let resume: @Sendable (Result<Value, any Error>) -> Void = { result in
            once.withLock { continuation in
                continuation?.resume(returning: result)
                continuation = nil
            }
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                once.withLock { $0 = continuation }
                if Task.isCancelled { return resume(.failure(CancellationError())) }
                if !DedicatedThread.start({ resume(body()) }) {
                    resume(.failure(DeviceLoginError(.configuration, "no thread to ask the agent")))
                }
            }
        } onCancel: {
            resume(.failure(CancellationError()))
        }
    }

    private static func reasonNow() -> String { AgentSocket.reason(errno) }
}
