import DeviceLogin
import Foundation

/// A transport for in-process CLI tests: answers every request with `answer` and keeps each request it was given,
/// so a test can say that none was sent.
final class StubTransport: HTTPTransport {
    private let seen = Locked<[HTTPRequest]>([])
    private let answer: @Sendable (HTTPRequest) throws -> HTTPResponse

    /// A transport that answers with `answer`; by default every request fails as if the host were unreachable.
    init(
        _ answer: @escaping @Sendable (HTTPRequest) throws -> HTTPResponse = { _ in
            throw TransportError(.connectionFailed, "the connection to the stub failed: nobody is there")
        }
    ) {
        self.answer = answer
    }

    /// The requests sent so far, in order.
    var requests: [HTTPRequest] { seen.withLock { $0 } }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        seen.withLock { $0.append(request) }
        return try answer(request)
    }

    /// A 200 response with a JSON body.
    static func json(_ text: String) -> HTTPResponse {
        HTTPResponse(status: 200, headers: [HTTPHeader("Content-Type", "application/json")], body: Data(text.utf8))
    }
}
