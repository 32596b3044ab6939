#if canImport(CCurl)
import Foundation
import Testing
@testable import DeviceLogin

/// CurlTransport against real sockets on 127.0.0.1: a raw scripted server, a full accept queue, a python TLS server.
@Suite("CurlTransport")
struct CurlTransportTests {
    /// A transport that sees no proxy variables, whatever the test process's environment holds.
    private func transport(_ options: TransportOptions = .init()) -> CurlTransport {
        CurlTransport(options: options) { _ in nil }
    }

    /// Sends the request made for a server that answers `200 {}`, and returns what that server received.
    private func received(
        _ makeRequest: (RawHTTPServer) -> HTTPRequest
    ) async throws -> (requests: [RawRequest], port: UInt16) {
        let server = try RawHTTPServer.replying(RawHTTPServer.response(body: "{}"))
        defer { server.stop() }
        let response = try await transport().send(makeRequest(server))
        #expect(response.status == 200)
        return (server.requests, server.port)
    }

    // MARK: - What goes on the wire

    @Test func postSendsExactlyTheRequestHeadersAndBody() async throws {
        let body = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Adevice_code&device_code=abc&client_id=cli"

        let (requests, port) = try await received { server in
            HTTPRequest(
                method: .post,
                url: server.url("/oauth/token?tenant=7"),
                headers: [
                    HTTPHeader("Content-Type", "application/x-www-form-urlencoded"),
                    HTTPHeader("Accept", "application/json"),
                ],
                body: Data(body.utf8)
            )
        }

        let expected =
            "POST /oauth/token?tenant=7 HTTP/1.1\r\n"
            + "Host: 127.0.0.1:\(port)\r\n"
            + "User-Agent: device-login/\(DeviceLoginVersion.string)\r\n"
            + "Content-Type: application/x-www-form-urlencoded\r\n"
            + "Accept: application/json\r\n"
            + "Content-Length: \(body.utf8.count)\r\n"
            + "\r\n"
            + body
        #expect(requests.map(\.text) == [expected])
    }

    @Test func getSendsNoBodyAndNoHeadersOfLibcurlsOwn() async throws {
        let (requests, port) = try await received { server in
            HTTPRequest(
                method: .get,
                url: server.url("/.well-known/openid-configuration"),
                headers: [HTTPHeader("User-Agent", "custom/1"), HTTPHeader("X-Empty", "")]
            )
        }

        let expected =
            "GET /.well-known/openid-configuration HTTP/1.1\r\n"
            + "Host: 127.0.0.1:\(port)\r\n"
            + "User-Agent: custom/1\r\n"
            + "X-Empty:\r\n"
            + "\r\n"
        #expect(requests.map(\.text) == [expected])
    }

    @Test func largePostIsSentAtOnceWithoutExpectContinue() async throws {
        let body = Data(repeating: UInt8(ascii: "a"), count: 2 << 20)

        let (requests, _) = try await received { HTTPRequest(method: .post, url: $0.url("/upload"), body: body) }

        let request = try #require(requests.first)
        #expect(!request.head.lowercased().contains("expect:"))
        #expect(request.body == Array(body))
    }

    @Test func headersThatCouldBreakTheFramingAreRefusedWithoutQuotingThem() async throws {
        let request = HTTPRequest(
            method: .get,
            url: URL(string: "http://127.0.0.1:1/")!,
            headers: [HTTPHeader("Authorization", "Bearer s3cret\r\nX-Injected: 1")]
        )

        let error = try #require(await #expect(throws: TransportError.self) { try await transport().send(request) })

        #expect(error.kind == .other)
        #expect(error.message == "the value of request header Authorization contains a line break")
        let badName = HTTPRequest(method: .get, url: request.url, headers: [HTTPHeader("Bad Name", "x")])
        await #expect(throws: TransportError(.other, "a request header has a name that is not an HTTP token")) {
            try await transport().send(badName)
        }
    }

    @Test(arguments: [
        ("X-Token", "v", true), ("A1!#$%&'*+-.^_`|~z", "v", true), ("", "v", false), ("Bad Name", "v", false),
        ("Na\u{EF}ve", "v", false), ("X:Y", "v", false), ("X-Ok", "a\nb", false), ("X-Ok", "a\0b", false),
        ("X-Ok", "a\rb", false), ("X-Ok", "caf\u{E9}", true),
    ])
    func headerNamesMustBeTokensAndValuesOneLine(name: String, value: String, accepted: Bool) {
        let request = HTTPRequest(
            method: .get, url: URL(string: "http://127.0.0.1:1/")!, headers: [HTTPHeader(name, value)])
        let lines = try? CurlTransport.headerLines(for: request)
        #expect((lines != nil) == accepted)
        if accepted { #expect(lines?.first == "\(name): \(value)") }
    }

    @Test(arguments: ["file:///etc/passwd", "ftp://127.0.0.1/file", "gopher://127.0.0.1/"])
    func onlyHTTPAndHTTPSAreSent(url: String) async throws {
        let request = HTTPRequest(method: .get, url: try #require(URL(string: url)))

        let error = try #require(await #expect(throws: TransportError.self) { try await transport().send(request) })

        #expect(error.kind == .insecureURL)
        #expect(error.message.hasSuffix("URL: only http and https are supported"))
    }

    // MARK: - What comes back

    @Test func responseStatusHeadersAndBodyAreReturnedAsReceived() async throws {
        let reply =
            "HTTP/1.1 400 Bad Request\r\n"
            + "Content-Type: application/json\r\n"
            + "Set-Cookie: a=1\r\n"
            + "X-Folded: first\r\n"
            + "  second\r\n"
            + "Set-Cookie: b=2\r\n"
            + "Content-Length: 26\r\n"
            + "\r\n"
            + #"{"error":"invalid_grant"}"# + "\n"
        let server = try RawHTTPServer.replying(Array(reply.utf8))
        defer { server.stop() }

        let response = try await transport().send(HTTPRequest(method: .post, url: server.url("/token")))

        #expect(response.status == 400)
        #expect(
            response.headers == [
                HTTPHeader("Content-Type", "application/json"),
                HTTPHeader("Set-Cookie", "a=1"),
                HTTPHeader("X-Folded", "first second"),
                HTTPHeader("Set-Cookie", "b=2"),
                HTTPHeader("Content-Length", "26"),
            ])
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"error":"invalid_grant"}"# + "\n")
    }

    @Test func redirectOnPostIsReturnedNotFollowed() async throws {
        let server = try RawHTTPServer.replying(
            RawHTTPServer.response(status: 307, reason: "Temporary Redirect", headers: [("Location", "/elsewhere")])
        )
        defer { server.stop() }
        let request = HTTPRequest(method: .post, url: server.url("/token"), body: Data("device_code=abc".utf8))

        let response = try await transport().send(request)

        #expect(response.status == 307)
        #expect(response.header("Location") == "/elsewhere")
        #expect(server.requests.map(\.requestLine) == ["POST /token HTTP/1.1"])
    }

    @Test(arguments: [true, false])
    func hugeBodyFailsAtTheLimitWithoutBeingRead(announcingLength: Bool) async throws {
        let server = try Self.hugeBodyServer(announcingLength: announcingLength)
        defer { server.stop() }
        let options = TransportOptions(maximumResponseBytes: 64 * 1024)
        let tooLarge = TransportError(.responseTooLarge, "the response body is larger than the 65536-byte limit")

        await #expect(throws: tooLarge) {
            try await transport(options).send(HTTPRequest(method: .get, url: server.url()))
        }
        // Had the client read on, the 10 MB would have fitted through the small socket buffers.
        #expect(await server.wait { $0.notes.contains("send failed") })
    }

    @Test func tooManyResponseHeadersFail() async throws {
        let headers = (0..<200).map { ("X-Header-\($0)", "value") }
        let server = try RawHTTPServer.replying(RawHTTPServer.response(headers: headers))
        defer { server.stop() }

        await #expect(throws: TransportError(.responseTooLarge, "the response has more than 128 header fields")) {
            try await transport().send(HTTPRequest(method: .get, url: server.url()))
        }
    }

    // MARK: - Failures below HTTP

    @Test func connectionDroppedAfterAcceptIsConnectionFailed() async throws {
        let server = try RawHTTPServer { _ in }
        defer { server.stop() }

        let error = try #require(
            await #expect(throws: TransportError.self) {
                try await transport().send(HTTPRequest(method: .get, url: server.url()))
            })

        #expect(error.kind == .connectionFailed)
        #expect(error.message.hasPrefix("the connection to 127.0.0.1 failed: "))
    }

    @Test func refusedConnectionIsConnectionFailed() async throws {
        let url = try #require(URL(string: "http://127.0.0.1:\(try RawSocket.closedPort())/"))

        let error = try #require(
            await #expect(throws: TransportError.self) {
                try await transport().send(HTTPRequest(method: .get, url: url))
            })

        #expect(error.kind == .connectionFailed)
        #expect(error.message.hasPrefix("the connection to 127.0.0.1 failed: "))
    }

    @Test func unresolvableHostIsDNSFailureNamingTheHost() async throws {
        let url = try #require(URL(string: "http://device-login-test.invalid/token"))

        await #expect(throws: TransportError(.dnsFailure, "could not resolve host device-login-test.invalid")) {
            try await transport().send(HTTPRequest(method: .get, url: url))
        }
    }

    @Test func replyThatIsNotHTTPIsInvalidResponseAndQuotesNoSecret() async throws {
        let server = try RawHTTPServer.replying(Array("SSH-2.0-OpenSSH_9.2\r\n\u{1}\u{2}garbage\r\n\r\n".utf8))
        defer { server.stop() }
        let request = HTTPRequest(
            method: .post,
            url: server.url("/token"),
            headers: [HTTPHeader("Authorization", "Basic Y2xpOnMzY3JldA==")],
            body: Data("client_secret=s3cret&device_code=dc-123".utf8)
        )

        let error = try #require(await #expect(throws: TransportError.self) { try await transport().send(request) })

        #expect(error.kind == .invalidResponse)
        #expect(error.message.hasPrefix("127.0.0.1 did not answer with valid HTTP: "))
        for secret in ["s3cret", "dc-123", "Y2xpOnMzY3JldA=="] {
            #expect(!error.message.contains(secret))
        }
    }

    @Test func slowResponseTimesOut() async throws {
        let server = try RawHTTPServer { connection in
            connection.readRequest()
            _ = connection.waitForPeerToClose(seconds: 5)
        }
        defer { server.stop() }
        let options = TransportOptions(requestTimeout: 0.3)

        let error = try #require(
            await #expect(throws: TransportError.self) {
                try await transport(options).send(HTTPRequest(method: .get, url: server.url()))
            })

        #expect(error.kind == .timedOut)
        let prefix = "the request to 127.0.0.1 timed out: "
        #expect(error.message.hasPrefix(prefix) && error.message.count > prefix.count, "quotes libcurl: \(error)")
    }

    @Test func connectionThatNeverCompletesHitsTheConnectTimeout() async throws {
        let listener = try await RawFullListener.start()
        defer { listener.stop() }
        let options = TransportOptions(connectTimeout: 0.2, requestTimeout: 300)
        let started = ContinuousClock.now

        let error = try #require(
            await #expect(throws: TransportError.self) {
                try await transport(options).send(HTTPRequest(method: .get, url: listener.url))
            })

        #expect(error.kind == .timedOut)
        // The 0.2 s connect timeout ended the wait, not the 300 s request timeout. The bound is loose on purpose: in
        // a parallel run under a sanitizer the test task itself can wait 20 s and more for a thread.
        #expect(ContinuousClock.now - started < .seconds(150))
        let prefix = "the request to 127.0.0.1 timed out: "
        #expect(error.message.hasPrefix(prefix) && error.message.count > prefix.count, "quotes libcurl: \(error)")
    }

    // MARK: - TLS

    @Test func caFileIsTheTrustStore() async throws {
        let server = try await TLSTestServer.start()
        defer { server.stop() }
        let request = HTTPRequest(method: .get, url: server.url("/metadata"))

        let response = try await transport(TransportOptions(caFile: server.caFile)).send(request)
        let error = try #require(await #expect(throws: TransportError.self) { try await transport().send(request) })

        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == TLSTestServer.body)
        // The kind, not libcurl's wording: OpenSSL says "SSL certificate problem", GnuTLS "server certificate
        // verification failed".
        #expect(error.kind == .certificateVerificationFailed)
        #expect(error.message.hasPrefix("TLS with 127.0.0.1 failed: "))
    }

    @Test func unreadableCAFileIsCertificateVerificationFailed() async throws {
        let server = try await TLSTestServer.start()
        defer { server.stop() }
        let options = TransportOptions(caFile: server.caFile + ".missing")

        let error = try #require(
            await #expect(throws: TransportError.self) {
                try await transport(options).send(HTTPRequest(method: .get, url: server.url("/metadata")))
            })

        #expect(error.kind == .certificateVerificationFailed)
        #expect(error.message.hasPrefix("TLS with 127.0.0.1 failed: "))
    }

    // MARK: - Proxies

    @Test func httpProxyFromTheEnvironmentGetsTheAbsoluteFormRequest() async throws {
        let proxy = try RawHTTPServer.replying(RawHTTPServer.response(body: "via proxy"))
        defer { proxy.stop() }
        let environment = ["http_proxy": "http://127.0.0.1:\(proxy.port)"]
        let transport = CurlTransport(options: .init()) { environment[$0] }

        let response = try await transport.send(
            HTTPRequest(method: .get, url: try #require(URL(string: "http://auth.device-login.invalid/metadata")))
        )

        #expect(String(decoding: response.body, as: UTF8.self) == "via proxy")
        #expect(proxy.requests.map(\.requestLine) == ["GET http://auth.device-login.invalid/metadata HTTP/1.1"])
    }

    @Test func httpsProxyFromTheEnvironmentGetsAConnectRequest() async throws {
        let proxy = try RawHTTPServer.replying(RawHTTPServer.response(status: 403, reason: "Forbidden"))
        defer { proxy.stop() }
        let environment = ["HTTPS_PROXY": "http://127.0.0.1:\(proxy.port)"]
        let transport = CurlTransport(options: .init()) { environment[$0] }

        await #expect(throws: TransportError.self) {
            try await transport.send(HTTPRequest(method: .get, url: URL(string: "https://auth.device-login.invalid/")!))
        }

        #expect(proxy.requests.map(\.requestLine) == ["CONNECT auth.device-login.invalid:443 HTTP/1.1"])
    }

    @Test(arguments: [
        ["http_proxy": "PROXY", "no_proxy": "127.0.0.1"],
        ["http_proxy": "PROXY", "NO_PROXY": "localhost,127.0.0.0/8"],
        ["HTTP_PROXY": "PROXY"],
    ])
    func directConnectionWhenNoProxyMatchesOrOnlyUpperCaseHTTPProxyIsSet(variables: [String: String]) async throws {
        let proxy = try RawHTTPServer.replying(RawHTTPServer.response(body: "via proxy"))
        let target = try RawHTTPServer.replying(RawHTTPServer.response(body: "direct"))
        defer {
            proxy.stop()
            target.stop()
        }
        let proxyURL = "http://127.0.0.1:\(proxy.port)"
        let environment = variables.mapValues { $0.replacingOccurrences(of: "PROXY", with: proxyURL) }
        let transport = CurlTransport(options: .init()) { environment[$0] }

        let response = try await transport.send(HTTPRequest(method: .get, url: target.url("/metadata")))

        #expect(String(decoding: response.body, as: UTF8.self) == "direct")
        #expect(proxy.requests.isEmpty)
    }

    @Test func proxyVariablesAreReadInCurlsOrder() {
        let everything = [
            "https_proxy": "https-lower", "HTTPS_PROXY": "https-upper", "http_proxy": "http-lower",
            "HTTP_PROXY": "http-upper", "all_proxy": "all-lower", "ALL_PROXY": "all-upper",
            "no_proxy": "no-lower", "NO_PROXY": "no-upper",
        ]
        func settings(_ scheme: String, without removed: [String] = []) -> CurlTransport.ProxySettings {
            let environment = everything.filter { !removed.contains($0.key) }
            return CurlTransport.ProxySettings(scheme: scheme) { environment[$0] }
        }

        #expect(settings("https") == .init(proxy: "https-lower", noProxy: "no-lower"))
        #expect(
            settings("https", without: ["https_proxy", "no_proxy"]) == .init(proxy: "https-upper", noProxy: "no-upper")
        )
        #expect(settings("https", without: ["https_proxy", "HTTPS_PROXY"]).proxy == "all-lower")
        #expect(settings("http") == .init(proxy: "http-lower", noProxy: "no-lower"))
        #expect(settings("http", without: ["http_proxy"]).proxy == "all-lower")
        #expect(settings("http", without: ["http_proxy", "all_proxy"]).proxy == "all-upper")
        #expect(
            settings("http", without: ["http_proxy", "all_proxy", "ALL_PROXY"]) == .init(proxy: "", noProxy: "no-lower")
        )
        let emptyMeansUnset = CurlTransport.ProxySettings(scheme: "https") { $0 == "https_proxy" ? "" : nil }
        #expect(emptyMeansUnset == .init(proxy: "", noProxy: nil))
    }

    // MARK: - Reuse

    @Test func sequentialRequestsShareOneKeptAliveConnectionEachWithItsOwnOptions() async throws {
        let server = try RawHTTPServer.keepingAlive(RawHTTPServer.response(body: "{}", keepAlive: true))
        defer { server.stop() }
        let post = HTTPRequest(method: .post, url: server.url("/token"), body: Data("device_code=abc".utf8))
        let get = HTTPRequest(method: .get, url: server.url("/userinfo"))

        let first = try await transport(TransportOptions(userAgent: "first/1")).send(post)
        let second = try await transport(TransportOptions(userAgent: "second/2")).send(get)

        #expect(first.status == 200)
        #expect(second.status == 200)
        #expect(
            server.requests.map(\.text) == [
                "POST /token HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nUser-Agent: first/1\r\n"
                    + "Content-Length: 15\r\n\r\ndevice_code=abc",
                "GET /userinfo HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nUser-Agent: second/2\r\n\r\n",
            ])
        #expect(server.acceptedConnections == 1)
    }

    @Test func burstsOfSequentialRequestsStartNoThreads() async throws {
        let sampler = ThreadSampler()
        let server = try RawHTTPServer.keepingAlive(RawHTTPServer.response(body: "{}", keepAlive: true)) {
            sampler.sample()
        }
        defer { server.stop() }
        let transport = transport()
        let request = HTTPRequest(method: .get, url: server.url("/token"))
        // Starts the transport's thread and the server's connection thread, if they are not running yet.
        _ = try await transport.send(request)

        var fewestNewThreads = Int.max
        var bursts = 0
        for _ in 0..<3 where fewestNewThreads > 0 {
            bursts += 1
            let before = ThreadSampler.threadIDs()
            try #require(!before.isEmpty, "/proc/self/task lists the process's threads")
            sampler.reset()
            for _ in 0..<50 {
                #expect(try await transport.send(request).status == 200)
            }
            let appeared = sampler.seen.union(ThreadSampler.threadIDs()).subtracting(before)
            fewestNewThreads = min(fewestNewThreads, appeared.count)
        }

        // A thread per transfer would show 50 new threads in every burst (the server samples the process's threads
        // while each request waits for its answer). Other tests start threads of their own meanwhile — `exec`'s
        // in-process tests two per child, the loopback servers theirs — so the quietest of up to three bursts
        // counts, and the bound is half a thread per transfer: noise from the rest of the suite stays well under
        // it, a thread per transfer cannot.
        #expect(fewestNewThreads < 25)
        #expect(server.requests.count == 1 + 50 * bursts)
        #expect(server.acceptedConnections == 1)
    }

    // MARK: - Threads, cancellation, global state

    @Test func cancellingTheTaskAbortsAWaitingTransfer() async throws {
        let server = try RawHTTPServer { connection in
            connection.readRequest()
            // The client closing first is the proof that the transfer was aborted rather than waited out, whatever
            // the wall clock says: in a parallel run under a sanitizer a test task can wait 20 s and more for a
            // thread of the cooperative pool, so the server waits far longer than that.
            if connection.waitForPeerToClose(seconds: 120) { connection.note("peer closed") }
        }
        defer { server.stop() }
        let transport = transport()

        let outcome = await withTaskGroup(of: Result<HTTPResponse, any Error>.self) { group in
            group.addTask {
                do {
                    return .success(try await transport.send(HTTPRequest(method: .get, url: server.url())))
                } catch {
                    return .failure(error)
                }
            }
            let arrived = await server.wait(timeout: .seconds(100)) { !$0.requests.isEmpty }
            #expect(arrived, "the request reached the server before the task was cancelled")
            try? await Task.sleep(for: .milliseconds(50))
            group.cancelAll()
            return await group.next()
        }

        #expect(throws: CancellationError.self) { try outcome?.get() }
        // The server holds the request unanswered for 120 s: the client hung up first, so the transfer was dropped.
        #expect(await server.wait(timeout: .seconds(110)) { $0.notes.contains("peer closed") })
    }

    @Test func alreadyCancelledTaskSendsNothing() async throws {
        let server = try RawHTTPServer.replying(RawHTTPServer.response())
        defer { server.stop() }
        let transport = transport()

        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await transport.send(HTTPRequest(method: .get, url: server.url()))
        }

        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(server.requests.isEmpty)
    }

    @Test func manyWaitingTransfersDoNotHoldTheCooperativePool() async throws {
        // Every connection is answered only once all of them are open at the same time: impossible if each
        // blocking transfer held one of the pool's (as many as cores) threads.
        let count = max(8, 2 * ProcessInfo.processInfo.activeProcessorCount + 2)
        let server = try RawHTTPServer { connection in
            guard connection.readRequest() != nil else { return }
            // A failsafe only, and long: the tasks that send the others can wait seconds for a thread in a parallel
            // sanitizer run (the transfers themselves do not).
            let deadline = ContinuousClock.now + .seconds(60)
            var arrived = 0
            repeat {
                arrived = connection.requestsSoFar
                if arrived >= count { break }
                usleep(5_000)
            } while ContinuousClock.now < deadline
            connection.write(RawHTTPServer.response(body: "\(arrived)"))
        }
        defer { server.stop() }
        let transport = transport()

        let bodies = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<count {
                group.addTask {
                    let response = try await transport.send(HTTPRequest(method: .get, url: server.url()))
                    return String(decoding: response.body, as: UTF8.self)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }

        #expect(bodies == Array(repeating: "\(count)", count: count))
    }

    @Test func libcurlIsInitialisedOnceWhateverTheConcurrency() async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<32 {
                group.addTask { try CurlLibrary.initialize() }
            }
            try await group.waitForAll()
        }

        #expect(CurlLibrary.initializationCount.load(ordering: .relaxed) == 1)
    }

    @Test func defaultTransportOnLinuxIsCurlWithTheGivenOptions() throws {
        let options = TransportOptions(requestTimeout: 7, caFile: "/etc/ca.pem", userAgent: "tool/1")

        let transport = try #require(DefaultTransport.make(options: options) as? CurlTransport)

        #expect(transport.options == options)
    }

    @Test(arguments: [(0.3, 300), (10, 10_000), (0.0001, 1), (-1, 1), (1e12, Int(Int32.max))])
    func timeoutsBecomeWholeMilliseconds(seconds: Double, milliseconds: Int) {
        #expect(CurlTransfer.milliseconds(seconds) == milliseconds)
    }

    // MARK: - Fixtures

    /// Collects the ids of the process's threads, as listed in `/proc/self/task`, whenever asked to.
    private final class ThreadSampler: Sendable {
        private let samples = Locked(Set<String>())

        /// The thread ids seen since the last ``reset()``.
        var seen: Set<String> { samples.withLock { $0 } }

        /// Adds the threads alive now.
        func sample() {
            let now = Self.threadIDs()
            samples.withLock { $0.formUnion(now) }
        }

        func reset() {
            samples.withLock { $0.removeAll() }
        }

        /// The ids of the threads alive now.
        static func threadIDs() -> Set<String> {
            Set((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? [])
        }
    }

    /// A server answering with a 10 MB body through a small send buffer, noting "send failed" when the client
    /// stops reading before the end.
    private static func hugeBodyServer(announcingLength: Bool) throws -> RawHTTPServer {
        try RawHTTPServer { connection in
            guard connection.readRequest() != nil else { return }
            connection.limitSendBuffer(to: 16 * 1024)
            let size = 10_000_000
            let length = announcingLength ? "Content-Length: \(size)\r\n" : "Connection: close\r\n"
            guard connection.write("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\(length)\r\n") else { return }
            let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 64 * 1024)
            var sent = 0
            while sent < size {
                guard connection.write(Array(chunk.prefix(size - sent))) else {
                    connection.note("send failed")
                    return
                }
                sent += chunk.count
            }
            connection.note("sent everything")
        }
    }
}
#endif
