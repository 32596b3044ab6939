#if canImport(CCurl)
import Foundation
import Testing
@testable import DeviceLogin

/// The transport never re-sends a POST by itself: the engine decides every retry (RFC 8628 §3.5 counts each poll).
///
/// libcurl re-sends a request on its own when a reused connection dies before any answer arrives. For a poll that
/// the server already received, that is a second poll within one interval.
@Suite("CurlTransport never re-sends a POST")
struct CurlTransportNoResendTests {
    /// A server whose first connection answers one request and then closes on the second without answering; every
    /// later connection answers normally.
    private static func closingAfterOneAnswer() throws -> RawHTTPServer {
        let connections = Locked(0)
        return try RawHTTPServer { connection in
            let number = connections.withLock { count in
                count += 1
                return count
            }
            guard connection.readRequest() != nil else { return }
            guard number == 1 else {
                connection.write(RawHTTPServer.response(body: "{}"))
                return
            }
            guard connection.write(RawHTTPServer.response(body: "{}", keepAlive: true)) else { return }
            _ = connection.readRequest()
            // Closes the kept-alive connection with the second request read and unanswered.
        }
    }

    @Test func aPostOnAKeptAliveConnectionThatDiesUnansweredFailsAndIsNotSentAgain() async throws {
        let server = try Self.closingAfterOneAnswer()
        defer { server.stop() }
        let transport = CurlTransport(options: TransportOptions()) { _ in nil }
        let poll = HTTPRequest(method: .post, url: server.url("/token"), body: Data("device_code=abc".utf8))

        #expect(try await transport.send(poll).status == 200)
        // The second poll rides the kept-alive connection, which dies unanswered: a connection failure (transient:
        // the engine polls again at its own pace), never a second copy sent by libcurl.
        let error = await #expect(throws: TransportError.self) { try await transport.send(poll) }
        #expect(error?.kind == .connectionFailed)
        #expect(error?.message.contains("not sent again") == true)

        // Give a re-send, if any, time to arrive before counting.
        try await Task.sleep(for: .milliseconds(300))
        // Before a body that cannot be rewound: 3 requests — libcurl sent the second poll on the kept-alive
        // connection, saw it die unanswered, and sent it again on a new one 0.8 ms later.
        #expect(server.requests.count == 2, "two polls sent, two received")
    }

    @Test func postsReuseAKeptAliveConnection() async throws {
        let server = try RawHTTPServer.keepingAlive(RawHTTPServer.response(body: "{}", keepAlive: true))
        defer { server.stop() }
        let transport = CurlTransport(options: TransportOptions()) { _ in nil }
        let poll = HTTPRequest(method: .post, url: server.url("/token"), body: Data("device_code=abc".utf8))

        for _ in 0..<3 {
            #expect(try await transport.send(poll).status == 200)
        }
        let bodies = server.requests.map { String(decoding: $0.body, as: UTF8.self) }
        #expect(bodies == Array(repeating: "device_code=abc", count: 3))
        // Before: 3, every POST on a connection of its own.
        #expect(server.acceptedConnections == 1)
    }

    @Test func aPostThatDiesUnansweredFailsOnceAndIsNotSentAgain() async throws {
        let server = try RawHTTPServer { connection in _ = connection.readRequest() }
        defer { server.stop() }
        let transport = CurlTransport(options: TransportOptions()) { _ in nil }
        let poll = HTTPRequest(method: .post, url: server.url("/token"), body: Data("device_code=abc".utf8))

        let error = await #expect(throws: TransportError.self) { try await transport.send(poll) }
        #expect(error?.kind == .connectionFailed || error?.kind == .invalidResponse)
        try await Task.sleep(for: .milliseconds(300))
        #expect(server.requests.count == 1)
    }

    @Test func aGetOnAReusedConnectionThatDiesMayBeRetriedByLibcurl() async throws {
        // GET is idempotent: libcurl's own retry on a fresh connection is harmless there and keeps discovery and
        // userinfo fast, so it stays allowed.
        let server = try Self.closingAfterOneAnswer()
        defer { server.stop() }
        let transport = CurlTransport(options: TransportOptions()) { _ in nil }
        let get = HTTPRequest(method: .get, url: server.url("/userinfo"))

        #expect(try await transport.send(get).status == 200)
        #expect(try await transport.send(get).status == 200)
        #expect(server.acceptedConnections == 2)
    }
}
#endif
