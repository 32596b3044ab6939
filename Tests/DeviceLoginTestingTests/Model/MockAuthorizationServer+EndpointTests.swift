import DeviceLogin
import DeviceLoginTesting
import Foundation
import Testing

@Suite("MockAuthorizationServer: discovery, device authorization, client authentication")
struct MockAuthorizationServerEndpointTests {
    typealias Configuration = MockAuthorizationServer.Configuration

    let clock = ManualClock()

    func makeWire(_ configuration: Configuration = .init()) -> Wire {
        Wire(configuration, clock: clock)
    }

    // MARK: - Discovery

    @Test("both well-known documents are served, byte for byte, with the issuer equal to the base URL")
    func discoveryDocuments() async throws {
        let wire = makeWire()
        let expected = """
            {"device_authorization_endpoint":"https://auth.example.test/device/code",\
            "grant_types_supported":["urn:ietf:params:oauth:grant-type:device_code","refresh_token"],\
            "id_token_signing_alg_values_supported":["RS256"],"issuer":"https://auth.example.test",\
            "jwks_uri":"https://auth.example.test/jwks.json","revocation_endpoint":"https://auth.example.test/revoke",\
            "scopes_supported":["openid","profile","email","offline_access"],"subject_types_supported":["public"],\
            "token_endpoint":"https://auth.example.test/token",\
            "token_endpoint_auth_methods_supported":["none","client_secret_basic","client_secret_post"],\
            "userinfo_endpoint":"https://auth.example.test/userinfo"}
            """
        for path in ["/.well-known/openid-configuration", "/.well-known/oauth-authorization-server"] {
            let response = try await wire.get(path)
            #expect(response.status == 200)
            #expect(response.mediaType == "application/json")
            #expect(text(response) == expected)
        }
        #expect(wire.server.requests.map(\.endpoint) == [.openIDConfiguration, .authorizationServerMetadata])
    }

    @Test("a path-style issuer is served at both RFC 8414 and OpenID Connect locations")
    func pathStyleIssuer() async throws {
        let wire = makeWire(.init(issuer: "https://auth.example.test/tenant/"))
        #expect(wire.server.issuer == "https://auth.example.test/tenant")
        let oidc = try await wire.send(
            HTTPRequest(
                method: .get,
                url: try #require(URL(string: "https://auth.example.test/tenant/.well-known/openid-configuration"))
            ))
        let rfc8414 = try await wire.send(
            HTTPRequest(
                method: .get,
                url: try #require(
                    URL(string: "https://auth.example.test/.well-known/oauth-authorization-server/tenant"))
            ))
        for response in [oidc, rfc8414] {
            let metadata = try AuthorizationServerMetadata(jsonObject: jsonObject(response))
            #expect(metadata.issuer == "https://auth.example.test/tenant")
            #expect(metadata.tokenEndpoint == "https://auth.example.test/tenant/token")
        }
        let endpoints = try wire.server.endpoints()
        #expect(endpoints.deviceAuthorization?.absoluteString == "https://auth.example.test/tenant/device/code")
        #expect(endpoints.isOpenIDProvider)
    }

    @Test("discovery can leave out the device endpoint, or be switched off")
    func discoveryOptions() async throws {
        let omitting = makeWire(.init(advertisesDeviceAuthorizationEndpoint: false))
        let object = try jsonObject(try await omitting.get("/.well-known/openid-configuration"))
        #expect(object["device_authorization_endpoint"] == nil)
        #expect(object["token_endpoint"] == .string("https://auth.example.test/token"))

        let silent = makeWire(.init(servesDiscovery: false))
        #expect(try await silent.get("/.well-known/openid-configuration").status == 404)
        #expect(try await silent.post("/.well-known/openid-configuration", []).status == 404)
        #expect(try await omitting.post("/.well-known/openid-configuration", []).status == 405)
    }

    @Test("unknown paths get 404, and OAuth endpoints refuse GET with 405")
    func routing() async throws {
        let wire = makeWire()
        #expect(try await wire.get("/nowhere").status == 404)
        let refused = try await wire.get("/token")
        #expect(refused.status == 405)
        #expect(refused.header("Allow") == "POST")
        #expect(wire.server.requests.map(\.endpoint) == [.unknown, .token])
    }

    // MARK: - Device authorization

    @Test("the device authorization response, byte for byte")
    func deviceAuthorizationWire() async throws {
        let wire = makeWire()
        let response = try await wire.post("/device/code", [("scope", "openid")])
        let issued = try #require(wire.server.lastAuthorization)
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "application/json")
        #expect(response.header("Cache-Control") == "no-store")
        #expect(
            text(response) == """
                {"device_code":"\(issued.deviceCode)","expires_in":600,"interval":5,"user_code":"\(issued.userCode)",\
                "verification_uri":"https://auth.example.test/device",\
                "verification_uri_complete":"https://auth.example.test/device?user_code=\(issued.userCode)"}
                """)
        #expect(issued.scopes == ["openid"])
        #expect(issued.clientID == Configuration.defaultClientID)
        #expect(issued.status == .pending)
        #expect(wire.server.requests.last?.deviceCode == issued.deviceCode)
    }

    @Test("user codes are eight letters of an unambiguous alphabet in two groups; device codes are 43 base64url")
    func codeShapes() async throws {
        let wire = makeWire()
        let alphabet = Set("BCDFGHJKLMNPQRSTVWXZ")
        let base64URL = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        var userCodes = Set<String>()
        for _ in 0..<50 {
            let authorization = try await wire.authorize()
            let parts = authorization.userCode.split(separator: "-")
            #expect(parts.count == 2 && parts.allSatisfy { $0.count == 4 && $0.allSatisfy(alphabet.contains) })
            #expect(authorization.deviceCode.count == 43 && authorization.deviceCode.allSatisfy(base64URL.contains))
            userCodes.insert(authorization.userCode)
        }
        #expect(userCodes.count == 50)
    }

    @Test("a seed makes codes the same on every run")
    func seededCodes() async throws {
        let first = try await makeWire(.init(seed: 42)).authorize()
        let second = try await makeWire(.init(seed: 42)).authorize()
        let third = try await makeWire(.init(seed: 43)).authorize()
        #expect(first.deviceCode == second.deviceCode && first.userCode == second.userCode)
        #expect(first.deviceCode != third.deviceCode)
    }

    @Test("scopes must be known; resources must be absolute URIs and are kept with the code")
    func scopesAndResources() async throws {
        let wire = makeWire()
        let unknownScope = try await wire.post("/device/code", [("scope", "openid admin")])
        #expect(errorCode(unknownScope) == .invalidScope)
        #expect(unknownScope.status == 400)

        let badResource = try await wire.post("/device/code", [("resource", "relative/path")])
        #expect(errorCode(badResource) == .invalidTarget)

        let resources = ["https://api.example.test/", "https://files.example.test/"]
        let authorization = try await wire.authorize(scopes: ["profile"], resources: resources)
        #expect(wire.server.authorization(deviceCode: authorization.deviceCode)?.resources == resources)

        let anything = makeWire(.init(supportedScopes: nil))
        #expect(try await anything.authorize(scopes: ["admin"]).deviceCode.isEmpty == false)
    }

    @Test("a repeated parameter or a body that is not a form is invalid_request")
    func malformedRequests() async throws {
        let wire = makeWire()
        let repeated = try await wire.post("/device/code", [("scope", "openid"), ("scope", "profile")])
        #expect(errorCode(repeated) == .invalidRequest)
        let json = try await wire.send(
            HTTPRequest(
                method: .post, url: try wire.url("/device/code"),
                headers: [HTTPHeader("Content-Type", "application/json")],
                body: Data(#"{"client_id":"test-client"}"#.utf8)
            ))
        #expect(errorCode(json) == .invalidRequest)
        #expect(wire.server.lastAuthorization == nil)
    }

    @Test("device authorization faults apply by request number")
    func deviceAuthorizationFaults() async throws {
        let wire = makeWire(.init(deviceAuthorizationFaults: [1: .httpError(status: 503, retryAfter: 3)]))
        let failed = try await wire.post("/device/code", [])
        #expect(failed.status == 503)
        #expect(failed.retryAfterSeconds == 3)
        #expect(try await wire.authorize().userCode.count == 9)
        #expect(wire.server.deviceAuthorizationRequestCount == 2)
    }

    // MARK: - Client authentication (RFC 6749 §2.3.1)

    @Test("each client must authenticate exactly as registered")
    func clientAuthentication() async throws {
        let configuration = Configuration(clients: [
            .init(id: "public-app"),
            .init(id: "basic-app", authentication: .clientSecretBasic(secret: "s3cret:&")),
            .init(id: "post-app", authentication: .clientSecretPost(secret: "p0st")),
        ])
        let wire = makeWire(configuration)
        let cases: [(ClientConfiguration, Bool)] = [
            (ClientConfiguration(clientID: "public-app"), true),
            (ClientConfiguration(clientID: "basic-app", authentication: .clientSecretBasic(secret: "s3cret:&")), true),
            (ClientConfiguration(clientID: "post-app", authentication: .clientSecretPost(secret: "p0st")), true),
            (ClientConfiguration(clientID: "basic-app", authentication: .clientSecretBasic(secret: "wrong")), false),
            (ClientConfiguration(clientID: "basic-app", authentication: .clientSecretPost(secret: "s3cret:&")), false),
            (ClientConfiguration(clientID: "post-app", authentication: .clientSecretPost(secret: "wrong")), false),
            (ClientConfiguration(clientID: "post-app"), false),
            (ClientConfiguration(clientID: "public-app", authentication: .clientSecretPost(secret: "x")), false),
            (ClientConfiguration(clientID: "stranger"), false),
        ]
        for (client, accepted) in cases {
            var attempt = wire
            attempt.client = client
            let response = try await attempt.post("/device/code", [])
            if accepted {
                #expect(response.status == 200, "\(client)")
            } else {
                #expect(response.status == 401, "\(client)")
                #expect(errorCode(response) == .invalidClient, "\(client)")
            }
        }
    }

    @Test("a failed HTTP Basic authentication answers with a Basic challenge")
    func basicChallenge() async throws {
        var wire = makeWire(.init(clients: [.init(id: "app", authentication: .clientSecretBasic(secret: "right"))]))
        wire.client = ClientConfiguration(clientID: "app", authentication: .clientSecretBasic(secret: "wrong"))
        let response = try await wire.post("/device/code", [])
        #expect(response.status == 401)
        #expect(response.header("WWW-Authenticate") == #"Basic realm="mock""#)
    }
}
