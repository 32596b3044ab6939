import Foundation
import Testing

@testable import DeviceLogin

@Suite("ServerReply: one classification of OAuth endpoint answers")
struct ServerReplyTests {
    @Test("JSON error with description, URI, status and a bounded body copy")
    func jsonError() {
        let body =
            #"{"error":"invalid_client","error_description":"Unknown client","error_uri":"https://e/doc","x":1}"#
            + String(repeating: " ", count: 10_000)
        let reply = ServerReply(HTTPResponse(status: 401, body: Data(body.utf8)))
        guard case .oauthError(let error) = reply else {
            Issue.record("expected an OAuth error")
            return
        }
        #expect(error.code == .invalidClient)
        #expect(error.description == "Unknown client")
        #expect(error.uri == "https://e/doc")
        #expect(error.httpStatus == 401)
        #expect(error.body.utf8.count == OAuthError.maximumBodyCopy)
        #expect(error.additionalFields == ["x": .number(1)])
        #expect(error.summary == "invalid_client: Unknown client")
    }

    @Test("form-encoded success without a media type (GitHub's default)")
    func formSuccess() {
        let reply = ServerReply(
            HTTPResponse(
                status: 200, body: Data("access_token=gho_x&scope=repo&token_type=bearer".utf8)
            ))
        #expect(
            reply
                == .success([
                    "access_token": .string("gho_x"), "scope": .string("repo"),
                    "token_type": .string("bearer"),
                ]))
    }

    @Test("an HTML error page is an HTTP error, not an OAuth error")
    func htmlPage() {
        let response = HTTPResponse(
            status: 502,
            headers: [
                HTTPHeader("Content-Type", "text/html"),
                HTTPHeader("Retry-After", "7"),
            ],
            body: Data("<html>Bad gateway</html>".utf8))
        #expect(
            ServerReply(response)
                == .httpError(
                    status: 502, retryAfterSeconds: 7,
                    bodyExcerpt: "<html>Bad gateway</html>"))
    }

    @Test(
        "Retry-After in seconds only; dates and junk ignored",
        arguments: [
            ("120", 120), ("0", 0), ("Wed, 21 Oct 2015 07:28:00 GMT", nil), ("-5", nil), ("99999999", 86_400),
        ] as [(String, Int?)])
    func retryAfter(value: String, expected: Int?) {
        #expect(HTTPResponse(status: 503, headers: [HTTPHeader("retry-after", value)]).retryAfterSeconds == expected)
    }
}
