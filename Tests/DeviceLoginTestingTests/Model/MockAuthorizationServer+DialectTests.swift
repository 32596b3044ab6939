import DeviceLogin
import DeviceLoginTesting
import Foundation
import Testing

@Suite("MockAuthorizationServer: each dialect's exact wire output")
struct MockAuthorizationServerDialectTests {
    typealias Dialect = MockAuthorizationServer.Dialect

    let clock = ManualClock()

    func makeWire(_ dialect: Dialect, supportedScopes: [String]? = nil) -> Wire {
        Wire(.init(dialect: dialect, supportedScopes: supportedScopes), clock: clock)
    }

    /// A form POST without `Accept: application/json`, as a client that does not ask for JSON sends it.
    func postWithoutAccept(_ wire: Wire, _ path: String, _ parameters: [(String, String)]) async throws
        -> HTTPResponse
    {
        var request = wire.client.formRequest(to: try wire.url(path), parameters: parameters)
        request.headers.removeAll { $0.name == "Accept" }
        return try await wire.send(request)
    }

    @Test("standard: JSON errors with HTTP 400, invalid_client with 401")
    func standardErrors() async throws {
        let wire = makeWire(.standard)
        let code = try await wire.authorize().deviceCode
        let pending = try await wire.poll(code)
        #expect(pending.status == 400)
        #expect(pending.header("Content-Type") == "application/json")
        #expect(
            text(pending) == """
                {"error":"authorization_pending","error_description":"The user has not yet approved the request."}
                """)
        var stranger = wire
        stranger.client = ClientConfiguration(clientID: "stranger")
        let refused = try await stranger.poll(code)
        #expect(refused.status == 401)
        #expect(text(refused) == #"{"error":"invalid_client","error_description":"Unknown client."}"#)
    }

    @Test("GitHub: form-encoded answers unless JSON is asked for")
    func githubDeviceAuthorization() async throws {
        let wire = makeWire(.github)
        let response = try await postWithoutAccept(wire, "/device/code", [])
        let issued = try #require(wire.server.lastAuthorization)
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "application/x-www-form-urlencoded; charset=utf-8")
        #expect(
            text(response) == "device_code=\(issued.deviceCode)&expires_in=600&interval=5"
                + "&user_code=\(issued.userCode)&verification_uri=https%3A%2F%2Fauth.example.test%2Fdevice")

        let json = try await wire.post("/device/code", [])
        let second = try #require(wire.server.lastAuthorization)
        #expect(json.header("Content-Type") == "application/json")
        #expect(
            text(json) == """
                {"device_code":"\(second.deviceCode)","expires_in":600,"interval":5,"user_code":"\(second.userCode)",\
                "verification_uri":"https://auth.example.test/device"}
                """)
    }

    @Test("GitHub: OAuth errors come with HTTP 200, and slow_down names the new interval")
    func githubErrors() async throws {
        let wire = makeWire(.github)
        let code = try await wire.authorize().deviceCode
        clock.advance(by: .seconds(5))
        let pending = try await postWithoutAccept(
            wire, "/token", DeviceAccessTokenRequest(deviceCode: code).formParameters
        )
        #expect(pending.status == 200)
        #expect(
            text(pending)
                == "error=authorization_pending&error_description=The+user+has+not+yet+approved+the+request.")
        #expect(errorCode(pending) == .authorizationPending)

        clock.advance(by: .seconds(1))
        let slowDown = try await wire.poll(code)
        #expect(slowDown.status == 200)
        #expect(
            text(slowDown) == """
                {"error":"slow_down","error_description":"Polling too often; wait 5 seconds more between polls.",\
                "interval":10}
                """)
        guard case .oauthError(let error) = ServerReply(slowDown) else {
            throw UnexpectedAnswer("slow_down was not read as an OAuth error")
        }
        #expect(error.interval == 10)
    }

    @Test("GitHub: the token is form-encoded with a lower-case bearer type and no ID token")
    func githubToken() async throws {
        let wire = makeWire(.github)
        let authorization = try await wire.authorize(scopes: ["repo", "read:org", "openid"])
        wire.server.approve(deviceCode: authorization.deviceCode)
        let response = try await postWithoutAccept(
            wire, "/token", DeviceAccessTokenRequest(deviceCode: authorization.deviceCode).formParameters
        )
        let token = try token(from: response)
        let refreshToken = try #require(token.refreshToken)
        #expect(
            text(response) == "access_token=\(token.accessToken)&expires_in=3600&refresh_token=\(refreshToken)"
                + "&scope=repo+read%3Aorg+openid&token_type=bearer")
        #expect(token.isBearer)
        #expect(token.idToken == nil)
    }

    @Test("Google: verification_url, and its own statuses for the polling errors")
    func google() async throws {
        let wire = makeWire(.google)
        let response = try await wire.post("/device/code", [])
        let issued = try #require(wire.server.lastAuthorization)
        #expect(
            text(response) == """
                {"device_code":"\(issued.deviceCode)","expires_in":600,"interval":5,"user_code":"\(issued.userCode)",\
                "verification_url":"https://auth.example.test/device"}
                """)
        let parsed = try DeviceAuthorizationResponse(jsonObject: jsonObject(response))
        #expect(parsed.verificationURI == "https://auth.example.test/device")

        clock.advance(by: .seconds(5))
        let pending = try await wire.poll(issued.deviceCode)
        #expect(pending.status == 428)
        #expect(errorCode(pending) == .authorizationPending)
        clock.advance(by: .seconds(1))
        let slowDown = try await wire.poll(issued.deviceCode)
        #expect(slowDown.status == 403)
        #expect(errorCode(slowDown) == .slowDown)
        wire.server.deny(deviceCode: issued.deviceCode)
        clock.advance(by: .seconds(10))
        let denied = try await wire.poll(issued.deviceCode)
        #expect(denied.status == 403)
        #expect(errorCode(denied) == .accessDenied)
    }

    @Test("Microsoft: a message for the user, and numbers as strings")
    func microsoft() async throws {
        let wire = makeWire(.microsoft)
        let response = try await wire.post("/device/code", [])
        let issued = try #require(wire.server.lastAuthorization)
        #expect(
            text(response) == """
                {"device_code":"\(issued.deviceCode)","expires_in":"600","interval":"5",\
                "message":"To sign in, use a web browser to open the page https://auth.example.test/device and enter \
                the code \(issued.userCode) to authenticate.","user_code":"\(issued.userCode)",\
                "verification_uri":"https://auth.example.test/device"}
                """)
        let parsed = try DeviceAuthorizationResponse(jsonObject: jsonObject(response))
        #expect(parsed.expiresIn == 600)
        #expect(parsed.interval == 5)
        #expect(parsed.message?.contains(issued.userCode) == true)

        wire.server.approve(deviceCode: issued.deviceCode)
        let tokenResponse = try await wire.poll(issued.deviceCode)
        let object = try jsonObject(tokenResponse)
        #expect(object["expires_in"] == .string("3600"))
        #expect(object["ext_expires_in"] == .string("3600"))
        #expect(try token(from: tokenResponse).expiresIn == 3600)
    }

    @Test("the library reads every dialect's device authorization the same way", arguments: Dialect.allCases)
    func everyDialectParses(_ dialect: Dialect) async throws {
        let wire = makeWire(dialect)
        let authorization = try await wire.authorize()
        let issued = try #require(wire.server.lastAuthorization)
        #expect(authorization.deviceCode == issued.deviceCode)
        #expect(authorization.userCode == issued.userCode)
        #expect(authorization.verificationURI == "https://auth.example.test/device")
        #expect(authorization.expiresIn == 600)
        #expect(authorization.effectiveInterval == 5)
        #expect(
            authorization.verificationURIComplete
                == (dialect == .standard
                    ? "https://auth.example.test/device?user_code=\(issued.userCode)" : nil))
    }
}
