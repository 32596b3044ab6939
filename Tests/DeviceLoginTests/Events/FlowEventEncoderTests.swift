import DeviceLoginTesting
import Foundation
import Testing

@testable import DeviceLogin

/// The lines of a flow, each stamped with `now` at the moment its event came.
private final class LineLog: Sendable {
    private let storage = Locked<[String]>([])
    func append(_ line: String) { storage.withLock { $0.append(line) } }
    var lines: [String] { storage.withLock { $0 } }
}

/// A line parsed back into a dictionary.
private func object(_ line: String) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
}

private let start = Date(timeIntervalSince1970: 1_800_000_000) // 2027-01-15T08:00:00Z

private func authorization(
    userCode: String, uri: String, complete: String? = nil, issuer: String? = "https://auth.example.com"
) -> DeviceAuthorization {
    DeviceAuthorization(
        response: DeviceAuthorizationResponse(
            deviceCode: "DEVICE-CODE-SECRET", userCode: userCode, verificationURI: uri,
            verificationURIComplete: complete, expiresIn: 600, interval: 5),
        receivedAt: start, issuer: issuer)
}

@Suite("FlowEventEncoder: the v1 JSON lines of a device flow")
struct FlowEventEncoderTests {
    @Test(
        "authorization at 0 s, pending at 5 s, slow_down at 10 s with interval 10, pending at 20 s, succeeded at 30 s")
    func virtualTimeSchedule() async throws {
        let clock = ManualClock()
        let server = MockAuthorizationServer(
            configuration: MockAuthorizationServer.Configuration(
                defaultScript: .approve(afterPolls: 3).with(.slowDown, atPoll: 2)),
            clock: clock)
        let now: @Sendable () -> Date = { start.addingTimeInterval(clock.elapsed / .seconds(1)) }
        let flow = DeviceFlow(
            endpoints: try server.endpoints(),
            client: ClientConfiguration(clientID: MockAuthorizationServer.Configuration.defaultClientID),
            transport: InProcessTransport(server: server), clock: clock, now: now)
        let encoder = FlowEventEncoder()
        let log = LineLog()
        let token = try await clock.withAutoAdvance {
            try await flow.run { event in
                if let line = encoder.line(for: event, context: FlowEventContext(at: now(), profile: "work")) {
                    log.append(line)
                }
            }
        }
        let lines = log.lines
        let summary = try lines.map { line -> String in
            let json = try object(line)
            return "\(json["event"] ?? "?")@\(json["at"] ?? "?")"
        }
        #expect(
            summary == [
                "authorization@2027-01-15T08:00:00Z",
                "polling@2027-01-15T08:00:05Z", "pending@2027-01-15T08:00:05Z",
                "polling@2027-01-15T08:00:10Z", "slow_down@2027-01-15T08:00:10Z",
                "polling@2027-01-15T08:00:20Z", "pending@2027-01-15T08:00:20Z",
                "polling@2027-01-15T08:00:30Z", "succeeded@2027-01-15T08:00:30Z",
            ])
        #expect(lines[4] == #"{"v":1,"event":"slow_down","at":"2027-01-15T08:00:10Z","attempt":2,"interval":10}"#)
        #expect(lines[2] == #"{"v":1,"event":"pending","at":"2027-01-15T08:00:05Z","attempt":1}"#)
        let code = try #require(server.lastAuthorization)
        let first = try object(lines[0])
        #expect(first["v"] as? Int == 1)
        #expect(first["user_code"] as? String == code.userCode)
        #expect((first["verification_uri"] as? String)?.hasPrefix(server.issuer) == true)
        #expect(first["expires_at"] as? String == "2027-01-15T08:10:00Z")
        #expect(first["interval"] as? Int == 5)
        #expect(
            lines[8]
                == #"{"v":1,"event":"succeeded","at":"2027-01-15T08:00:30Z","profile":"work","expires_at":null,"scopes":[]}"#
        )
        // No line holds the device code or a token.
        for line in lines {
            #expect(!line.contains(code.deviceCode))
            #expect(!line.contains(token.accessToken))
            if let refresh = token.refreshToken { #expect(!line.contains(refresh)) }
        }
    }

    @Test("authorization: escape sequences, bidi and controls removed; the complete URI beside the plain one")
    func authorizationSanitised() throws {
        let line = try #require(
            FlowEventEncoder().line(
                for: .authorizationReceived(
                    authorization(
                        userCode: "WDJB-\u{1B}]52;c;ZXZpbA==\u{07}MJ\u{202E}HT\u{0}",
                        uri: "https://auth.example.com/device",
                        complete: "https://auth.example.com/device?user_code=WDJB-MJHT")),
                context: FlowEventContext(at: start)))
        #expect(
            line == #"{"v":1,"event":"authorization","at":"2027-01-15T08:00:00Z","user_code":"WDJB-MJHT","#
                + #""verification_uri":"https://auth.example.com/device","#
                + #""verification_uri_complete":"https://auth.example.com/device?user_code=WDJB-MJHT","#
                + #""host":"auth.example.com","expires_at":"2027-01-15T08:10:00Z","interval":5,"warnings":[]}"#)
        #expect(!line.contains("DEVICE-CODE-SECRET"))
    }

    @Test(
        "A verification URI that is not plain http(s) is refused: null, with the reason; no complete URI",
        arguments: ["javascript:alert(1)", "file:///etc/passwd", "https://good.example@evil.example/", "data:,x"])
    func unsafeURIRefused(uri: String) throws {
        let line = try #require(
            FlowEventEncoder().line(
                for: .authorizationReceived(
                    authorization(userCode: "ABCD", uri: uri, complete: "https://auth.example.com/d?c=ABCD")),
                context: FlowEventContext(at: start)))
        let json = try object(line)
        #expect(json["verification_uri"] is NSNull)
        #expect(json["host"] is NSNull)
        #expect(json["verification_uri_complete"] == nil)
        #expect(json["address_refused"] as? String == "the server's sign-in address is not a plain http(s) link")
        #expect(!line.contains("javascript") && !line.contains("@evil") && !line.contains("file:"))
    }

    @Test("A complete URI that is unsafe, or on another host, is left out; the warning says why")
    func completeURIOnAnotherHost() throws {
        let encoder = FlowEventEncoder()
        let unsafe = try #require(
            encoder.line(
                for: .authorizationReceived(
                    authorization(
                        userCode: "ABCD", uri: "https://auth.example.com/d", complete: "javascript:alert(1)")),
                context: FlowEventContext(at: start)))
        #expect(try object(unsafe)["verification_uri_complete"] == nil)
        let other = try #require(
            encoder.line(
                for: .authorizationReceived(
                    authorization(
                        userCode: "ABCD", uri: "https://auth.example.com/d", complete: "https://evil.example/d")),
                context: FlowEventContext(at: start)))
        let json = try object(other)
        #expect(json["verification_uri_complete"] == nil)
        #expect((json["warnings"] as? [String])?.first?.contains("evil.example") == true)
    }

    @Test("retrying: the reason sanitised, the delay in whole seconds rounded up, and when the next attempt is")
    func retrying() throws {
        let line = FlowEventEncoder().line(
            for: .retrying(attempt: 3, delay: .milliseconds(7500), reason: "HTTP 503\u{1B}[2J from\u{202E} server"),
            context: FlowEventContext(at: start))
        #expect(
            line
                == #"{"v":1,"event":"retrying","at":"2027-01-15T08:00:00Z","attempt":3,"reason":"HTTP 503 from server","#
                + #""delay":8,"next_attempt_at":"2027-01-15T08:00:08Z"}"#)
    }

    @Test("failed: the code in snake case, message and hint sanitised, the server's error, the exit code")
    func failed() throws {
        var error = DeviceLoginError(
            .accessDenied, "the request was denied: \u{1B}]8;;https://evil\u{7}click\u{1B}]8;;\u{7}",
            hint: "start again", oauthError: OAuthError(code: .accessDenied))
        error.reason = nil
        let line = FlowEventEncoder().line(for: .failed(error), context: FlowEventContext(at: start, exitCode: 65))
        #expect(
            line
                == #"{"v":1,"event":"failed","at":"2027-01-15T08:00:00Z","code":"access_denied","#
                + #""message":"the request was denied: click","hint":"start again","oauth_error":"access_denied","#
                + #""exit_code":65}"#)
        #expect(FlowEventEncoder.snakeCase("invalidIDToken") == "invalid_id_token")
        #expect(FlowEventEncoder.snakeCase("expired") == "expired")
    }

    // The lines let the spaces other than U+0020 through raw, while `--json` escaped them: one rule now, the stricter.
    @Test("a string the encoder does not sanitise (the caller's own) is written by the one rule: spaces, controls")
    func unsanitisedStringsFollowTheOneRule() {
        let context = FlowEventContext(at: start, profile: "work\u{A0}laptop", exitCode: 1)
        let line = FlowEventEncoder().failedLine(code: "timed\u{3000}out\n\u{202E}", message: "m", context: context)
        #expect(
            line
                == #"{"v":1,"event":"failed","at":"2027-01-15T08:00:00Z","code":"timed\u3000out\n\u202E","#
                + #""message":"m","exit_code":1}"#)
        let succeeded = FlowEventEncoder().line(for: .succeeded, context: context)
        #expect(succeeded?.contains(#""profile":"work\u00A0laptop""#) == true, "\(succeeded ?? "")")
    }

    @Test("intervalChanged has no line of its own: slow_down carries the interval")
    func intervalChanged() {
        #expect(
            FlowEventEncoder().line(
                for: .intervalChanged(from: .seconds(5), to: .seconds(10)), context: FlowEventContext(at: start))
                == nil)
    }

    @Test("succeeded: scopes sanitised and empty ones dropped; never a token")
    func succeeded() {
        let line = FlowEventEncoder().line(
            for: .succeeded,
            context: FlowEventContext(
                at: start, profile: nil, tokenExpiresAt: start.addingTimeInterval(3600),
                scopes: ["openid", "\u{1B}[31m", "read\u{200B}:all"]))
        #expect(
            line
                == #"{"v":1,"event":"succeeded","at":"2027-01-15T08:00:00Z","profile":null,"#
                + #""expires_at":"2027-01-15T09:00:00Z","scopes":["openid","read:all"]}"#)
    }

    // Issue 17: the failed line repeated a secret the server had echoed in its error description.
    @Test("failed and retrying lines: every secret the process holds is replaced by a marker, whatever carried it")
    func secretsAreRedacted() {
        let tokens = TokenSet(
            accessToken: "access-\(UUID().uuidString)", expiresAt: nil, refreshToken: "refresh-\(UUID().uuidString)",
            idToken: "id-\(UUID().uuidString)", issuedAt: Date())
        let secrets = [tokens.accessToken, tokens.refreshToken ?? "", tokens.idToken ?? ""]
        let echo = secrets.joined(separator: " ")
        // Set after the error is made, as a caller may: the encoder must not rely on the error's own scrubbing.
        var error = DeviceLoginError(.oauth, "refused")
        error.message = "the server refused: \(echo)"
        error.hint = "try \(echo)"
        let encoder = FlowEventEncoder()
        let context = FlowEventContext(at: Date(timeIntervalSince1970: 0), exitCode: 76)
        let lines = [
            encoder.failedLine(error, context: context),
            encoder.failedLine(code: "failure", message: echo, context: context),
            encoder.line(for: .retrying(attempt: 1, delay: .seconds(5), reason: echo), context: context) ?? "",
        ]
        for line in lines {
            for secret in secrets { #expect(!line.contains(secret), "\(line)") }
            #expect(line.contains("[redacted, "), "\(line)")
        }
    }

    @Test("the code grant's lines: flow, link (a safe URI only, never a secret), redirected; byte for byte")
    func codeGrantLines() {
        let encoder = FlowEventEncoder()
        let context = FlowEventContext(at: start)
        let decision = FlowChoice.Decision(flow: .paste, reason: "a pasted code: over SSH\u{1B}[31m")
        let flow = encoder.flowLine(decision, context: context)
        #expect(
            flow.hasPrefix(
                #"{"v":1,"event":"flow","at":"2027-01-15T08:00:00Z","flow":"paste","reason":"a pasted code: over SSH"#))
        #expect(!flow.contains("\u{1B}") && !flow.contains("\\u001b"))
        #expect(
            encoder.linkLine(url: "https://a.example/authorize?state=s", flow: .browser, context: context)
                == #"{"v":1,"event":"link","at":"2027-01-15T08:00:00Z","flow":"browser","url":"https://a.example/authorize?state=s"}"#
        )
        #expect(encoder.linkLine(url: "javascript:alert(1)", flow: .paste, context: context) == nil)
        #expect(
            encoder.redirectedLine(context: context) == #"{"v":1,"event":"redirected","at":"2027-01-15T08:00:00Z"}"#)
    }
}
