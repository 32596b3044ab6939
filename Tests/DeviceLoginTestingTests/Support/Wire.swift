import DeviceLogin
import DeviceLoginTesting
import Foundation
import Testing

/// Builds requests the way the library's client does and hands them straight to a mock server's model.
struct Wire {
    let server: MockAuthorizationServer
    var client = ClientConfiguration(clientID: MockAuthorizationServer.Configuration.defaultClientID)

    init(server: MockAuthorizationServer) {
        self.server = server
    }

    /// A new server on a manual clock, with a fixed wall clock unless told otherwise.
    init(
        _ configuration: MockAuthorizationServer.Configuration = .init(),
        clock: ManualClock,
        now: @escaping @Sendable () -> Date = { Date(timeIntervalSince1970: 1_700_000_000) }
    ) {
        server = MockAuthorizationServer(configuration: configuration, clock: clock, now: now)
    }

    /// The absolute URL of a path under the issuer.
    func url(_ path: String) throws -> URL {
        try #require(URL(string: server.issuer + path))
    }

    /// Sends a request and requires an answer (not a dropped connection).
    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try #require(await server.handle(request).response)
    }

    func get(_ path: String, headers: [HTTPHeader] = []) async throws -> HTTPResponse {
        try await send(HTTPRequest(method: .get, url: url(path), headers: headers))
    }

    /// A form POST with this client's authentication.
    func post(_ path: String, _ parameters: [(String, String)]) async throws -> HTTPResponse {
        try await send(client.formRequest(to: url(path), parameters: parameters))
    }

    /// Requests a device code and reads the answer.
    func authorize(scopes: [String] = [], resources: [String] = []) async throws -> DeviceAuthorizationResponse {
        let request = DeviceAuthorizationRequest(scopes: scopes, resources: resources)
        let response = try await post("/device/code", request.formParameters)
        guard case .success(let object) = ServerReply(response) else {
            throw UnexpectedAnswer("the device authorization failed: \(response.status) \(text(response))")
        }
        return try DeviceAuthorizationResponse(jsonObject: object)
    }

    /// Polls once with a device code.
    func poll(_ deviceCode: String) async throws -> HTTPResponse {
        try await post("/token", DeviceAccessTokenRequest(deviceCode: deviceCode).formParameters)
    }

    /// Polls once and returns the OAuth error code, or nil for a token.
    func pollError(_ deviceCode: String) async throws -> OAuthError.Code? {
        let reply = ServerReply(try await poll(deviceCode))
        switch reply {
        case .oauthError(let error): return error.code
        case .success: return nil
        default:
            throw UnexpectedAnswer("unexpected poll answer \(reply)")
        }
    }

    /// Polls once and requires a token.
    func pollToken(_ deviceCode: String) async throws -> TokenResponse {
        try token(from: await poll(deviceCode))
    }

    /// Refreshes once.
    func refresh(_ refreshToken: String, scopes: [String]? = nil, resources: [String] = []) async throws
        -> HTTPResponse
    {
        let request = RefreshTokenRequest(refreshToken: refreshToken, scopes: scopes, resources: resources)
        return try await post("/token", request.formParameters)
    }

    /// Revokes a token.
    func revoke(_ token: String, hint: RevocationRequest.TokenTypeHint? = nil) async throws -> HTTPResponse {
        try await post("/revoke", RevocationRequest(token: token, tokenTypeHint: hint).formParameters)
    }

    /// Calls userinfo with a bearer token.
    func userinfo(_ accessToken: String?) async throws -> HTTPResponse {
        try await get("/userinfo", headers: accessToken.map { [HTTPHeader("Authorization", "Bearer \($0)")] } ?? [])
    }

    /// A device code approved at once, and its token.
    func signIn(scopes: [String] = ["openid", "offline_access"]) async throws -> TokenResponse {
        let authorization = try await authorize(scopes: scopes)
        server.approve(deviceCode: authorization.deviceCode)
        return try await pollToken(authorization.deviceCode)
    }
}

/// The body as text.
func text(_ response: HTTPResponse) -> String {
    String(decoding: response.body, as: UTF8.self)
}

/// The OAuth error code of a response, if it carries one.
func errorCode(_ response: HTTPResponse) -> OAuthError.Code? {
    if case .oauthError(let error) = ServerReply(response) { return error.code }
    return nil
}

/// Reads a token response, or records why not.
func token(from response: HTTPResponse) throws -> TokenResponse {
    guard case .success(let object) = ServerReply(response) else {
        throw UnexpectedAnswer("expected a token, got \(response.status) \(text(response))")
    }
    return try TokenResponse(jsonObject: object)
}

/// Decodes a JSON object body.
func jsonObject(_ response: HTTPResponse) throws -> JSONObject {
    try JSONDecoder().decode(JSONObject.self, from: response.body)
}

/// A test failure: the server answered something else than the test expected.
struct UnexpectedAnswer: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
