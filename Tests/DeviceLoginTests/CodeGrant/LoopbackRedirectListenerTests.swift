import DeviceLoginTesting
import Foundation
import Testing

@testable import DeviceLogin

@Suite("LoopbackRedirectListener (RFC 8252 §7.3): one matching redirect, everything else refused")
struct LoopbackRedirectListenerTests {
    private func expectation(_ listener: LoopbackRedirectListener) -> AuthorizationResponse.Expectation {
        AuthorizationResponse.Expectation(state: "xyz", issuer: "https://a.example", redirectURI: listener.redirectURI)
    }

    private func get(_ url: String) async throws -> HTTPResponse {
        try await DefaultTransport.make().send(HTTPRequest(method: .get, url: URL(string: url)!))
    }

    @Test(
        "a request head's verdict",
        arguments: [
            ("GET /callback?code=c&state=xyz HTTP/1.1\r\nHost: x", "finished"),
            ("GET /callback?error=access_denied&state=xyz HTTP/1.1", "finished"),
            ("GET /callback?code=c&state=abc HTTP/1.1", "400 Bad Request"),
            ("GET /callback?code=c&state=xyz&state=xyz HTTP/1.1", "400 Bad Request"),
            ("GET /favicon.ico HTTP/1.1", "404 Not Found"),
            ("GET /callback/x?code=c&state=xyz HTTP/1.1", "404 Not Found"),
            ("POST /callback?code=c&state=xyz HTTP/1.1", "405 Method Not Allowed"),
            ("GET /callback?code=c&state=xyz", "400 Bad Request"),
            ("garbage", "400 Bad Request"),
        ])
    func verdicts(head: String, verdict: String) {
        let expected = AuthorizationResponse.Expectation(
            state: "xyz", issuer: nil, redirectURI: "http://127.0.0.1:1/callback")
        switch LoopbackRedirectListener.judge(head: head, path: "/callback", expected: expected) {
        case .finished: #expect(verdict == "finished")
        case .refused(let status): #expect(status == verdict)
        }
    }

    @Test(
        "over real sockets on both loopback literals: strays are refused, the one redirect wins, then it closes",
        arguments: [LoopbackRedirectListener.Address.ipv4, .ipv6])
    func realRedirect(address: LoopbackRedirectListener.Address) async throws {
        let listener: LoopbackRedirectListener
        do {
            listener = try LoopbackRedirectListener(address: address)
        } catch  where address == .ipv6 {
            return // IPv6 switched off on this machine: nothing to test.
        }
        #expect(listener.port != 0)
        #expect(listener.redirectURI.hasPrefix(address == .ipv4 ? "http://127.0.0.1:" : "http://[::1]:"))
        #expect(listener.redirectURI.hasSuffix("/callback"))
        let base = listener.redirectURI
        async let waited = listener.waitForRedirect(expecting: expectation(listener))
        let stray = try await get(base.replacingOccurrences(of: "/callback", with: "/favicon.ico"))
        #expect(stray.status == 404)
        let forged = try await get(base + "?code=evil&state=abc")
        #expect(forged.status == 400)
        #expect(!String(decoding: forged.body, as: UTF8.self).contains("evil"))
        let good = try await get(base + "?code=SplxlOBe&state=xyz&iss=https%3A%2F%2Fa.example")
        #expect(good.status == 200)
        #expect(String(decoding: good.body, as: UTF8.self).contains("You can close this window"))
        let response = try await waited
        #expect(response.code == "SplxlOBe")
        #expect(!listener.isOpen)
        await #expect(throws: (any Error).self) { try await get(base + "?code=second&state=xyz") }
    }

    @Test("access_denied of this sign-in ends the wait with the denial")
    func denied() async throws {
        let listener = try LoopbackRedirectListener(path: "/cb")
        let expected = expectation(listener)
        let waited = Task { try await listener.waitForRedirect(expecting: expected) }
        let page = try await get(listener.redirectURI + "?error=access_denied&state=xyz")
        #expect(page.status == 200)
        await #expect(throws: DeviceLoginError(.accessDenied, "")) { try await waited.value }
    }

    @Test("a request larger than the bound is refused and the wait goes on")
    func oversized() async throws {
        let listener = try LoopbackRedirectListener()
        async let waited = listener.waitForRedirect(expecting: expectation(listener))
        let big = try await get(listener.redirectURI + "?code=c&state=xyz&pad=" + String(repeating: "a", count: 9000))
        #expect(big.status == 400)
        #expect(try await get(listener.redirectURI + "?code=c&state=xyz").status == 200)
        let response = try await waited
        #expect(response.code == "c")
    }

    @Test("cancelling the wait closes the listener and frees the port")
    func cancelled() async throws {
        let listener = try LoopbackRedirectListener()
        let port = listener.port
        let task = Task { try await listener.waitForRedirect(expecting: expectation(listener)) }
        try await Task.sleep(for: .milliseconds(50))
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(!listener.isOpen)
        let again = try LoopbackRedirectListener(port: port)
        #expect(again.port == port)
    }

    @Test("127.0.0.1 first; [::1] on the same port when IPv4 loopback cannot be bound; the IPv4 error when neither")
    func fallback() throws {
        let first = try LoopbackRedirectListener.onAvailableLoopback()
        #expect(first.redirectURI == "http://127.0.0.1:\(first.port)/callback")
        // 127.0.0.1:port is now held, so IPv4 cannot be bound there: the listener falls back to [::1].
        let second = try LoopbackRedirectListener.onAvailableLoopback(port: first.port)
        #expect(second.redirectURI == "http://[::1]:\(first.port)/callback")
        #expect(second.port == first.port)
        let error = #expect(throws: DeviceLoginError.self) {
            try LoopbackRedirectListener.onAvailableLoopback(port: first.port)
        }
        #expect(error?.message.contains("127.0.0.1:\(first.port)") == true, "\(String(describing: error))")
    }

    @Test("a path that is not plain is refused", arguments: ["callback", "/a b", "/a?b", ""])
    func badPath(path: String) {
        #expect(throws: DeviceLoginError(.configuration, "")) { try LoopbackRedirectListener(path: path) }
    }
}
