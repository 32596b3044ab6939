import Foundation
import Testing

@testable import DeviceLogin

@Suite("PollOutcome: classifying token endpoint answers")
struct PollOutcomeTests {
    private func json(_ status: Int, _ body: String, headers: [HTTPHeader] = []) -> HTTPResponse {
        HTTPResponse(
            status: status, headers: [HTTPHeader("Content-Type", "application/json")] + headers, body: Data(body.utf8)
        )
    }

    @Test("RFC 8628 §3.5 codes")
    func rfcCodes() {
        #expect(PollOutcome(json(400, #"{"error":"authorization_pending"}"#)) == .pending)
        #expect(PollOutcome(json(400, #"{"error":"slow_down"}"#)) == .slowDown(serverInterval: nil))
        guard case .denied(let denied) = PollOutcome(json(400, #"{"error":"access_denied"}"#)) else {
            Issue.record("access_denied")
            return
        }
        #expect(denied.code == .accessDenied)
        guard case .expired = PollOutcome(json(400, #"{"error":"expired_token"}"#)) else {
            Issue.record("expired_token")
            return
        }
        guard case .oauthError(let other) = PollOutcome(json(400, #"{"error":"invalid_grant"}"#)) else {
            Issue.record("invalid_grant")
            return
        }
        #expect(other.code == .invalidGrant)
    }

    @Test("GitHub: errors inside HTTP 200, form-encoded, slow_down carrying interval")
    func github() {
        let form = HTTPResponse(
            status: 200, headers: [HTTPHeader("Content-Type", "application/x-www-form-urlencoded")],
            body: Data("error=slow_down&error_description=Too+many+requests&interval=10".utf8)
        )
        #expect(PollOutcome(form) == .slowDown(serverInterval: 10))
        #expect(PollOutcome(json(200, #"{"error":"authorization_pending"}"#)) == .pending)
        #expect(PollOutcome(json(200, #"{"error":"slow_down","interval":"15"}"#)) == .slowDown(serverInterval: 15))
    }

    @Test("a token response, token_type in any case")
    func token() {
        let outcome = PollOutcome(json(200, #"{"access_token":"a","token_type":"bearer","expires_in":"3600"}"#))
        guard case .token(let token) = outcome else {
            Issue.record("expected a token, got \(outcome)")
            return
        }
        #expect(token.isBearer)
        #expect(token.expiresIn == 3600)
    }

    // Issue 8: a token of another type was accepted and later sent as Bearer; one with CR/LF failed at first use.
    @Test(
        "a token the client cannot use ends the flow with invalidResponse",
        arguments: [
            #"{"access_token":"a","token_type":"mac"}"#, #"{"access_token":"a\r\nb","token_type":"Bearer"}"#,
        ])
    func unusableToken(body: String) {
        guard case .fatal(let error) = PollOutcome(json(200, body)) else {
            Issue.record("expected fatal for \(body)")
            return
        }
        #expect(error.code == .invalidResponse)
    }

    @Test("5xx, 429 and 408 are transient, with Retry-After", arguments: [500, 502, 503, 504, 429, 408])
    func transientStatuses(status: Int) {
        let response = HTTPResponse(
            status: status, headers: [HTTPHeader("Retry-After", "12")],
            body: Data("<html>busy</html>".utf8))
        #expect(
            PollOutcome(response)
                == .transient(
                    reason: "the server answered HTTP \(status)",
                    retryAfterSeconds: 12))
    }

    @Test(
        "malformed answers are final",
        arguments: [
            (200, "not json at all <html>"), (200, ""), (200, "[1,2,3]"), (200, #"{"token_type":"Bearer"}"#),
            (404, "Not Found"), (400, "<html>bad</html>"),
        ])
    func malformed(status: Int, body: String) {
        guard case .fatal(let error) = PollOutcome(json(status, body)) else {
            Issue.record("expected fatal for \(status) \(body)")
            return
        }
        #expect(error.code == .invalidResponse)
    }

    @Test("transport failures: DNS, connection and timeouts retry; TLS and size are final")
    func transportFailures() {
        for kind in [TransportError.Kind.dnsFailure, .connectionFailed, .timedOut] {
            #expect(PollOutcome(TransportError(kind, "m")) == .transient(reason: "m", retryAfterSeconds: nil))
        }
        for kind in [TransportError.Kind.tlsFailure, .responseTooLarge, .invalidResponse, .other] {
            guard case .fatal(let error) = PollOutcome(TransportError(kind, "m")) else {
                Issue.record("expected fatal for \(kind)")
                continue
            }
            #expect(error.code == .transport)
            #expect(error.transportError?.kind == kind)
        }
    }
}
