import Foundation
import Testing

@testable import DeviceLogin

@Suite("DPoPProof: the claims and header of one proof (RFC 9449 §4.2)")
struct DPoPProofTests {
    @Test(
        "htu: the URI without query and fragment, scheme and host lower-cased, the default port and user left out",
        arguments: [
            ("https://server.example.com/token", "https://server.example.com/token"),
            ("https://server.example.com/token?a=1&b=2", "https://server.example.com/token"),
            ("https://server.example.com/token#part", "https://server.example.com/token"),
            ("https://server.example.com/token?a=1#part", "https://server.example.com/token"),
            ("HTTPS://Server.Example.COM/Token", "https://server.example.com/Token"),
            ("https://server.example.com:443/token", "https://server.example.com/token"),
            ("http://server.example.com:80/token", "http://server.example.com/token"),
            ("https://server.example.com:8443/token", "https://server.example.com:8443/token"),
            ("http://127.0.0.1:5555/token", "http://127.0.0.1:5555/token"),
            ("https://server.example.com", "https://server.example.com/"),
            ("https://server.example.com?x", "https://server.example.com/"),
            ("https://user:secret@server.example.com/token", "https://server.example.com/token"),
            ("https://server.example.com/a%20b/c/", "https://server.example.com/a%20b/c/"),
            ("http://[::1]:8080/p?q", "http://[::1]:8080/p"),
        ])
    func targetURI(url: String, expected: String) throws {
        #expect(DPoPProof.targetURI(of: try #require(URL(string: url))) == expected)
    }

    @Test(
        "htu: none for what is not an absolute http(s) URL",
        arguments: ["ftp://host/x", "file:///etc/passwd", "/token"])
    func notHTTP(url: String) throws {
        #expect(DPoPProof.targetURI(of: try #require(URL(string: url))) == nil)
        #expect(throws: CryptoError.self) {
            try DPoPProof(method: "GET", url: try #require(URL(string: url)), id: "x", issuedAt: Date())
        }
    }

    @Test("the claims: jti, htm, htu and iat in whole seconds; nonce and ath only when given")
    func claims() throws {
        let url = try #require(URL(string: "https://server.example.com/token?x=1"))
        let plain = try DPoPProof(
            method: "POST", url: url, id: "e1j3V_bKic8-LAEB", issuedAt: Date(timeIntervalSince1970: 1_562_262_616.9))
        #expect(
            plain.claims == [
                "jti": .string("e1j3V_bKic8-LAEB"), "htm": .string("POST"),
                "htu": .string("https://server.example.com/token"), "iat": .number(1_562_262_616),
            ])
        let full = try DPoPProof(
            method: "GET", url: url, id: "id", issuedAt: Date(timeIntervalSince1970: 10),
            nonce: "eyJ7S_zG.eyJH0-Z.HX4w-7v",
            accessToken: "Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU")
        #expect(full.claims["nonce"] == .string("eyJ7S_zG.eyJH0-Z.HX4w-7v"))
        // RFC 9449 §7.1, Figure 13: the ath of this access token.
        #expect(full.claims["ath"] == .string("fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo"))
        #expect(full.claims.count == 6)
    }

    @Test("the header: typ dpop+jwt, alg ES256, and the public key's required members only")
    func header() throws {
        let key = try ECP256PrivateKey.generate()
        #expect(key.publicKey.algorithm == "ES256")
        let header = DPoPProof.header(for: key.publicKey)
        #expect(header["typ"] == .string("dpop+jwt"))
        guard case .object(let jwk)? = header["jwk"] else {
            Issue.record("no jwk")
            return
        }
        #expect(Set(jwk.keys) == ["kty", "crv", "x", "y"])
        #expect(jwk["d"] == nil)
    }

    @Test("signed: a compact JWS whose signature verifies with the key in its own header, over the claims")
    func signed() throws {
        let key = try ECP256PrivateKey.generate()
        let url = try #require(URL(string: "https://resource.example.org/protectedresource"))
        let proof = try DPoPProof(
            method: "GET", url: url, id: DPoPProof.newID(), issuedAt: Date(timeIntervalSince1970: 1_700_000_000),
            accessToken: "token")
        let jws = try CompactJWS(try proof.signed(with: key), maximumBytes: 8192)
        #expect(jws.algorithmName == "ES256")
        #expect(jws.header["typ"] == .string("dpop+jwt"))
        guard case .object(let members)? = jws.header["jwk"] else {
            Issue.record("no jwk")
            return
        }
        let embedded = try JSONWebKey(jsonObject: members)
        #expect(try embedded.thumbprint() == key.thumbprint())
        #expect(try jws.verifies(.es256, with: embedded))
        #expect(try JSONValue.decodeObject(from: Data(jws.payload)) == proof.claims)
        #expect(jws.signature.count == 64)
    }

    @Test("newID: 128 random bits in base64url, different every time")
    func newID() {
        let ids = (0..<1000).map { _ in DPoPProof.newID() }
        #expect(Set(ids).count == 1000)
        for id in ids.prefix(10) {
            #expect(id.count == 22)
            #expect(Base64URL.decode(id, maximumBytes: 16)?.count == 16)
        }
    }
}
