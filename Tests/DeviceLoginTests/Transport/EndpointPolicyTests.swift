import Foundation
import Testing
@testable import DeviceLogin

@Suite("EndpointPolicy: HTTPS except loopback")
struct EndpointPolicyTests {
    @Test("loopback hosts", arguments: [
        ("localhost", true), ("LOCALHOST", true), ("app.localhost", true), ("127.0.0.1", true), ("127.1.2.3", true),
        ("::1", true), ("[::1]", true), ("127.0.0.256", false), ("128.0.0.1", false), ("example.com", false),
        ("localhost.example.com", false), ("127.0.0.1.nip.io", false), ("10.0.0.1", false),
    ])
    func loopback(host: String, expected: Bool) {
        #expect(EndpointPolicy.isLoopback(host: host) == expected)
    }

    @Test("checks", arguments: [
        ("https://auth.example.com/x", false, true), ("http://auth.example.com/x", false, false),
        ("http://auth.example.com/x", true, true), ("http://127.0.0.1:9/x", false, true),
        ("http://[::1]:9/x", false, true), ("ftp://auth.example.com", true, false), ("file:///etc/passwd", true, false),
    ])
    func check(url: String, allowHTTP: Bool, accepted: Bool) throws {
        let target = try #require(URL(string: url))
        if accepted {
            try EndpointPolicy.check(target, allowInsecureHTTP: allowHTTP)
        } else {
            #expect(throws: TransportError.self) { try EndpointPolicy.check(target, allowInsecureHTTP: allowHTTP) }
        }
    }
}
