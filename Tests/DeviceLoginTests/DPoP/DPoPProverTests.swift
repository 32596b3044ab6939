import Foundation
import Testing

@testable import DeviceLogin

@Suite("DPoPProver: a fresh proof per request, the servers' nonces, one retry for a nonce (RFC 9449 §8, §9)")
struct DPoPProverTests {
    private let wall = WallClock()
    private let token = Fixtures.url("/token")

    private func prover() throws -> DPoPProver {
        try DPoPProver(key: try ECP256PrivateKey.generate(), now: wall.now)
    }

    /// The claims of the proof in `request`'s DPoP header.
    private func claims(_ request: HTTPRequest) throws -> JSONObject {
        let jws = try CompactJWS(try #require(request.header("DPoP")), maximumBytes: 8192)
        return try JSONValue.decodeObject(from: Data(jws.payload))
    }

    private static func nonceChallenge(_ nonce: String) -> ScriptedTransport.Reply {
        ScriptedTransport.json(
            #"{"error":"use_dpop_nonce","error_description":"nonce needed"}"#, status: 400,
            headers: [HTTPHeader("DPoP-Nonce", nonce)])
    }

    @Test("a proof: iat from the injected clock, a new jti each time, the server's nonce once it sent one")
    func proof() throws {
        let prover = try prover()
        let first = try CompactJWS(try prover.proof(method: "POST", url: token), maximumBytes: 8192)
        let second = try CompactJWS(try prover.proof(method: "POST", url: token), maximumBytes: 8192)
        let one = try JSONValue.decodeObject(from: Data(first.payload))
        let two = try JSONValue.decodeObject(from: Data(second.payload))
        #expect(one["iat"] == .number(Fixtures.start.timeIntervalSince1970))
        #expect(one["jti"] != two["jti"])
        #expect(one["nonce"] == nil)
        prover.takeNonce(from: HTTPResponse(status: 200, headers: [HTTPHeader("DPoP-Nonce", "n-1")]), for: token)
        let third = try CompactJWS(try prover.proof(method: "POST", url: token), maximumBytes: 8192)
        #expect(try JSONValue.decodeObject(from: Data(third.payload))["nonce"] == .string("n-1"))
        #expect(try prover.thumbprint == prover.key.thumbprint())
    }

    @Test("nonces are kept per server (scheme, host, port); a malformed one is ignored")
    func noncesPerServer() throws {
        let prover = try prover()
        prover.takeNonce(from: HTTPResponse(status: 400, headers: [HTTPHeader("DPoP-Nonce", "as-nonce")]), for: token)
        #expect(prover.nonce(for: Fixtures.url("/userinfo?x=1")) == "as-nonce")
        #expect(prover.nonce(for: try #require(URL(string: "https://AUTH.example.com:443/other"))) == "as-nonce")
        #expect(prover.nonce(for: try #require(URL(string: "https://auth.example.com:8443/token"))) == nil)
        #expect(prover.nonce(for: try #require(URL(string: "https://api.example.com/items"))) == nil)
        for malformed in ["", "has space", #"quo"te"#, #"back\slash"#, "nl\n", String(repeating: "x", count: 1025)] {
            #expect(
                prover.takeNonce(
                    from: HTTPResponse(status: 200, headers: [HTTPHeader("DPoP-Nonce", malformed)]), for: token)
                    == nil)
        }
        #expect(prover.nonce(for: token) == "as-nonce")
        prover.takeNonce(from: HTTPResponse(status: 200, headers: [HTTPHeader("DPoP-Nonce", "newer")]), for: token)
        #expect(prover.nonce(for: token) == "newer")
    }

    @Test(
        "a nonce challenge: 400 use_dpop_nonce from an authorization server, 401 DPoP error=use_dpop_nonce from a resource",
        arguments: [
            (HTTPResponse(status: 400, body: Data(#"{"error":"use_dpop_nonce"}"#.utf8)), true),
            (
                HTTPResponse(
                    status: 401,
                    headers: [HTTPHeader("WWW-Authenticate", #"DPoP error="use_dpop_nonce", algs="ES256""#)]),
                true
            ),
            (
                HTTPResponse(
                    status: 401,
                    headers: [
                        HTTPHeader("WWW-Authenticate", #"Bearer realm="x", DPoP error="use_dpop_nonce""#)
                    ]),
                true
            ),
            (
                HTTPResponse(
                    status: 401, headers: [HTTPHeader("WWW-Authenticate", #"Bearer error="use_dpop_nonce""#)]),
                false
            ),
            (HTTPResponse(status: 400, body: Data(#"{"error":"invalid_dpop_proof"}"#.utf8)), false),
            (HTTPResponse(status: 400, body: Data(#"{"error":"invalid_grant"}"#.utf8)), false),
            (HTTPResponse(status: 200, body: Data(#"{"access_token":"a"}"#.utf8)), false),
        ])
    func challenge(response: HTTPResponse, expected: Bool) {
        #expect(DPoPProver.isNonceChallenge(response) == expected)
    }

    @Test("send: a use_dpop_nonce with a nonce is sent again once, with a new proof carrying the nonce")
    func retriesOnce() async throws {
        let prover = try prover()
        let transport = ScriptedTransport([
            Self.nonceChallenge("n-1"), ScriptedTransport.json("{}", headers: [HTTPHeader("DPoP-Nonce", "n-2")]),
        ])
        let request = HTTPRequest(method: .post, url: token, headers: [HTTPHeader("DPoP", "stale")])
        let response = try await prover.send(request, through: transport)
        #expect(response.status == 200)
        let sent = transport.requests
        #expect(sent.count == 2)
        #expect(sent.allSatisfy { $0.headers.filter { $0.name == "DPoP" }.count == 1 })
        #expect(try claims(sent[0])["nonce"] == nil)
        #expect(try claims(sent[1])["nonce"] == .string("n-1"))
        #expect(try claims(sent[0])["jti"] != claims(sent[1])["jti"])
        // A nonce returned with the success replaces the one the error gave.
        #expect(prover.nonce(for: token) == "n-2")
    }

    @Test("send: no second retry, and none without a DPoP-Nonce header")
    func retryBounds() async throws {
        let prover = try prover()
        let twice = ScriptedTransport([Self.nonceChallenge("n-1"), Self.nonceChallenge("n-2")])
        let response = try await prover.send(HTTPRequest(method: .post, url: token), through: twice)
        #expect(response.status == 400)
        #expect(twice.requests.count == 2)
        let without = ScriptedTransport([ScriptedTransport.json(#"{"error":"use_dpop_nonce"}"#, status: 400)])
        _ = try await prover.send(HTTPRequest(method: .post, url: token), through: without)
        #expect(without.requests.count == 1)
    }

    @Test("signed: ath for the access token of a resource request")
    func accessTokenHash() throws {
        let prover = try prover()
        let url = try #require(URL(string: "https://api.example.com/items?page=2"))
        let request = try prover.signed(
            HTTPRequest(method: .get, url: url), accessToken: "Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU")
        let claims = try claims(request)
        #expect(claims["ath"] == .string("fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo"))
        #expect(claims["htm"] == .string("GET"))
        #expect(claims["htu"] == .string("https://api.example.com/items"))
    }

    @Test("description and equality name the thumbprint, never the key")
    func description() throws {
        let key = try ECP256PrivateKey.generate()
        let one = try DPoPProver(key: key)
        let two = try DPoPProver(key: key)
        #expect(one == two)
        #expect(one != (try prover()))
        let d = try key.privateJSONWebKey()["d"]?.stringValue ?? "?"
        #expect(!one.description.contains(d))
        #expect(one.description == "DPoPProver(jkt: \(one.thumbprint))")
    }
}
