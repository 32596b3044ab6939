import DeviceLogin
import Foundation
import Testing

/// Every secret that crosses the wire in a sign-in, a refresh, userinfo and sign-out is absent from the trace.
@Suite("TracingTransport")
struct TracingTransportTests {
    static let deviceCode = "GmRhmhcxhwAzkoEqiMEg_DnyEysNkuNhszIySk9eS"
    static let accessToken = "AT-2YotnFZFEjr1zCsicMWpAA-0123456789"
    static let refreshToken = "RT-tGzv3JOkF0XG5Qx2TlKWIA-0123456789"
    static let rotatedRefreshToken = "RT-rotated-8xLOxBtZp8-0123456789"
    static let idToken = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1MSJ9.c2lnbmF0dXJlLXZhbHVl"
    static let clientSecret = "s3cr3t-client-secret-value"
    static var secrets: [String] {
        [deviceCode, accessToken, refreshToken, rotatedRefreshToken, idToken, clientSecret]
    }

    private final class Lines: Sendable {
        let lines = Locked<[String]>([])
        func append(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    private func form(_ url: String, _ body: String, basic: Bool = false) -> HTTPRequest {
        var headers = [HTTPHeader("Content-Type", "application/x-www-form-urlencoded")]
        if basic {
            let credentials = Data("cli:\(Self.clientSecret)".utf8).base64EncodedString()
            headers.append(HTTPHeader("Authorization", "Basic \(credentials)"))
        }
        return HTTPRequest(method: .post, url: URL(string: url)!, headers: headers, body: Data(body.utf8))
    }

    @Test func aWholeSessionLeavesNoSecretInTheTrace() async throws {
        let base = ScriptedTransport([
            ScriptedTransport.json(
                #"{"device_code":"\#(Self.deviceCode)","user_code":"WDJB-MJHT","verification_uri":"https://a/d","#
                    + #""expires_in":900}"#),
            ScriptedTransport.json(#"{"error":"authorization_pending"}"#, status: 400),
            ScriptedTransport.json(
                #"{"access_token":"\#(Self.accessToken)","token_type":"Bearer","refresh_token":"\#(Self.refreshToken)","#
                    + #""id_token":"\#(Self.idToken)","expires_in":3600}"#),
            ScriptedTransport.json(
                #"{"access_token":"\#(Self.accessToken)x","refresh_token":"\#(Self.rotatedRefreshToken)"}"#),
            // An HTML error page that echoes the refresh token it was sent.
            { _ in
                HTTPResponse(
                    status: 500, headers: [HTTPHeader("Content-Type", "text/html")],
                    body: Data("<p>bad grant \(Self.rotatedRefreshToken)</p>".utf8))
            },
            ScriptedTransport.json(#"{"sub":"u1","email":"ada@example.com"}"#),
            ScriptedTransport.status(200),
            ScriptedTransport.failure(.timedOut),
        ])
        let lines = Lines()
        let transport = TracingTransport(wrapping: base) { lines.append($0) }
        _ = try await transport.send(form("https://a/device", "client_id=cli&scope=openid", basic: true))
        for _ in 0..<2 {
            _ = try await transport.send(
                form(
                    "https://a/token",
                    "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Adevice_code&device_code=\(Self.deviceCode)"
                        + "&client_id=cli&client_secret=\(Self.clientSecret)"))
        }
        _ = try await transport.send(
            form("https://a/token", "grant_type=refresh_token&refresh_token=\(Self.refreshToken)"))
        _ = try await transport.send(
            form(
                "https://a/token", "grant_type=refresh_token&refresh_token=\(Self.rotatedRefreshToken)"))
        _ = try await transport.send(
            HTTPRequest(
                method: .get, url: URL(string: "https://a/userinfo?access_token=\(Self.accessToken)")!,
                headers: [HTTPHeader("Authorization", "Bearer \(Self.accessToken)")]))
        _ = try await transport.send(
            form("https://a/revoke", "token=\(Self.rotatedRefreshToken)&token_type_hint=refresh_token"))
        await #expect(throws: TransportError.self) {
            try await transport.send(form("https://a/revoke", "token=\(Self.accessToken)"))
        }

        let trace = lines.all.joined(separator: "\n")
        for secret in Self.secrets {
            #expect(!trace.contains(secret), "the trace shows \(secret.prefix(8))…")
        }
        #expect(!trace.contains(Data("cli:\(Self.clientSecret)".utf8).base64EncodedString()))
        #expect(lines.all.first == "> POST https://a/device")
        #expect(trace.contains("> Authorization: Basic [redacted, "))
        #expect(trace.contains("device_code=[redacted, \(Self.deviceCode.count) chars]"))
        #expect(trace.contains(#""access_token":"[redacted, \#(Self.accessToken.count) chars]""#))
        #expect(trace.contains("< body: <p>bad grant [redacted, \(Self.rotatedRefreshToken.count) chars]</p>"))
        #expect(trace.contains("> GET https://a/userinfo?access_token=[redacted, \(Self.accessToken.count) chars]"))
        #expect(trace.contains(#"< body: {"email":"ada@example.com","sub":"u1"}"#))
        #expect(trace.contains(#"< body: {"error":"authorization_pending"}"#))
        #expect(lines.all.contains { $0.hasPrefix("< 400 (") && $0.hasSuffix(" ms)") })
        #expect(lines.all.last?.hasPrefix("! POST https://a/revoke failed after ") == true)
    }

    @Test func redactionMarksLengthAndKeepsTheScheme() {
        var redaction = Redaction()
        #expect(
            redaction.header(HTTPHeader("Authorization", "Bearer abcdefgh"))
                == "Authorization: Bearer [redacted, 8 chars]")
        #expect(redaction.header(HTTPHeader("DPoP", "eyJ.x.y")) == "DPoP: [redacted, 7 chars]")
        #expect(redaction.header(HTTPHeader("Accept", "application/json")) == "Accept: application/json")
        #expect(redaction.scrub("echo abcdefgh here") == "echo [redacted, 8 chars] here")
        #expect(redaction.form("code=abc&state=x") == "code=[redacted, 3 chars]&state=x")
        #expect(
            redaction.json(Data(#"{"nested":{"id_token":"123456789"},"list":[{"token":"abcdefghij"}]}"#.utf8))
                == #"{"list":[{"token":"[redacted, 10 chars]"}],"nested":{"id_token":"[redacted, 9 chars]"}}"#)
        #expect(redaction.json(Data("not json".utf8)) == nil)
    }
}
