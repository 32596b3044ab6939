import DeviceLogin
import Foundation
import Testing

@testable import DeviceLoginTesting

@Suite("MockAuthorizationServer: tokens, refresh, revocation, userinfo")
struct MockAuthorizationServerTokenTests {
    typealias Configuration = MockAuthorizationServer.Configuration

    let clock = ManualClock()
    static let signInDate = Date(timeIntervalSince1970: 1_700_000_000)

    func makeWire(_ configuration: Configuration = .init()) -> Wire {
        Wire(configuration, clock: clock, now: { Self.signInDate })
    }

    // MARK: - The token response

    @Test("the token response carries a random access token, a refresh token, the scope and an ID token")
    func tokenResponse() async throws {
        let wire = makeWire()
        let authorization = try await wire.authorize(scopes: ["openid", "offline_access"])
        wire.server.approve(deviceCode: authorization.deviceCode)
        let response = try await wire.poll(authorization.deviceCode)
        #expect(response.status == 200)
        #expect(response.header("Cache-Control") == "no-store")
        let token = try token(from: response)
        #expect(token.accessToken.count == 43)
        #expect(token.tokenType == "Bearer")
        #expect(token.expiresIn == 3600)
        #expect(token.scope == "openid offline_access")
        let refreshToken = try #require(token.refreshToken)
        #expect(refreshToken != token.accessToken)
        #expect(wire.server.isValid(refreshToken: refreshToken))
        let idToken = try #require(token.idToken)
        #expect(
            text(response) == """
                {"access_token":"\(token.accessToken)","expires_in":3600,"id_token":"\(idToken)",\
                "refresh_token":"\(refreshToken)","scope":"openid offline_access","token_type":"Bearer"}
                """)
    }

    @Test("by default the ID token is an RS256 JWS whose key the key set serves, naming its kid")
    func idTokenSignedWithTheServersKey() async throws {
        let wire = makeWire()
        let idToken = try #require(try await wire.signIn().idToken)
        let parts = idToken.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        try #require(parts.count == 3)
        let keys = try JSONWebKeySet(data: try await wire.get("/jwks.json").body)
        let key = try #require(keys.keys.first)
        #expect(keys.keys.count == 1)
        #expect(key.algorithm == "RS256" && key.use == "sig" && key.keyType == "RSA")
        let header = try decodePart(parts[0])
        #expect(header == ["alg": .string("RS256"), "typ": .string("JWT"), "kid": .string(key.keyID ?? "")])
        #expect(try decodePart(parts[1])["sub"] == .string("user-1234"))
        let signature = try #require(Data(base64Encoded: base64(parts[2])))
        let signed = Array("\(parts[0]).\(parts[1])".utf8)
        #expect(try SignatureAlgorithm.rs256.verify([UInt8](signature), over: signed, with: key))
        #expect(wire.server.requests(to: .jwks).count == 1)
        #expect(wire.server.signingKeySet == keys)
    }

    @Test("keys rotate: the new key signs, and the key set drops the old one unless asked to keep it")
    func signingKeyRotation() async throws {
        let wire = makeWire(.init(idTokenSigning: .signed(.es256)))
        let first = try #require(wire.server.signingKeySet.keys.first?.keyID)
        let second = try wire.server.rotateSigningKey()
        #expect(second != first)
        #expect(wire.server.signingKeySet.keys.map(\.keyID) == [second])
        let third = try wire.server.rotateSigningKey(keepingPrevious: true)
        #expect(wire.server.signingKeySet.keys.map(\.keyID) == [second, third])
        let idToken = try #require(try await wire.signIn().idToken)
        let header = try decodePart(String(try #require(idToken.split(separator: ".").first)))
        #expect(header["kid"] == .string(third) && header["alg"] == .string("ES256"))
        #expect(throws: CryptoError.self) { try makeWire(.init(idTokenSigning: .unsigned)).server.rotateSigningKey() }
    }

    @Test("every algorithm signs, and discovery lists it", arguments: SignatureAlgorithm.all)
    func everyAlgorithmSigns(algorithm: SignatureAlgorithm) async throws {
        let wire = makeWire(.init(idTokenSigning: .signed(algorithm)))
        let idToken = try #require(try await wire.signIn().idToken)
        let parts = idToken.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let key = try #require(wire.server.signingKeySet.keys.first)
        let signature = try #require(Data(base64Encoded: base64(parts[2])))
        #expect(try algorithm.verify([UInt8](signature), over: Array("\(parts[0]).\(parts[1])".utf8), with: key))
        #expect(wire.server.metadata.idTokenSigningAlgorithms == [algorithm.name])
        let listing = makeWire(.init(idTokenSigning: .signed(algorithm), advertisedSigningAlgorithms: ["RS256"]))
        #expect(listing.server.metadata.idTokenSigningAlgorithms == ["RS256"])
    }

    @Test("signIDToken signs what it is given with the current key")
    func signsGivenClaims() throws {
        let wire = makeWire(.init(idTokenSigning: .signed(.edDSA)))
        let token = try wire.server.signIDToken(["iss": .string("https://elsewhere")], header: ["kid": .string("k")])
        let parts = token.split(separator: ".").map(String.init)
        #expect(try decodePart(parts[0]) == ["alg": .string("EdDSA"), "typ": .string("JWT"), "kid": .string("k")])
        #expect(try decodePart(parts[1]) == ["iss": .string("https://elsewhere")])
        #expect(throws: CryptoError.self) { try makeWire(.init(idTokenSigning: .unsigned)).server.signIDToken([:]) }
    }

    @Test("an HS256 ID token is a JWT with iss, sub, aud, iat, exp, name and email")
    func idTokenClaims() async throws {
        let wire = makeWire(.init(idTokenSigning: .hs256(key: MockAuthorizationServer.IDTokenSigning.defaultKey)))
        let idToken = try #require(try await wire.signIn().idToken)
        let parts = idToken.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        try #require(parts.count == 3)
        #expect(try decodePart(parts[0]) == ["alg": .string("HS256"), "typ": .string("JWT")])
        #expect(
            try decodePart(parts[1]) == [
                "iss": .string("https://auth.example.test"), "sub": .string("user-1234"), "aud": .string("test-client"),
                "iat": .number(1_700_000_000), "exp": .number(1_700_003_600), "name": .string("Ada Lovelace"),
                "email": .string("ada@example.test"),
            ])
        let signature = try SHA256Digest.hmac(
            key: Array(MockAuthorizationServer.IDTokenSigning.defaultKey.utf8),
            message: Array("\(parts[0]).\(parts[1])".utf8)
        )
        #expect(parts[2] == Base64URL.encode(signature))
    }

    @Test("an unsigned ID token has alg none and an empty signature; none is issued without openid")
    func unsignedAndAbsentIDTokens() async throws {
        let unsigned = makeWire(.init(idTokenSigning: .unsigned))
        let idToken = try #require(try await unsigned.signIn().idToken)
        #expect(idToken.hasSuffix("."))
        let header = try #require(idToken.split(separator: ".").first)
        #expect(try decodePart(String(header))["alg"] == .string("none"))
        let metadata = unsigned.server.metadata
        #expect(metadata.additionalFields["id_token_signing_alg_values_supported"] == .array([.string("none")]))

        let plain = try await makeWire().signIn(scopes: ["offline_access"])
        #expect(plain.idToken == nil)
        #expect(plain.scope == "offline_access")
    }

    @Test("a server that issues no refresh tokens leaves them out")
    func noRefreshTokens() async throws {
        let token = try await makeWire(.init(issuesRefreshTokens: false)).signIn()
        #expect(token.refreshToken == nil)
    }

    @Test("grant types other than device code and refresh are refused")
    func grantTypes() async throws {
        let wire = makeWire()
        #expect(errorCode(try await wire.post("/token", [("grant_type", "password")])) == .unsupportedGrantType)
        #expect(errorCode(try await wire.post("/token", [])) == .invalidRequest)
        let missingCode = try await wire.post("/token", [("grant_type", DeviceAccessTokenRequest.grantType)])
        #expect(errorCode(missingCode) == .invalidRequest)
    }

    // MARK: - Refresh (RFC 6749 §6)

    @Test("without rotation a refresh issues a new access token and the refresh token stays valid")
    func refreshWithoutRotation() async throws {
        let wire = makeWire()
        let first = try await wire.signIn()
        let refreshToken = try #require(first.refreshToken)
        let refreshed = try token(from: try await wire.refresh(refreshToken))
        #expect(refreshed.accessToken != first.accessToken)
        #expect(refreshed.refreshToken == nil)
        #expect(refreshed.idToken != nil)
        #expect(wire.server.isValid(accessToken: first.accessToken))
        #expect(try await wire.refresh(refreshToken).status == 200)
        #expect(wire.server.refreshRequestCount == 2)
    }

    @Test("with rotation the old refresh token answers invalid_grant and the new one works")
    func refreshWithRotation() async throws {
        let wire = makeWire(.init(rotatesRefreshTokens: true))
        let original = try #require(try await wire.signIn().refreshToken)
        let rotated = try #require(try token(from: try await wire.refresh(original)).refreshToken)
        #expect(rotated != original)
        #expect(wire.server.isValid(refreshToken: original) == false)
        let replay = try await wire.refresh(original)
        #expect(replay.status == 400)
        #expect(errorCode(replay) == .invalidGrant)
        #expect(try await wire.refresh(rotated).status == 200)
        #expect(wire.server.refreshRequestCount == 3)
    }

    @Test("a refresh may narrow the scope and the resources, never widen them")
    func refreshScopeAndResources() async throws {
        let wire = makeWire()
        let authorization = try await wire.authorize(
            scopes: ["openid", "offline_access"], resources: ["https://api.example.test/"]
        )
        wire.server.approve(deviceCode: authorization.deviceCode)
        let refreshToken = try #require(try await wire.pollToken(authorization.deviceCode).refreshToken)

        let narrowed = try token(from: try await wire.refresh(refreshToken, scopes: ["offline_access"]))
        #expect(narrowed.scope == "offline_access")
        #expect(narrowed.idToken == nil)
        #expect(errorCode(try await wire.refresh(refreshToken, scopes: ["openid", "email"])) == .invalidScope)
        #expect(try await wire.refresh(refreshToken, resources: ["https://api.example.test/"]).status == 200)
        #expect(errorCode(try await wire.refresh(refreshToken, resources: ["https://other.test/"])) == .invalidTarget)
    }

    @Test("refresh faults: invalid_grant and a passing 503, by refresh request number")
    func refreshFaults() async throws {
        let wire = makeWire(
            .init(refreshFaults: [
                1: .httpError(status: 503, retryAfter: 5), 3: .oauthError(.invalidGrant), 4: .dropConnection,
            ]))
        let refreshToken = try #require(try await wire.signIn().refreshToken)
        let outage = try await wire.refresh(refreshToken)
        #expect(outage.status == 503)
        #expect(outage.retryAfterSeconds == 5)
        #expect(try await wire.refresh(refreshToken).status == 200)
        #expect(errorCode(try await wire.refresh(refreshToken)) == .invalidGrant)
        let request = wire.client.formRequest(
            to: try wire.url("/token"), parameters: RefreshTokenRequest(refreshToken: refreshToken).formParameters
        )
        #expect(await wire.server.handle(request) == .dropConnection)
        #expect(wire.server.refreshRequestCount == 4)
        #expect(wire.server.requests(to: .token).compactMap(\.grantType).filter { $0 == "refresh_token" }.count == 4)
    }

    @Test("a refresh token works only for the client it was issued to")
    func refreshBelongsToItsClient() async throws {
        var wire = makeWire(.init(clients: [.init(id: "test-client"), .init(id: "intruder")]))
        let refreshToken = try #require(try await wire.signIn().refreshToken)
        wire.client = ClientConfiguration(clientID: "intruder")
        #expect(errorCode(try await wire.refresh(refreshToken)) == .invalidGrant)
    }

    // MARK: - Revocation (RFC 7009)

    @Test("revoking an unknown token answers 200 and changes nothing")
    func revokeUnknown() async throws {
        let wire = makeWire()
        let response = try await wire.revoke("never-issued", hint: .accessToken)
        #expect(response.status == 200)
        #expect(response.body.isEmpty)
        #expect(wire.server.revocations.map(\.kind) == [.unknown])
        #expect(wire.server.revocations.first?.tokenTypeHint == "access_token")
    }

    @Test("revoking an access token ends only that token")
    func revokeAccessToken() async throws {
        let wire = makeWire()
        let token = try await wire.signIn()
        #expect(try await wire.revoke(token.accessToken).status == 200)
        #expect(wire.server.isValid(accessToken: token.accessToken) == false)
        #expect(wire.server.isValid(refreshToken: try #require(token.refreshToken)))
        #expect(wire.server.revocations.map(\.kind) == [.accessToken])
    }

    @Test("revoking a refresh token ends every access token of its grant")
    func revokeRefreshTokenCascades() async throws {
        let wire = makeWire()
        let first = try await wire.signIn()
        let refreshToken = try #require(first.refreshToken)
        let second = try token(from: try await wire.refresh(refreshToken))
        let unrelated = try await wire.signIn()

        #expect(try await wire.revoke(refreshToken, hint: .refreshToken).status == 200)
        #expect(wire.server.isValid(accessToken: first.accessToken) == false)
        #expect(wire.server.isValid(accessToken: second.accessToken) == false)
        #expect(wire.server.isValid(accessToken: unrelated.accessToken))
        #expect(errorCode(try await wire.refresh(refreshToken)) == .invalidGrant)
        #expect(try await wire.userinfo(second.accessToken).status == 401)
        let revocation = try #require(wire.server.revocations.first)
        #expect(revocation.kind == .refreshToken)
        #expect(revocation.token == refreshToken)
    }

    @Test("another client cannot revoke a token")
    func revokeOtherClientsToken() async throws {
        var wire = makeWire(.init(clients: [.init(id: "test-client"), .init(id: "intruder")]))
        let token = try await wire.signIn()
        wire.client = ClientConfiguration(clientID: "intruder")
        #expect(try await wire.revoke(token.accessToken).status == 200)
        #expect(wire.server.isValid(accessToken: token.accessToken))
        #expect(wire.server.revocations.map(\.kind) == [.unknown])
    }

    // MARK: - Userinfo (OpenID Connect Core §5.3, RFC 6750 §3)

    @Test("userinfo answers the user's claims for a valid bearer token")
    func userinfo() async throws {
        let wire = makeWire()
        let token = try await wire.signIn()
        let response = try await wire.userinfo(token.accessToken)
        #expect(response.status == 200)
        #expect(text(response) == #"{"email":"ada@example.test","name":"Ada Lovelace","sub":"user-1234"}"#)
    }

    @Test("userinfo refuses a missing, unknown, expired or revoked token with 401")
    func userinfoRefusals() async throws {
        let wire = makeWire()
        let missing = try await wire.userinfo(nil)
        #expect(missing.status == 401)
        #expect(missing.header("WWW-Authenticate") == "Bearer")

        let unknown = try await wire.userinfo("not-a-token")
        #expect(unknown.status == 401)
        #expect(unknown.header("WWW-Authenticate") == #"Bearer error="invalid_token""#)

        let token = try await wire.signIn()
        clock.advance(by: .seconds(3599))
        #expect(try await wire.userinfo(token.accessToken).status == 200)
        clock.advance(by: .seconds(1))
        let expired = try await wire.userinfo(token.accessToken)
        #expect(expired.status == 401)
        #expect(expired.header("WWW-Authenticate") == #"Bearer error="invalid_token""#)
        #expect(wire.server.requests(to: .userinfo).last?.answer == .oauthError(.invalidToken, status: 401))

        let fresh = try await wire.signIn()
        _ = try await wire.revoke(fresh.accessToken)
        let revoked = try await wire.userinfo(fresh.accessToken)
        #expect(revoked.header("WWW-Authenticate") == #"Bearer error="invalid_token""#)
    }

    /// base64url without padding as the padded standard alphabet `Data(base64Encoded:)` reads.
    private func base64(_ part: String) -> String {
        var base64 = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return base64
    }

    private func decodePart(_ part: String) throws -> JSONObject {
        let data = try #require(Data(base64Encoded: base64(part)))
        return try JSONDecoder().decode(JSONObject.self, from: data)
    }
}
