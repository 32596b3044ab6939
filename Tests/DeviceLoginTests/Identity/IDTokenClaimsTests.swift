import Foundation
import Testing

@testable import DeviceLogin

@Suite struct IDTokenClaimsTests {
    @Test func decodesTypedClaimsAndKeepsTheRest() throws {
        var payload = Fixtures.idClaims()
        payload["aud"] = .array([.string("cli"), .string("other")])
        payload["azp"] = .string("cli")
        payload["auth_time"] = .number(1_699_999_990)
        payload["nonce"] = .string("n-1")
        payload["preferred_username"] = .string("alice")
        payload["email_verified"] = .string("true")
        payload["groups"] = .array([.string("dev")])
        let claims = try IDTokenClaims(idToken: Fixtures.jwt(payload))
        #expect(claims.issuer == Fixtures.issuer)
        #expect(claims.audience == ["cli", "other"])
        #expect(claims.authorizedParty == "cli")
        #expect(claims.authTime == Date(timeIntervalSince1970: 1_699_999_990))
        #expect(claims.expiresAt == Fixtures.start.addingTimeInterval(3600))
        #expect(claims.nonce == "n-1")
        #expect(claims.preferredUsername == "alice")
        #expect(claims.emailVerified == true)
        #expect(claims.additionalClaims == ["groups": .array([.string("dev")])])
        #expect(try IDTokenClaims(jsonObject: claims.jsonObject) == claims)
    }

    @Test func audienceAsAStringIsAListOfOne() throws {
        #expect(try IDTokenClaims(idToken: Fixtures.jwt(Fixtures.idClaims())).audience == ["cli"])
    }

    /// `exp` is checked with a 60-second leeway: valid until 60 s after it, by the injected time.
    @Test(arguments: [(59.0, true), (60.0, false), (61.0, false), (-3600.0, true)])
    func expiryBoundaryWithLeeway(secondsAfterExpiry: TimeInterval, valid: Bool) throws {
        let claims = try IDTokenClaims(idToken: Fixtures.jwt(Fixtures.idClaims()))
        let now = claims.expiresAt.addingTimeInterval(secondsAfterExpiry)
        let check = { try claims.validate(issuer: Fixtures.issuer, clientID: "cli", now: now) }
        if valid {
            try check()
        } else {
            #expect(throws: DeviceLoginError(.invalidIDToken, "")) { try check() }
        }
    }

    @Test func issuerAudienceAndAuthorizedPartyAreChecked() throws {
        let claims = try IDTokenClaims(idToken: Fixtures.jwt(Fixtures.idClaims()))
        let now = Fixtures.start
        try claims.validate(issuer: Fixtures.issuer + "/", clientID: "cli", now: now)
        try claims.validate(issuer: nil, clientID: "cli", now: now)
        #expect(throws: DeviceLoginError(.invalidIDToken, "")) {
            try claims.validate(issuer: "https://other.example.com", clientID: "cli", now: now)
        }
        #expect(throws: DeviceLoginError(.invalidIDToken, "")) {
            try claims.validate(issuer: Fixtures.issuer, clientID: "someone-else", now: now)
        }
        var withParty = claims
        withParty.authorizedParty = "someone-else"
        #expect(throws: DeviceLoginError(.invalidIDToken, "")) {
            try withParty.validate(issuer: Fixtures.issuer, clientID: "cli", now: now)
        }
    }

    @Test(arguments: [
        "only.two", "a.b.c.d.e", "!!!.e30.sig", "e30.!!!.sig", "e30.W10.sig",
        String(repeating: "a", count: IDTokenClaims.maximumTokenBytes + 1),
    ])
    func malformedTokensAreRefused(token: String) {
        #expect(throws: DeviceLoginError(.invalidIDToken, "")) { try IDTokenClaims(idToken: token) }
    }

    @Test(arguments: ["iss", "sub", "aud", "exp", "iat"])
    func requiredClaimsMustBePresent(claim: String) {
        var payload = Fixtures.idClaims()
        payload[claim] = nil
        #expect(throws: DeviceLoginError(.invalidIDToken, "")) { try IDTokenClaims(idToken: Fixtures.jwt(payload)) }
    }

    @Test func base64URLWithAndWithoutPadding() {
        #expect(CompactJWT.base64URLDecode("-_8") == Data([0xFB, 0xFF]))
        #expect(CompactJWT.base64URLDecode("-_8=") == Data([0xFB, 0xFF]))
        #expect(CompactJWT.base64URLDecode("a") == nil)
    }

    /// One audience is written as a string, several as an array (RFC 7519 §4.1.3 allows both).
    @Test func wireFormByteForByte() throws {
        var payload = Fixtures.idClaims()
        payload["exp"] = .number(1_700_003_600)
        payload["auth_time"] = .number(1_699_999_990.5)
        payload["email_verified"] = .bool(false)
        payload["x"] = .null
        let one = try IDTokenClaims(jsonObject: payload)
        #expect(
            try one.wireText == #"{"aud":"cli","auth_time":1699999990.5,"email_verified":false,"#
                + #""exp":1700003600,"iat":1700000000,"iss":"https:\/\/auth.example.com","sub":"user-1","x":null}"#)
        payload["aud"] = .array([.string("cli"), .string("api")])
        #expect(try IDTokenClaims(jsonObject: payload).jsonObject["aud"] == .array([.string("cli"), .string("api")]))
    }

    @Test(arguments: ["iss", "sub", "aud", "exp", "iat"])
    func missingClaimIsNamed(claim: String) {
        var payload = Fixtures.idClaims()
        payload[claim] = nil
        #expect {
            try IDTokenClaims(jsonObject: payload)
        } throws: { error in
            (error as? DeviceLoginError)?.message == "the ID token has no \(claim) claim"
        }
    }

    // Issue 17: `"exp": "1700003600"` and `"sub": 42` were read as a date and as the text "42".
    @Test(
        "a claim the checks use, of the wrong JSON type, is refused by name (OpenID Connect Core §2)",
        arguments: [
            ("exp", JSONValue.string("1700003600"), "the ID token's exp claim is a string, not a number"),
            ("iat", .bool(true), "the ID token's iat claim is a boolean, not a number"),
            ("sub", .number(42), "the ID token's sub claim is a number, not a string"),
            ("iss", .object([:]), "the ID token's iss claim is an object, not a string"),
            ("aud", .array([.string("cli"), .null]), "the ID token's aud claim is an array, not a string or a"),
            ("auth_time", .string("1699999990"), "the ID token's auth_time claim is a string, not a number"),
            ("nonce", .number(1), "the ID token's nonce claim is a number, not a string"),
            ("azp", .bool(false), "the ID token's azp claim is a boolean, not a string"),
            ("sub", .string(String(repeating: "x", count: 256)), "the ID token's sub claim is not at most 255 ASCII"),
        ] as [(String, JSONValue, String)])
    func wronglyTypedClaimIsNamed(claim: String, value: JSONValue, message: String) {
        var payload = Fixtures.idClaims()
        payload[claim] = value
        #expect {
            try IDTokenClaims(jsonObject: payload)
        } throws: { error in
            (error as? DeviceLoginError)?.code == .invalidIDToken
                && (error as? DeviceLoginError)?.message.hasPrefix(message) == true
        }
    }

    @Test func codableRoundTripKeepsUnknownClaims() throws {
        var payload = Fixtures.idClaims()
        payload["groups"] = .array([.string("dev")])
        let claims = try IDTokenClaims(jsonObject: payload)
        let again = try JSONDecoder().decode(IDTokenClaims.self, from: JSONEncoder().encode(claims))
        #expect(again == claims)
        #expect(again.additionalClaims == ["groups": .array([.string("dev")])])
    }

    // Issue 8: an audience string was split at spaces, so "evil cli" passed an audience check for "cli".
    @Test func anAudienceStringIsOneAudienceNotSplitAtSpaces() throws {
        var payload = Fixtures.idClaims()
        payload["aud"] = .string("evil cli")
        let claims = try IDTokenClaims(idToken: Fixtures.jwt(payload))
        #expect(claims.audience == ["evil cli"])
        #expect(throws: DeviceLoginError.self) {
            try claims.validate(issuer: Fixtures.issuer, clientID: "cli", now: Fixtures.start)
        }
        // Issue 17: a member that is not a string is no longer dropped; the whole claim is of the wrong type.
        payload["aud"] = .array([.string("other"), .number(1), .string("cli")])
        #expect(throws: DeviceLoginError.self) { try IDTokenClaims(idToken: Fixtures.jwt(payload)) }
    }
}
