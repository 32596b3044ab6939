import Foundation
import Testing

@testable import DeviceLogin

@Suite("TokenResponse (RFC 6749 §5.1) and its provider quirks")
struct TokenResponseTests {
    private let parse = TokenResponse.decoding

    @Test("the RFC 6749 §5.1 example, and its wire form byte for byte")
    func rfcExample() throws {
        let response = try parse(
            """
            {"access_token":"2YotnFZFEjr1zCsicMWpAA","token_type":"example","expires_in":3600,
             "refresh_token":"tGzv3JOkF0XG5Qx2TlKWIA","example_parameter":"example_value"}
            """)
        #expect(
            response
                == TokenResponse(
                    accessToken: "2YotnFZFEjr1zCsicMWpAA", tokenType: "example", expiresIn: 3600,
                    refreshToken: "tGzv3JOkF0XG5Qx2TlKWIA",
                    additionalFields: ["example_parameter": .string("example_value")]
                ))
        #expect(
            try response.wireText == #"{"access_token":"2YotnFZFEjr1zCsicMWpAA","#
                + #""example_parameter":"example_value","expires_in":3600,"refresh_token":"tGzv3JOkF0XG5Qx2TlKWIA","#
                + #""token_type":"example"}"#)
    }

    @Test(
        "a missing or empty token_type reads as Bearer (some providers omit it on refresh)",
        arguments: [
            #"{"access_token":"a"}"#, #"{"access_token":"a","token_type":""}"#,
        ])
    func missingTokenType(json: String) throws {
        let response = try parse(json)
        #expect(response.tokenType == "Bearer")
        #expect(response.isBearer)
        #expect(try response.wireText == #"{"access_token":"a","token_type":"Bearer"}"#)
    }

    @Test("Microsoft v1: expires_in as a string; ext_expires_in kept as sent")
    func microsoftStrings() throws {
        let response = try parse(
            #"{"access_token":"a","token_type":"Bearer","expires_in":"3599","ext_expires_in":"3599"}"#
        )
        #expect(response.expiresIn == 3599)
        #expect(response.additionalFields == ["ext_expires_in": .string("3599")])
        #expect(
            try response.wireText
                == #"{"access_token":"a","expires_in":3599,"ext_expires_in":"3599","token_type":"Bearer"}"#)
    }

    @Test("GitHub: a form-encoded answer, every value a string, token_type in lower case")
    func githubForm() throws {
        let reply = ServerReply(
            HTTPResponse(
                status: 200,
                body: Data(
                    "access_token=gho_x&expires_in=28800&refresh_token=ghr_y&scope=repo&token_type=bearer".utf8
                )))
        guard case .success(let object) = reply else {
            Issue.record("expected a success, got \(reply)")
            return
        }
        let response = try TokenResponse(jsonObject: object)
        #expect(
            response
                == TokenResponse(
                    accessToken: "gho_x", tokenType: "bearer", expiresIn: 28800, refreshToken: "ghr_y", scope: "repo"
                ))
        #expect(response.isBearer)
    }

    @Test("unreadable or empty known fields are dropped, not kept as unknown")
    func unreadableFields() throws {
        let response = try parse(
            #"{"access_token":"a","expires_in":"soon","refresh_token":"","scope":7,"id_token":[]}"#
        )
        #expect(response.expiresIn == nil)
        #expect(response.refreshToken == nil)
        #expect(response.scope == "7")
        #expect(response.idToken == nil)
        #expect(response.additionalFields.isEmpty)
    }

    @Test(
        "expires_in stays bounded: 10^15, fractions and infinities are no lifetime",
        arguments: [
            "1e15", "1000000000000000", "-1e15", "1.5", #""1e300""#, #""1.5""#, #""1000000000000000""#,
            #""9223372036854775807""#,
        ])
    func boundedExpiry(number: String) throws {
        #expect(try parse(#"{"access_token":"a","expires_in":"# + number + "}").expiresIn == nil)
    }

    @Test(
        "a response without access_token is refused, naming it",
        arguments: [
            #"{"token_type":"Bearer"}"#, #"{"access_token":""}"#, #"{"access_token":null}"#,
        ])
    func missingAccessToken(json: String) {
        #expect {
            try parse(json)
        } throws: { error in
            (error as? DeviceLoginError)?.code == .invalidResponse
                && (error as? DeviceLoginError)?.message == "the token response has no access_token"
        }
    }

    @Test("parsed and built values are equal, hash alike, and survive Codable")
    func equality() throws {
        let parsed = try parse(#"{"access_token":"a","expires_in":"60","scope":"openid email","x":[true]}"#)
        let built = TokenResponse(
            accessToken: "a", expiresIn: 60, scope: "openid email",
            additionalFields: [
                "x": .array([.bool(true)])
            ])
        #expect(parsed == built)
        #expect(parsed.hashValue == built.hashValue)
        #expect(parsed.scopes == ["openid", "email"])
        #expect(try JSONDecoder().decode(TokenResponse.self, from: JSONEncoder().encode(built)) == built)
        #expect(parsed != TokenResponse(accessToken: "a", expiresIn: 61, scope: "openid email"))
    }

    @Test("description never shows a token")
    func description() {
        let text = "\(TokenResponse(accessToken: "AT-secret", refreshToken: "RT-secret", idToken: "ID-secret"))"
        #expect(!text.contains("secret"))
        #expect(text.contains("refreshToken: yes"))
    }

    // Issue 8: negative or absurd lifetimes were taken as sent, and far dates printed wrongly.
    @Test(
        "expires_in below 0 reads as 0, above 10 years as 10 years",
        arguments: [
            ("-5", 0), ("0", 0), ("3600", 3600), ("315360000", 315_360_000), ("315360001", 315_360_000),
            (#""9223372036854775807""#, nil), ("1e14", 315_360_000), ("-1e14", 0),
        ])
    func lifetimesAreBounded(wire: String, expected: Int?) throws {
        let response = try parse(#"{"access_token":"a","token_type":"Bearer","expires_in":\#(wire)}"#)
        #expect(response.expiresIn == expected)
    }

    // Issue 8: a token of another type was accepted and later sent as Bearer; a token with CR, LF or NUL was stored
    // and failed at its first use with a wrong hint.
    @Test(
        "a token the client cannot use is refused before it is accepted",
        arguments: [
            #"{"access_token":"a","token_type":"mac"}"#, #"{"access_token":"a","token_type":"example"}"#,
            #"{"access_token":"a\r\nX-Evil: 1","token_type":"Bearer"}"#, #"{"access_token":"a\u0000b"}"#,
            #"{"access_token":"a b"}"#, #"{"access_token":"ü"}"#, #"{"access_token":"a","refresh_token":"r\nx"}"#,
        ])
    func unusableTokensAreRefused(json: String) throws {
        let response = try parse(json)
        let error = #expect(throws: DeviceLoginError.self) { try response.checkUsable() }
        #expect(error?.code == .invalidResponse)
    }

    @Test(
        "Bearer and DPoP in any case, with RFC 6750 token characters, are usable",
        arguments: [
            #"{"access_token":"2YotnFZFEjr1zCsicMWpAA","token_type":"bearer"}"#,
            #"{"access_token":"a.b-c_d~e+f/g==","token_type":"DPoP","refresh_token":"r"}"#,
        ])
    func usableTokens(json: String) throws {
        try parse(json).checkUsable()
    }
}
