import DeviceLogin
import Foundation
import Testing

@testable import DeviceLoginTesting

@Suite("HTTPRequestParser")
struct HTTPRequestParserTests {
    let origin = "http://127.0.0.1:8080"

    func parse(_ text: String, limits: LoopbackServer.Limits = .init()) -> HTTPRequestParser.Progress {
        var parser = HTTPRequestParser(limits: limits, origin: origin)
        return parser.feed(Array(text.utf8))
    }

    func status(_ progress: HTTPRequestParser.Progress) -> Int? {
        if case .failure(let status, _) = progress { return status }
        return nil
    }

    @Test(
        "keep-alive follows the version and the Connection options (RFC 9112 §9.3)",
        arguments: [
            ("HTTP/1.1", nil, true),
            ("HTTP/1.1", "close", false),
            ("HTTP/1.1", "Keep-Alive, CLOSE", false),
            ("HTTP/1.1", "keep-alive", true),
            ("HTTP/1.0", nil, false),
            ("HTTP/1.0", "keep-alive", true),
            ("HTTP/1.0", "Keep-Alive", true),
        ] as [(String, String?, Bool)]
    )
    func keepsAlive(version: String, connection: String?, expected: Bool) {
        var parser = HTTPRequestParser(limits: .init(), origin: origin)
        #expect(!parser.keepsAlive, "unknown before the head is read")
        let field = connection.map { "Connection: \($0)\r\n" } ?? ""
        _ = parser.feed(Array("GET / \(version)\r\nHost: 127.0.0.1\r\n\(field)\r\n".utf8))
        #expect(parser.keepsAlive == expected)
    }

    @Test("bytes after a complete request are left over for the next one, never read into this one")
    func leftover() throws {
        var parser = HTTPRequestParser(limits: .init(), origin: origin)
        let first = "POST /token HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc"
        let second = "GET /next HTTP/1.1\r\n"
        #expect(parser.leftover.isEmpty)
        let progress = parser.feed(Array((first + second).utf8))
        guard case .complete(let request) = progress else { throw UnexpectedAnswer("\(progress)") }
        #expect(request.body == Data("abc".utf8))
        #expect(Array(parser.leftover) == Array(second.utf8))
    }

    @Test("a GET request: absolute URL from the origin, headers in order, no body")
    func get() throws {
        let progress = parse(
            "GET /device?user_code=WDJB-MJHT HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept:  text/html \r\n\r\n"
        )
        guard case .complete(let request) = progress else { throw UnexpectedAnswer("\(progress)") }
        #expect(request.method == .get)
        #expect(request.url.absoluteString == "http://127.0.0.1:8080/device?user_code=WDJB-MJHT")
        #expect(request.headers == [HTTPHeader("Host", "127.0.0.1"), HTTPHeader("Accept", "text/html")])
        #expect(request.body == nil)
    }

    @Test("a POST body is read to its Content-Length, arriving in pieces")
    func postInPieces() throws {
        var parser = HTTPRequestParser(limits: .init(), origin: origin)
        let text =
            "POST /token HTTP/1.1\r\nContent-Length: 11\r\n"
            + "Content-Type: application/x-www-form-urlencoded\r\n\r\na=1&b=two+2"
        let bytes = Array(text.utf8)
        var last = HTTPRequestParser.Progress.needMore
        for byte in bytes {
            #expect(last == .needMore)
            last = parser.feed([byte])
        }
        guard case .complete(let request) = last else { throw UnexpectedAnswer("\(last)") }
        #expect(request.method == .post)
        #expect(request.bodyText == "a=1&b=two+2")
    }

    @Test("bare LF line ends are accepted")
    func bareLineFeeds() throws {
        guard case .complete(let request) = parse("GET / HTTP/1.0\nHost: x\n\n") else {
            throw UnexpectedAnswer("not parsed")
        }
        #expect(request.header("host") == "x")
    }

    @Test(
        "limits and malformed requests are refused with the right status",
        arguments: [
            ("GET /\(String(repeating: "a", count: 200)) HTTP/1.1\r\n\r\n", 414),
            ("GET / HTTP/1.1\r\nX-Big: \(String(repeating: "b", count: 400))\r\n\r\n", 431),
            ("GET / HTTP/1.1\r\n" + String(repeating: "A: b\r\n", count: 9) + "\r\n", 431),
            ("POST / HTTP/1.1\r\nContent-Length: 1000\r\n\r\n", 413),
            ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", 501),
            ("POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 400),
            ("POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400),
            ("POST / HTTP/1.1\r\nContent-Length: ten\r\n\r\n", 400),
            ("DELETE / HTTP/1.1\r\n\r\n", 405),
            ("GET / HTTP/2.0\r\n\r\n", 400),
            ("GET http://elsewhere/ HTTP/1.1\r\n\r\n", 400),
            ("GET / HTTP/1.1\r\nBad Header: x\r\n\r\n", 400),
            ("GET / HTTP/1.1\r\n: empty name\r\n\r\n", 400),
        ])
    func refusals(request: String, expected: Int) {
        let limits = LoopbackServer.Limits(
            maximumRequestLineBytes: 100, maximumHeaderBytes: 300, maximumHeaderCount: 8, maximumBodyBytes: 100
        )
        #expect(status(parse(request, limits: limits)) == expected)
    }

    @Test("a request line with no end beyond the limit is refused before the head is complete")
    func endlessRequestLine() {
        let limits = LoopbackServer.Limits(maximumRequestLineBytes: 100, maximumHeaderBytes: 300)
        #expect(status(parse("GET /" + String(repeating: "a", count: 150), limits: limits)) == 414)
        #expect(parse("GET /" + String(repeating: "a", count: 50), limits: limits) == .needMore)
        let head = "GET / HTTP/1.1\r\n" + String(repeating: "X: y\r\n", count: 60)
        #expect(status(parse(head, limits: limits)) == 431)
    }

    @Test("a response is written with Content-Length and Connection: close, replacing the model's own")
    func responseBytes() {
        let response = HTTPResponse(
            status: 200,
            headers: [
                HTTPHeader("Content-Type", "text/plain"), HTTPHeader("Content-Length", "999"),
                HTTPHeader("Connection", "keep-alive"),
            ],
            body: Data("hi".utf8)
        )
        #expect(
            String(decoding: response.wireBytes, as: UTF8.self)
                == "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi")
        #expect(
            String(decoding: response.wireBytes(keepAlive: true), as: UTF8.self)
                == "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\n"
                + "hi")
    }
}
