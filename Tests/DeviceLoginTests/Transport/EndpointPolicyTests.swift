import Foundation
import Testing

@testable import DeviceLogin

@Suite("EndpointPolicy: HTTPS except loopback")
struct EndpointPolicyTests {
    @Test(
        "loopback hosts",
        arguments: [
            ("localhost", true), ("LOCALHOST", true), ("app.localhost", true), ("127.0.0.1", true), ("127.1.2.3", true),
            ("::1", true), ("[::1]", true), ("127.0.0.256", false), ("128.0.0.1", false), ("example.com", false),
            ("localhost.example.com", false), ("127.0.0.1.nip.io", false), ("10.0.0.1", false),
        ])
    func loopback(host: String, expected: Bool) {
        #expect(EndpointPolicy.isLoopback(host: host) == expected)
    }

    @Test(
        "checks",
        arguments: [
            ("https://auth.example.com/x", false, true), ("http://auth.example.com/x", false, false),
            ("http://auth.example.com/x", true, true), ("http://127.0.0.1:9/x", false, true),
            ("http://[::1]:9/x", false, true), ("ftp://auth.example.com", true, false),
            ("file:///etc/passwd", true, false),
        ])
    func check(url: String, allowHTTP: Bool, accepted: Bool) throws {
        let target = try #require(URL(string: url))
        if accepted {
            try EndpointPolicy.check(target, allowInsecureHTTP: allowHTTP)
        } else {
            #expect(throws: TransportError.self) { try EndpointPolicy.check(target, allowInsecureHTTP: allowHTTP) }
        }
    }

    // Issue 8: credentials in an endpoint URL were sent as HTTP Basic by libcurl and echoed in errors.
    @Test(
        "a user name or password in an endpoint URL is refused without echoing it",
        arguments: [
            "https://user:hunter2-secret@auth.example.com/token", "https://user@auth.example.com/token",
            "http://admin:hunter2-secret@127.0.0.1:8080/token",
        ])
    func credentialsInURLsAreRefused(text: String) throws {
        let url = try #require(URL(string: text))
        let error = #expect(throws: TransportError.self) { try EndpointPolicy.check(url, allowInsecureHTTP: true) }
        #expect(error?.kind == .insecureURL)
        #expect(error?.message.contains("hunter2") == false)
        #expect(error?.message.contains("user name or password") == true)
    }
}
