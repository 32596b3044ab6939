import DeviceLogin
import Foundation
import Testing

@testable import DeviceLoginTesting

/// The mock server's DPoP (RFC 9449): each check of a proof, the binding of codes and tokens to a key, nonces, the
/// resource endpoint, and a record that shows the checks without a token.
@Suite("MockAuthorizationServer: DPoP proofs verified, tokens bound to the key")
struct MockAuthorizationServerDPoPTests {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)
    let clock = ManualClock()

    /// A server, a client's key, and requests proven the way the library proves them — or not.
    struct Bench {
        let server: MockAuthorizationServer
        let key: ECP256PrivateKey
        let client = ClientConfiguration(clientID: MockAuthorizationServer.Configuration.defaultClientID)

        func url(_ path: String) throws -> URL { try #require(URL(string: server.issuer + path)) }

        /// A proof for `method` and `url`, with `change` applied to its claims, signed with `key` (default the
        /// bench's) under `header` (default the library's header for that key).
        func proof(
            _ method: String, _ url: URL, accessToken: String? = nil, nonce: String? = nil, iat: Date = now,
            key: ECP256PrivateKey? = nil, header: JSONObject? = nil, change: (inout JSONObject) -> Void = { _ in }
        ) throws -> String {
            let signer = key ?? self.key
            var claims = try DPoPProof(
                method: method, url: url, id: DPoPProof.newID(), issuedAt: iat, nonce: nonce, accessToken: accessToken
            ).claims
            change(&claims)
            return try signer.signingKey.compactJWS(
                header: header ?? DPoPProof.header(for: signer.publicKey), claims: claims)
        }

        /// A form POST to `path` with `proofs` as its DPoP headers.
        func post(_ path: String, _ parameters: [(String, String)], proofs: [String]) async throws -> HTTPResponse {
            var request = client.formRequest(to: try url(path), parameters: parameters)
            request.headers += proofs.map { HTTPHeader("DPoP", $0) }
            return try #require(await server.handle(request).response)
        }

        /// Requests a device code with a proof (made by `proof` when given).
        func authorize(proof: String? = nil) async throws -> HTTPResponse {
            let made = try proof ?? self.proof("POST", url("/device/code"))
            return try await post(
                "/device/code", DeviceAuthorizationRequest(scopes: ["offline_access"]).formParameters, proofs: [made])
        }

        /// Signs in with proofs throughout; returns the token response.
        func signIn() async throws -> TokenResponse {
            let device = try DeviceAuthorizationResponse(jsonObject: try Self.object(await authorize()))
            server.approve(deviceCode: device.deviceCode)
            let poll = try await post(
                "/token", DeviceAccessTokenRequest(deviceCode: device.deviceCode).formParameters,
                proofs: [proof("POST", url("/token"))])
            return try TokenResponse(jsonObject: try Self.object(poll))
        }

        /// A resource request with `Authorization: <scheme> <token>` and `proofs`.
        func get(_ path: String, token: String, scheme: String = "DPoP", proofs: [String]) async throws -> HTTPResponse
        {
            let request = HTTPRequest(
                method: .get, url: try url(path),
                headers: [HTTPHeader("Authorization", "\(scheme) \(token)")] + proofs.map { HTTPHeader("DPoP", $0) })
            return try #require(await server.handle(request).response)
        }

        static func object(_ response: HTTPResponse) throws -> JSONObject {
            guard case .success(let object) = ServerReply(response) else {
                throw UnexpectedAnswer("\(response.status) \(String(decoding: response.body, as: UTF8.self))")
            }
            return object
        }

        /// The OAuth error code of a response.
        static func error(_ response: HTTPResponse) -> OAuthError.Code? {
            guard case .oauthError(let error) = ServerReply(response) else { return nil }
            return error.code
        }

        /// The verdict the server recorded for its last request.
        var lastVerdict: MockAuthorizationServer.ProofCheck.Verdict? { server.requests.last?.dpop?.verdict }
    }

    func bench(
        clients: [MockAuthorizationServer.Client] = [.init(id: "test-client", requiresDPoP: true)],
        dpop: MockAuthorizationServer.DPoPSettings? = .init(),
        now: @escaping @Sendable () -> Date = { now }
    ) throws -> Bench {
        let configuration = MockAuthorizationServer.Configuration(
            clients: clients, defaultScript: .approveImmediately, dpop: dpop)
        return Bench(
            server: MockAuthorizationServer(configuration: configuration, clock: clock, now: now),
            key: try ECP256PrivateKey.generate())
    }

    @Test("a proven sign-in: token_type DPoP, the tokens bound to the key's thumbprint (cnf.jkt), every check passed")
    func boundSignIn() async throws {
        let bench = try bench()
        let token = try await bench.signIn()
        #expect(token.tokenType == "DPoP")
        let thumbprint = try bench.key.thumbprint()
        #expect(bench.server.binding(accessToken: token.accessToken) == thumbprint)
        #expect(bench.server.binding(refreshToken: try #require(token.refreshToken)) == thumbprint)
        let checks = bench.server.requests.compactMap(\.dpop)
        #expect(checks.count == 2)
        #expect(checks.allSatisfy { $0.isAccepted })
        #expect(
            checks.last?.passed == ["typ", "alg ES256", "jwk", "signature", "htm", "htu", "iat", "jti", "key binding"])
        #expect(checks.allSatisfy { $0.thumbprint == thumbprint })
    }

    @Test("a client registered for DPoP is refused without a proof; another client is not, and gets Bearer tokens")
    func requiredProof() async throws {
        let bench = try bench(clients: [.init(id: "test-client", requiresDPoP: true), .init(id: "plain")])
        let bare = try await bench.post("/device/code", [("scope", "offline_access")], proofs: [])
        #expect(Bench.error(bare) == .invalidDPoPProof)
        #expect(bench.lastVerdict == .refused("no DPoP proof"))
        let request = ClientConfiguration(clientID: "plain").formRequest(
            to: try bench.url("/device/code"), parameters: [])
        let plain = try #require(await bench.server.handle(request).response)
        #expect(plain.status == 200)
        #expect(bench.server.requests.last?.dpop == nil)
    }

    @Test(
        "a proof is refused for each broken rule of RFC 9449 §4.3",
        arguments: [
            ("typ", "typ is not dpop+jwt"), ("alg none", "alg none is not accepted"),
            ("alg HS256", "alg HS256 is not accepted"), ("private jwk", "the jwk holds a private key"),
            ("no jwk", "the header has no jwk"), ("signature", "the signature does not verify"),
            ("htm", "htm is not the request's method"), ("htu", "htu is not the request's URI"),
            ("iat past", "iat is -61 s from the server's clock"), ("iat future", "iat is 61 s from the server's clock"),
            ("no jti", "jti, htm, htu or iat is missing or malformed"), ("two headers", "more than one DPoP header"),
            ("not a JWS", "not a compact JWS"),
        ])
    func brokenProofs(rule: String, reason: String) async throws {
        let bench = try bench()
        let url = try bench.url("/device/code")
        var proofs = [try bench.proof("POST", url)]
        let header = DPoPProof.header(for: bench.key.publicKey)
        switch rule {
        case "typ":
            proofs = [try bench.proof("POST", url, header: header.merging(["typ": .string("JWT")]) { $1 })]
        case "alg none", "alg HS256":
            let parts = proofs[0].split(separator: ".")
            let name = rule == "alg none" ? "none" : "HS256"
            let forged = header.merging(["alg": .string(name)]) { $1 }
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            proofs = [Base64URLText.encode(try encoder.encode(forged)) + "." + parts[1] + "." + parts[2]]
        case "private jwk":
            let jwk = JSONValue.object(try bench.key.privateJSONWebKey())
            proofs = [try bench.proof("POST", url, header: header.merging(["jwk": jwk]) { $1 })]
        case "no jwk":
            proofs = [try bench.proof("POST", url, header: ["typ": .string("dpop+jwt")])]
        case "signature":
            let other = try ECP256PrivateKey.generate()
            // Signed by another key than the one in its header.
            proofs = [try bench.proof("POST", url, key: other, header: header)]
        case "htm":
            proofs = [try bench.proof("GET", url)]
        case "htu":
            proofs = [try bench.proof("POST", bench.url("/token"))]
        case "iat past":
            proofs = [try bench.proof("POST", url, iat: Self.now.addingTimeInterval(-61))]
        case "iat future":
            proofs = [try bench.proof("POST", url, iat: Self.now.addingTimeInterval(61))]
        case "no jti":
            proofs = [try bench.proof("POST", url) { $0["jti"] = nil }]
        case "two headers":
            proofs.append(try bench.proof("POST", url))
        default:
            proofs = ["not.a-jws"]
        }
        let response = try await bench.post("/device/code", [("scope", "offline_access")], proofs: proofs)
        #expect(Bench.error(response) == .invalidDPoPProof, "\(rule)")
        guard case .refused(let recorded)? = bench.lastVerdict else {
            Issue.record("\(rule): \(String(describing: bench.lastVerdict))")
            return
        }
        #expect(recorded.hasPrefix(reason), "\(rule)")
        #expect(String(decoding: response.body, as: UTF8.self).contains(reason), "\(rule)")
    }

    @Test("the iat window: 60 s either way is accepted; the proof's jti may not come again within it")
    func window() async throws {
        let bench = try bench()
        let url = try bench.url("/device/code")
        for offset in [-60.0, 60.0] {
            let response = try await bench.authorize(
                proof: try bench.proof("POST", url, iat: Self.now.addingTimeInterval(offset)))
            #expect(response.status == 200, "\(offset)")
        }
        let proof = try bench.proof("POST", url)
        #expect(try await bench.authorize(proof: proof).status == 200)
        let replayed = try await bench.authorize(proof: proof)
        #expect(Bench.error(replayed) == .invalidDPoPProof)
        #expect(bench.lastVerdict == .refused("the jti was used before (a replayed proof)"))
    }

    @Test(
        "a device code proven with a key takes polls proven with that key only (draft-parecki-oauth-dpop-device-flow)")
    func deviceCodeBinding() async throws {
        let bench = try bench(clients: [.init(id: "test-client")])
        let device = try DeviceAuthorizationResponse(jsonObject: try Bench.object(await bench.authorize()))
        let parameters = DeviceAccessTokenRequest(deviceCode: device.deviceCode).formParameters
        let other = try ECP256PrivateKey.generate()
        let stolen = try await bench.post(
            "/token", parameters, proofs: [bench.proof("POST", bench.url("/token"), key: other)])
        #expect(Bench.error(stolen) == .invalidDPoPProof)
        #expect(bench.lastVerdict == .refused("made with another key than the grant's"))
        let bare = try await bench.post("/token", parameters, proofs: [])
        #expect(Bench.error(bare) == .invalidDPoPProof)
        // Neither counted as a poll: the code's owner still gets its token.
        #expect(bench.server.authorization(deviceCode: device.deviceCode)?.pollCount == 0)
        let owner = try await bench.post("/token", parameters, proofs: [bench.proof("POST", bench.url("/token"))])
        #expect(try TokenResponse(jsonObject: try Bench.object(owner)).tokenType == "DPoP")
    }

    @Test("a refresh of a bound session must be proven with the same key (RFC 9449 §5)")
    func refreshBinding() async throws {
        let bench = try bench()
        let token = try await bench.signIn()
        let parameters = RefreshTokenRequest(refreshToken: try #require(token.refreshToken)).formParameters
        let other = try ECP256PrivateKey.generate()
        let thief = try await bench.post(
            "/token", parameters, proofs: [bench.proof("POST", bench.url("/token"), key: other)])
        #expect(Bench.error(thief) == .invalidDPoPProof)
        #expect(bench.lastVerdict == .refused("made with another key than the grant's"))
        let refreshed = try await bench.post("/token", parameters, proofs: [bench.proof("POST", bench.url("/token"))])
        let renewed = try TokenResponse(jsonObject: try Bench.object(refreshed))
        #expect(renewed.tokenType == "DPoP")
        #expect(bench.server.binding(accessToken: renewed.accessToken) == (try bench.key.thumbprint()))
    }

    @Test("nonces: use_dpop_nonce with DPoP-Nonce first, the nonce on every answer, a rotated one demanded again")
    func nonces() async throws {
        let bench = try bench(dpop: .init(requiresNonce: true))
        let url = try bench.url("/device/code")
        let first = try await bench.authorize()
        #expect(Bench.error(first) == .useDPoPNonce)
        #expect(bench.lastVerdict == .nonceDemanded)
        let nonce = try #require(first.header("DPoP-Nonce"))
        let second = try await bench.authorize(proof: try bench.proof("POST", url, nonce: nonce))
        #expect(second.status == 200)
        #expect(second.header("DPoP-Nonce") == nonce)
        #expect(bench.server.requests.last?.dpop?.passed.contains("nonce") == true)
        bench.server.rotateDPoPNonce()
        let stale = try await bench.authorize(proof: try bench.proof("POST", url, nonce: nonce))
        #expect(Bench.error(stale) == .useDPoPNonce)
        #expect(stale.header("DPoP-Nonce") == bench.server.dpopNonce)
        #expect(stale.header("DPoP-Nonce") != nonce)
    }

    @Test("the resource endpoint: 200 for the bound token with a valid proof; 401 with a DPoP challenge otherwise")
    func resource() async throws {
        let bench = try bench()
        let token = try await bench.signIn()
        let access = token.accessToken
        let url = try bench.url("/resource")
        let ok = try await bench.get("/resource", token: access, proofs: [bench.proof("GET", url, accessToken: access)])
        #expect(ok.status == 200)
        #expect(try Bench.object(ok)["jkt"] == .string(try bench.key.thumbprint()))
        #expect(bench.server.requests.last?.dpop?.passed.suffix(2) == ["ath", "key binding"])
        let other = try ECP256PrivateKey.generate()
        let cases: [(String, HTTPResponse, String)] = [
            (
                "no ath", try await bench.get("/resource", token: access, proofs: [bench.proof("GET", url)]),
                "invalid_dpop_proof"
            ),
            (
                "another token's ath",
                try await bench.get("/resource", token: access, proofs: [bench.proof("GET", url, accessToken: "x")]),
                "invalid_dpop_proof"
            ),
            (
                "another key",
                try await bench.get(
                    "/resource", token: access, proofs: [bench.proof("GET", url, accessToken: access, key: other)]),
                "invalid_token"
            ),
            ("no proof", try await bench.get("/resource", token: access, proofs: []), "invalid_dpop_proof"),
            (
                "Bearer scheme",
                try await bench.get("/resource", token: access, scheme: "Bearer", proofs: []), ""
            ),
            (
                "wrong method",
                try await bench.get(
                    "/resource", token: access, proofs: [bench.proof("POST", url, accessToken: access)]),
                "invalid_dpop_proof"
            ),
        ]
        for (name, response, error) in cases {
            #expect(response.status == 401, "\(name)")
            let challenge = response.header("WWW-Authenticate") ?? ""
            #expect(challenge.hasPrefix("DPoP "), "\(name): \(challenge)")
            if !error.isEmpty { #expect(challenge.contains(#"error="\#(error)""#), "\(name): \(challenge)") }
        }
    }

    @Test("the resource's own nonce (RFC 9449 §9): 401 use_dpop_nonce with DPoP-Nonce, then 200 with it")
    func resourceNonce() async throws {
        let bench = try bench(dpop: .init(resourceRequiresNonce: true))
        let access = try await bench.signIn().accessToken
        let url = try bench.url("/resource")
        let first = try await bench.get(
            "/resource", token: access, proofs: [bench.proof("GET", url, accessToken: access)])
        #expect(first.status == 401)
        #expect(DPoPProver.isNonceChallenge(first))
        let nonce = try #require(first.header("DPoP-Nonce"))
        let second = try await bench.get(
            "/resource", token: access, proofs: [bench.proof("GET", url, accessToken: access, nonce: nonce)])
        #expect(second.status == 200)
    }

    @Test("userinfo takes a bound token only with the DPoP scheme and a proof")
    func userinfo() async throws {
        let bench = try bench()
        let access = try await bench.signIn().accessToken
        let asBearer = try await bench.get("/userinfo", token: access, scheme: "Bearer", proofs: [])
        #expect(asBearer.status == 401)
        #expect(asBearer.header("WWW-Authenticate")?.contains(#"DPoP error="invalid_token""#) == true)
        let proven = try await bench.get(
            "/userinfo", token: access, proofs: [bench.proof("GET", bench.url("/userinfo"), accessToken: access)])
        #expect(proven.status == 200)
    }

    @Test("discovery lists dpop_signing_alg_values_supported when DPoP is configured, and only then")
    func metadata() throws {
        #expect(
            try bench().server.metadata.additionalFields["dpop_signing_alg_values_supported"]
                == .array([.string("ES256")]))
        #expect(try bench(dpop: nil).server.metadata.additionalFields["dpop_signing_alg_values_supported"] == nil)
    }

    @Test("the transcript shows every proof's checks, and no token or code")
    func transcript() async throws {
        let bench = try bench(dpop: .init(requiresNonce: true))
        let nonce = try #require(try await bench.authorize().header("DPoP-Nonce"))
        let device = try DeviceAuthorizationResponse(
            jsonObject: try Bench.object(
                await bench.authorize(proof: bench.proof("POST", bench.url("/device/code"), nonce: nonce))))
        let poll = try await bench.post(
            "/token", DeviceAccessTokenRequest(deviceCode: device.deviceCode).formParameters,
            proofs: [bench.proof("POST", bench.url("/token"), nonce: nonce)])
        let token = try TokenResponse(jsonObject: try Bench.object(poll))
        let text = bench.server.transcript()
        let lines = text.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines[0].contains("POST /device/code → 400 use_dpop_nonce; DPoP needs the nonce; jkt "))
        #expect(lines[1].contains("POST /device/code → 200; DPoP accepted"))
        #expect(lines[2].contains("POST /token (poll 1) → 200; DPoP accepted"))
        #expect(lines[2].hasSuffix("checked: typ, alg ES256, jwk, signature, htm, htu, iat, jti, nonce, key binding"))
        for secret in [token.accessToken, try #require(token.refreshToken), device.deviceCode, nonce] {
            #expect(!text.contains(secret))
        }
    }
}

/// base64url without padding, for forging headers.
private enum Base64URLText {
    static func encode(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "=", with: "").replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
    }
}
