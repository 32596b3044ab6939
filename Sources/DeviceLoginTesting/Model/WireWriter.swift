import DeviceLogin

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One answer of the mock server with what it means, ready to be recorded and sent.
struct Reply {
    /// What goes on the wire.
    var response: MockResponse
    /// What the record says was answered.
    var answer: MockAuthorizationServer.RecordedRequest.Answer
    /// How long the answer is held back.
    var delay: Duration = .zero
    /// The device code concerned, for the record.
    var deviceCode: String?
    /// The poll number, for device code polls.
    var pollNumber: Int?
}

/// Shapes answers the way the server's dialect sends them.
///
/// Every dialect-specific choice about bodies and statuses is made here, so the protocol model stays one.
struct WireWriter {
    typealias Dialect = MockAuthorizationServer.Dialect

    /// The dialect spoken.
    var dialect: Dialect
    /// Whether the request asked for JSON (`Accept: application/json`): GitHub answers form-encoded otherwise.
    var acceptsJSON: Bool

    private static let jsonHeaders = [
        HTTPHeader("Content-Type", "application/json"),
        HTTPHeader("Cache-Control", "no-store"),
        HTTPHeader("Pragma", "no-cache"),
    ]
    private static let formHeaders = [
        HTTPHeader("Content-Type", "application/x-www-form-urlencoded; charset=utf-8"),
        HTTPHeader("Cache-Control", "no-store"),
    ]

    /// Whether OAuth bodies go out form-encoded: GitHub's habit without `Accept: application/json`.
    private var writesForm: Bool { dialect == .github && !acceptsJSON }

    /// A successful OAuth answer (a device code, a token, a document) with status 200.
    func success(_ object: JSONObject) -> Reply {
        Reply(response: .respond(body(object, status: 200)), answer: .success(status: 200))
    }

    /// An OAuth error (RFC 6749 §5.2) as the dialect sends it.
    /// - Parameters:
    ///   - code: The `error` code.
    ///   - description: `error_description`.
    ///   - status: The standard status; GitHub sends 200 and Google its own for polling codes.
    ///   - extra: More fields (GitHub's `interval` with `slow_down`).
    ///   - headers: More headers (`WWW-Authenticate` with `invalid_client`).
    func oauthError(
        _ code: OAuthError.Code,
        _ description: String,
        status: Int = 400,
        extra: JSONObject = [:],
        headers: [HTTPHeader] = []
    ) -> Reply {
        var object = extra
        object["error"] = .string(code.rawValue)
        object["error_description"] = .string(description)
        let sent = dialectStatus(for: code, standard: status)
        var response = body(object, status: sent)
        response.headers.append(contentsOf: headers)
        return Reply(response: .respond(response), answer: .oauthError(code, status: sent))
    }

    /// An OAuth error with the standard description of its code.
    func oauthError(_ code: OAuthError.Code, status: Int = 400, extra: JSONObject = [:]) -> Reply {
        oauthError(code, Self.standardDescription(of: code), status: status, extra: extra)
    }

    /// A plain text answer that is not an OAuth message (404, 405, a scripted 503).
    static func plain(status: Int, _ text: String, headers: [HTTPHeader] = []) -> Reply {
        let response = HTTPResponse(
            status: status,
            headers: [HTTPHeader("Content-Type", "text/plain; charset=utf-8")] + headers,
            body: Data((text + "\n").utf8)
        )
        return Reply(response: .respond(response), answer: .httpError(status: status))
    }

    /// `object` as the mock server sends it: the core's one writer (`JSONWriter`), compact, keys sorted, `/`
    /// left unescaped, every unsafe character escaped. Stable bytes make exact wire assertions possible.
    static func jsonData(_ object: JSONObject) -> Data {
        Data(JSONWriter.text(.object(object)).utf8)
    }

    /// A JSON answer outside OAuth's dialects (userinfo).
    static func json(_ object: JSONObject, status: Int = 200, headers: [HTTPHeader] = []) -> Reply {
        let response = HTTPResponse(status: status, headers: jsonHeaders + headers, body: Self.jsonData(object))
        let answer: MockAuthorizationServer.RecordedRequest.Answer =
            (200..<300).contains(status) ? .success(status: status) : .httpError(status: status)
        return Reply(response: .respond(response), answer: answer)
    }

    /// An HTML page.
    static func html(status: Int, _ page: String) -> Reply {
        let response = HTTPResponse(
            status: status,
            headers: [
                HTTPHeader("Content-Type", "text/html; charset=utf-8"),
                HTTPHeader("Cache-Control", "no-store"),
                HTTPHeader(
                    "Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'"
                ),
            ],
            body: Data(page.utf8)
        )
        let answer: MockAuthorizationServer.RecordedRequest.Answer =
            (200..<300).contains(status) ? .success(status: status) : .httpError(status: status)
        return Reply(response: .respond(response), answer: answer)
    }

    /// The answer a scripted fault stands for, or nil for the faults that only change the normal answer
    /// (``MockAuthorizationServer/Fault/delay(_:)``, ``MockAuthorizationServer/Fault/slowDown``).
    func reply(for fault: MockAuthorizationServer.Fault) -> Reply? {
        switch fault {
        case .delay, .slowDown, .echoingCredentials:
            // `.echoingCredentials` needs the request: MockServerState.effect(of:_:_:) builds it.
            return nil
        case .oauthError(let code, let status):
            return oauthError(code, status: status)
        case .httpError(let status, let retryAfter):
            let headers = retryAfter.map { [HTTPHeader("Retry-After", String($0))] } ?? []
            return Self.plain(status: status, Self.reasonPhrase(status), headers: headers)
        case .dropConnection:
            return Reply(response: .dropConnection, answer: .droppedConnection)
        case .malformedJSON:
            let response = HTTPResponse(
                status: 200, headers: Self.jsonHeaders, body: Data(#"{"access_token": "unterminated"#.utf8)
            )
            return Reply(response: .respond(response), answer: .malformedBody)
        case .oversizedBody(let bytes):
            let size = max(bytes, 32)
            var body = Data(#"{"padding":""#.utf8)
            body.append(Data(repeating: UInt8(ascii: "x"), count: size - body.count - 2))
            body.append(Data(#""}"#.utf8))
            let response = HTTPResponse(status: 200, headers: Self.jsonHeaders, body: body)
            return Reply(response: .respond(response), answer: .oversizedBody(bytes: body.count))
        }
    }

    private func body(_ object: JSONObject, status: Int) -> HTTPResponse {
        guard writesForm else {
            return HTTPResponse(status: status, headers: Self.jsonHeaders, body: Self.jsonData(object))
        }
        let pairs = object.keys.sorted().map { ($0, object[$0]?.stringValue ?? "") }
        return HTTPResponse(status: status, headers: Self.formHeaders, body: Data(FormEncoding.encode(pairs).utf8))
    }

    private func dialectStatus(for code: OAuthError.Code, standard: Int) -> Int {
        switch dialect {
        case .github:
            // GitHub answers OAuth errors with 200 and the error in the body.
            return 200
        case .google:
            // Google's documented statuses for the polling errors.
            if code == .authorizationPending { return 428 }
            if code == .slowDown || code == .accessDenied { return 403 }
            return standard
        case .standard, .microsoft:
            return standard
        }
    }

    static func standardDescription(of code: OAuthError.Code) -> String {
        switch code {
        case .authorizationPending: return "The user has not yet approved the request."
        case .slowDown: return "Polling too often; wait 5 seconds more between polls."
        case .accessDenied: return "The user denied the request."
        case .expiredToken: return "The device code has expired."
        case .invalidGrant: return "The grant is invalid, expired, revoked or was issued to another client."
        case .invalidClient: return "Client authentication failed."
        case .invalidScope: return "The requested scope is unknown."
        case .invalidTarget: return "The requested resource is not valid."
        case .unsupportedGrantType: return "The grant type is not supported."
        case .invalidToken: return "The access token is invalid, expired or revoked."
        default: return "The request is invalid."
        }
    }

    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 408: return "Request Timeout"
        case 413: return "Content Too Large"
        case 414: return "URI Too Long"
        case 429: return "Too Many Requests"
        case 431: return "Request Header Fields Too Large"
        case 500: return "Internal Server Error"
        case 501: return "Not Implemented"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        default: return (200..<300).contains(status) ? "OK" : "Error"
        }
    }
}
