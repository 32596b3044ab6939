import DeviceLoginTesting
import Foundation

@testable import DeviceLogin

/// An ``IDTokenVerifier`` against a mock server that signs with one algorithm, on a manual clock, with helpers to
/// make and spoil tokens.
struct VerifierHarness {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let clientID = MockAuthorizationServer.Configuration.defaultClientID

    let clock = ManualClock()
    let server: MockAuthorizationServer
    let keys: JSONWebKeySetCache
    let verifier: IDTokenVerifier
    let expected: IDTokenVerifier.Expectations

    init(_ algorithm: SignatureAlgorithm = .rs256, advertised: [String]? = nil) throws {
        server = MockAuthorizationServer(
            configuration: .init(idTokenSigning: .signed(algorithm), advertisedSigningAlgorithms: advertised),
            clock: clock, now: { Self.now }
        )
        keys = JSONWebKeySetCache(clock: clock)
        let endpoints = try server.endpoints()
        verifier = IDTokenVerifier(
            jwksURI: endpoints.jwks, keys: keys,
            fetcher: JSONWebKeySetFetcher(transport: InProcessTransport(server: server))
        )
        expected = IDTokenVerifier.Expectations(
            issuer: server.issuer, clientID: Self.clientID, algorithms: endpoints.idTokenSigningAlgorithms
        )
    }

    /// The claims of a good token issued now, living an hour, with `changes` applied (nil removes a claim).
    func claims(_ changes: [String: JSONValue?] = [:]) -> JSONObject {
        var claims: JSONObject = [
            "iss": .string(server.issuer), "sub": .string("user-1"), "aud": .string(Self.clientID),
            "iat": .number(Self.now.timeIntervalSince1970), "exp": .number(Self.now.timeIntervalSince1970 + 3600),
            "email": .string("ada@example.test"),
        ]
        for (name, value) in changes { claims[name] = value }
        return claims
    }

    /// A token signed with the server's key.
    func token(_ changes: [String: JSONValue?] = [:], header: JSONObject = [:]) throws -> String {
        try server.signIDToken(claims(changes), header: header)
    }

    /// The verdict on `token` now (or `at`).
    func verify(_ token: String, at time: Date = now, fetching: Bool = true) async -> IDTokenVerification {
        await verifier.verify(token, expecting: expected, at: time, fetchingKeys: fetching)
    }

    /// How many times the key set was fetched.
    var fetches: Int { server.requests(to: .jwks).count }

    /// `token` with its header or payload replaced by `change` applied to it, the signature kept.
    static func spoiled(_ token: String, header: Bool = false, _ change: (inout JSONObject) -> Void) throws -> String {
        var parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let index = header ? 0 : 1
        guard let bytes = Base64URL.decode(parts[index], maximumBytes: 65536) else { return token }
        var object = try JSONValue.decodeObject(from: Data(bytes))
        change(&object)
        parts[index] = Base64URL.encode(try JSONValue.encode(object))
        return parts.joined(separator: ".")
    }

    /// Signs in to `server`, approving at once, and returns the ID token it issued.
    static func signIn(to server: MockAuthorizationServer) async throws -> String {
        guard let idToken = try await signInResponse(to: server).idToken else {
            throw CryptoError(.operationFailed, "no ID token")
        }
        return idToken
    }

    /// Signs in to `server` with `openid offline_access`, approving at once, and returns its token response.
    static func signInResponse(to server: MockAuthorizationServer) async throws -> TokenResponse {
        let transport = InProcessTransport(server: server)
        let client = ClientConfiguration(clientID: clientID)
        let endpoints = try server.endpoints()
        let device = try await transport.send(
            client.formRequest(
                to: try endpoints.requireDeviceAuthorization(),
                parameters: DeviceAuthorizationRequest(scopes: ["openid", "offline_access"]).formParameters
            ))
        guard case .success(let object) = ServerReply(device) else { throw CryptoError(.operationFailed, "no code") }
        let authorization = try DeviceAuthorizationResponse(jsonObject: object)
        _ = server.approve(deviceCode: authorization.deviceCode)
        let reply = try await transport.send(
            client.formRequest(
                to: endpoints.token,
                parameters: DeviceAccessTokenRequest(deviceCode: authorization.deviceCode).formParameters
            ))
        guard case .success(let token) = ServerReply(reply) else { throw CryptoError(.operationFailed, "no token") }
        return try TokenResponse(jsonObject: token)
    }
}
