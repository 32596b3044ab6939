import DeviceLogin
import Foundation

/// A minimal scripted ``HTTPTransport``: answers requests with replies given in order (then with `otherwise`),
/// and records every request it saw.
final class ScriptedTransport: HTTPTransport, @unchecked Sendable {
    typealias Reply = @Sendable (HTTPRequest) async throws -> HTTPResponse

    private let lock = NSLock()
    private var replies: [Reply]
    private let otherwise: Reply?
    private var recorded: [HTTPRequest] = []

    init(_ replies: [Reply] = [], otherwise: Reply? = nil) {
        self.replies = replies
        self.otherwise = otherwise
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let (reply, number) = lock.withLock { () -> (Reply?, Int) in
            recorded.append(request)
            return (replies.isEmpty ? otherwise : replies.removeFirst(), recorded.count)
        }
        guard let reply else { throw TransportError(.other, "no scripted reply for request #\(number)") }
        return try await reply(request)
    }

    /// Every request seen so far, in order.
    var requests: [HTTPRequest] { lock.withLock { recorded } }

    /// Replies with `body` as JSON.
    static func json(_ body: String, status: Int = 200, headers: [HTTPHeader] = []) -> Reply {
        { _ in
            HTTPResponse(
                status: status, headers: [HTTPHeader("Content-Type", "application/json")] + headers,
                body: Data(body.utf8)
            )
        }
    }

    /// Replies with a status and no body.
    static func status(_ status: Int, headers: [HTTPHeader] = []) -> Reply {
        { _ in HTTPResponse(status: status, headers: headers) }
    }

    /// Fails below HTTP.
    static func failure(_ kind: TransportError.Kind) -> Reply {
        { _ in throw TransportError(kind, "scripted \(kind) failure") }
    }
}
