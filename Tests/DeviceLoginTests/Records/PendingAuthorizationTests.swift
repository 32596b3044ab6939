import Foundation
import Testing

@testable import DeviceLogin

/// A pending sign-in as the tests use it: received at `Fixtures.start`, 600 s to live.
func pendingFixture(name: String = "work", expiresIn: Int = 600) throws -> PendingAuthorization {
    let response = DeviceAuthorizationResponse(
        deviceCode: "DEVICE-CODE-SECRET", userCode: "WDJB-MJHT", verificationURI: "https://auth.example.com/device",
        verificationURIComplete: "https://auth.example.com/device?user_code=WDJB-MJHT", expiresIn: expiresIn,
        interval: 5)
    return try PendingAuthorization(
        profile: try Fixtures.profile(name: name),
        authorization: DeviceAuthorization(response: response, receivedAt: Fixtures.start, issuer: Fixtures.issuer),
        additionalHeaders: [HTTPHeader("X-Tenant", "blue")], caFile: "/etc/ca.pem")
}

@Suite("PendingAuthorization: a sign-in waiting for approval, in its stored form")
struct PendingAuthorizationTests {
    @Test("encoded and decoded: the same value; times as Unix seconds; the interval in whole seconds")
    func roundTrip() throws {
        var pending = try pendingFixture()
        pending.progress.record(.polling(attempt: 1, elapsed: .seconds(5)), at: Fixtures.start.addingTimeInterval(5))
        pending.progress.record(
            .slowDown(attempt: 1, newInterval: .seconds(10)), at: Fixtures.start.addingTimeInterval(5))
        let data = try JSONEncoder().encode(pending)
        let object = try JSONValue.decodeObject(from: data)
        #expect(object["received_at"] == .number(1_700_000_000))
        #expect(object["expires_at"] == .number(1_700_000_600))
        #expect(object["interval"] == .number(10))
        #expect(object["last_poll_at"] == .number(1_700_000_005))
        #expect(object["not_before"] == .number(1_700_000_015))
        #expect(object["headers"] == .array([.array([.string("X-Tenant"), .string("blue")])]))
        #expect(try JSONDecoder().decode(PendingAuthorization.self, from: data) == pending)
    }

    @Test("the store of `login --detach --store` is kept as its word; absent when none; an unknown word is refused")
    func storeRequest() throws {
        var pending = try pendingFixture()
        #expect(try JSONValue.decodeObject(from: try JSONEncoder().encode(pending))["store_request"] == nil)
        pending.storeRequest = TokenStoreRequest.exactly(.secretService).word
        let data = try JSONEncoder().encode(pending)
        var object = try JSONValue.decodeObject(from: data)
        #expect(object["store_request"] == .string("secret-service"))
        let read = try JSONDecoder().decode(PendingAuthorization.self, from: data)
        #expect(read.storeRequest.flatMap(TokenStoreRequest.init) == .exactly(.secretService))
        object["store_request"] = .string("vault")
        let unknown = try JSONValue.encode(object)
        #expect(throws: (any Error).self) { try JSONDecoder().decode(PendingAuthorization.self, from: unknown) }
    }

    @Test("the summary shows the user code, never the device code")
    func description() throws {
        let text = "\(try pendingFixture())"
        #expect(text.contains("WDJB-MJHT"))
        #expect(!text.contains("DEVICE-CODE-SECRET"))
    }

    @Test(
        "expiry and seconds left, at the boundaries",
        arguments: [(0, false, 600), (599, false, 1), (600, true, 0), (10_000, true, 0), (-5, false, 605)])
    func expiry(after seconds: Int, expired: Bool, left: Int) throws {
        let pending = try pendingFixture()
        let now = Fixtures.start.addingTimeInterval(TimeInterval(seconds))
        #expect(pending.isExpired(at: now) == expired)
        #expect(pending.secondsLeft(at: now) == left)
    }

    @Test(
        "numbers from the file outside their bounds are refused",
        arguments: [
            ("interval", JSONValue.number(0)), ("interval", .number(86_401)), ("attempts", .number(-1)),
            ("consecutive_failures", .number(3e9)), ("not_before", .number(1e300)), ("interval", .string("5")),
        ])
    func bounds(field: String, value: JSONValue) throws {
        var object = try JSONValue.decodeObject(from: try JSONEncoder().encode(try pendingFixture()))
        object[field] = value
        let data = try JSONValue.encode(object)
        #expect(throws: (any Error).self) { try JSONDecoder().decode(PendingAuthorization.self, from: data) }
    }

    @Test("the response is checked as on the wire: a user code that cannot be shown is refused")
    func responseChecked() throws {
        var object = try JSONValue.decodeObject(from: try JSONEncoder().encode(try pendingFixture()))
        guard case .object(var response)? = object["response"] else {
            Issue.record("no response object")
            return
        }
        response["user_code"] = .string("\u{7}")
        object["response"] = .object(response)
        let data = try JSONValue.encode(object)
        #expect(throws: DeviceLoginError.self) { try JSONDecoder().decode(PendingAuthorization.self, from: data) }
    }

    /// The fixture's authorization with its verification URIs replaced.
    private func authorization(uri: String, complete: String?) -> DeviceAuthorization {
        let response = DeviceAuthorizationResponse(
            deviceCode: "DEVICE-CODE-SECRET", userCode: "WDJB-MJHT", verificationURI: uri,
            verificationURIComplete: complete, expiresIn: 600, interval: 5)
        return DeviceAuthorization(response: response, receivedAt: Fixtures.start, issuer: Fixtures.issuer)
    }

    // Issue 17: what the prompt refused was kept in the pending file, and `status` and `--resume` showed it later.
    @Test(
        "an address the prompt refuses is not kept: the sign-in is refused (invalid response)",
        arguments: ["javascript:alert(document.cookie)", "https://auth.example.com/\u{1B}[31mdevice"])
    func refusedAddressNotKept(uri: String) throws {
        let error = #expect(throws: DeviceLoginError.self) {
            try PendingAuthorization(
                profile: try Fixtures.profile(name: "work"), authorization: authorization(uri: uri, complete: nil))
        }
        #expect(error?.code == .invalidResponse)
        #expect(error?.message.contains("verification_uri is not a plain http(s) link") == true)
        #expect(error?.message.contains(uri) == false)
    }

    @Test("a verification_uri_complete that is no plain http(s) link is dropped; the rest is kept")
    func unsafeCompleteDropped() throws {
        let pending = try PendingAuthorization(
            profile: try Fixtures.profile(name: "work"),
            authorization: authorization(uri: "https://auth.example.com/device", complete: "javascript:alert(1)"))
        #expect(pending.authorization.verificationURIComplete == nil)
        #expect(pending.authorization.verificationURI == "https://auth.example.com/device")
        let stored = String(decoding: try JSONEncoder().encode(pending), as: UTF8.self)
        #expect(!stored.contains("javascript"))
    }

    @Test(
        "a file is not trusted: an address the prompt refuses, written into it, is refused when read",
        arguments: [
            ("verification_uri", "javascript:alert(1)"),
            ("verification_uri", "https://auth.example.com/\u{1B}]8;;https://evil.example\u{7}device"),
            ("verification_uri_complete", "javascript:alert(1)"),
        ])
    func tamperedAddressRefused(field: String, uri: String) throws {
        var object = try JSONValue.decodeObject(from: try JSONEncoder().encode(try pendingFixture()))
        guard case .object(var response)? = object["response"] else {
            Issue.record("no response object")
            return
        }
        response[field] = .string(uri)
        object["response"] = .object(response)
        let data = try JSONValue.encode(object)
        let error = #expect(throws: DeviceLoginError.self) {
            try JSONDecoder().decode(PendingAuthorization.self, from: data)
        }
        #expect(error?.message.hasPrefix("the sign-in address is refused: its \(field) is not a plain") == true)
    }

    /// The fixture with its profile's endpoints changed by `change`, as a tampered file would hold them.
    private func tampered(_ change: (inout ServerEndpoints) -> Void) throws -> PendingAuthorization {
        var pending = try pendingFixture()
        change(&pending.profile.endpoints)
        return pending
    }

    /// The fixture with endpoint `field` (its stored name) set to `url`.
    private func tampered(_ field: String, _ url: String) throws -> PendingAuthorization {
        let url = try #require(URL(string: url))
        return try tampered { endpoints in
            switch field {
            case "device_authorization_endpoint": endpoints.deviceAuthorization = url
            case "token_endpoint": endpoints.token = url
            case "revocation_endpoint": endpoints.revocation = url
            case "userinfo_endpoint": endpoints.userinfo = url
            default: endpoints.jwks = url
            }
        }
    }

    @Test(
        "an endpoint a file names passes the HTTPS policy, as one on the command line: plain http off loopback refused",
        arguments: [
            ("token_endpoint", "http://evil.example/token", "refusing plain HTTP to evil.example"),
            ("device_authorization_endpoint", "http://evil.example/d", "refusing plain HTTP to evil.example"),
            ("revocation_endpoint", "http://evil.example/r", "refusing plain HTTP to evil.example"),
            ("userinfo_endpoint", "http://evil.example/u", "refusing plain HTTP to evil.example"),
            ("jwks_uri", "http://evil.example/k", "refusing plain HTTP to evil.example"),
            ("token_endpoint", "https://u:p@auth.example.com/token", "has a user name or password"),
            ("token_endpoint", "ftp://auth.example.com/token", "is not an http(s) URL"),
        ])
    func endpointPolicy(field: String, url: String, message: String) throws {
        let pending = try tampered(field, url)
        let error = try #require(throws: DeviceLoginError.self) { try pending.checkServer(savedProfile: nil) }
        #expect(error.code == .insecureEndpoint)
        #expect(error.message.contains(message), "\(error.message)")
        try pendingFixture().checkServer(savedProfile: nil)
    }

    @Test("endpoints of another server than the one the code was requested from are refused")
    func anotherIssuer() throws {
        let pending = try tampered { $0.issuer = "https://evil.example" }
        let error = try #require(throws: DeviceLoginError.self) { try pending.checkServer(savedProfile: nil) }
        #expect(error.code == .configuration)
        #expect(
            error.message
                == "its endpoints are of https://evil.example:443, but it was started with https://auth.example.com:443"
        )
    }

    @Test("with a saved profile of the same issuer, every endpoint is on one of its hosts")
    func savedProfileHosts() throws {
        let saved = try Fixtures.profile(name: "work")
        try pendingFixture().checkServer(savedProfile: saved)
        // Another path on a known host is fine; a port, host or scheme of its own is not.
        try tampered("token_endpoint", "https://AUTH.example.com:443/oauth/token").checkServer(savedProfile: saved)
        for url in ["https://evil.example/token", "https://auth.example.com:8443/token", "http://127.0.0.1:9/token"] {
            let pending = try tampered("token_endpoint", url)
            let error = try #require(throws: DeviceLoginError.self) { try pending.checkServer(savedProfile: saved) }
            #expect(error.code == .configuration)
            #expect(error.message.hasPrefix("its token endpoint is on "), "\(error.message)")
            #expect(
                error.message.hasSuffix(
                    ", none of the hosts of the saved profile 'work' (https://auth.example.com:443)"))
        }
        // A saved profile of another server is no reference: the sign-in is for a new one.
        var elsewhere = saved
        elsewhere.issuer = "https://other.example"
        try tampered("jwks_uri", "https://keys.example/jwks").checkServer(savedProfile: elsewhere)
    }
}
