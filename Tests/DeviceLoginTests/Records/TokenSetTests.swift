import Foundation
import Testing

@testable import DeviceLogin

@Suite struct TokenSetTests {
    @Test func expiryIsComputedFromTheInjectedNow() {
        let response = TokenResponse(accessToken: "AT", expiresIn: 300, refreshToken: "RT", scope: "openid")
        let tokens = TokenSet(response: response, receivedAt: Fixtures.start)
        #expect(tokens.expiresAt == Fixtures.start.addingTimeInterval(300))
        #expect(tokens.issuedAt == Fixtures.start)
        #expect(tokens.refreshToken == "RT")
        #expect(tokens.scopes == ["openid"])
    }

    /// A response built in code may say anything; the expiry stays within what a token file can hold.
    @Test(arguments: [(Int.max, TokenResponse.maximumLifetime), (Int.min, 0), (-1, 0), (600, 600)])
    func expiryIsBoundedLikeAServersExpiresIn(expiresIn: Int, seconds: Int) {
        let response = TokenResponse(accessToken: "AT", expiresIn: expiresIn)
        let tokens = TokenSet(response: response, receivedAt: Fixtures.start)
        #expect(tokens.expiresAt == Fixtures.start.addingTimeInterval(TimeInterval(seconds)))
        #expect(tokens.expiresAt.map { TokenSet.storedTimes.contains($0.timeIntervalSince1970) } == true)
    }

    /// Without a refresh token the token cannot be renewed: it is used until a resource server rejects it (GitHub's
    /// OAuth apps send neither).
    @Test func withoutExpiresInNorRefreshTokenTheTokenHasNoExpiryAndStaysUsable() {
        let tokens = TokenSet(response: TokenResponse(accessToken: "AT"), receivedAt: Fixtures.start)
        #expect(tokens.expiresAt == nil)
        #expect(tokens.accessToken(validAfter: Fixtures.start.addingTimeInterval(1e9)) == "AT")
    }

    // Issue 17: an unparsable expires_in ("soon") read as absent, and absent made a token valid for ever, so a
    // session with a refresh token never refreshed.
    @Test(
        "expires_in absent or unreadable, with a refresh token: an hour's lifetime, then refreshed at the first use",
        arguments: [
            "", #","expires_in":"soon""#, #","expires_in":"""#, #","expires_in":"1 hour""#, #","expires_in":null"#,
            #","expires_in":"1e300""#, #","expires_in":true"#,
        ])
    func unreadableExpiresInIsAnAssumedLifetime(fragment: String) throws {
        let json = #"{"access_token":"AT","token_type":"Bearer","refresh_token":"RT""# + fragment + "}"
        let response = try TokenResponse(jsonObject: try JSONValue.decodeObject(from: Data(json.utf8)))
        #expect(response.expiresIn == nil, "read as absent")
        let tokens = TokenSet(response: response, receivedAt: Fixtures.start)
        #expect(tokens.expiresAt == Fixtures.start.addingTimeInterval(3600))
        #expect(tokens.accessToken(validAfter: Fixtures.start.addingTimeInterval(3599)) == "AT")
        #expect(tokens.accessToken(validAfter: Fixtures.start.addingTimeInterval(3600)) == nil)
        // A refresh that again sends no readable lifetime gets the same bounded one, from when it arrived.
        let later = Fixtures.start.addingTimeInterval(4000)
        let next = tokens.refreshed(with: response, receivedAt: later)
        #expect(next.expiresAt == later.addingTimeInterval(3600))
        let resource = tokens.refreshed(with: response, for: Fixtures.api, receivedAt: later)
        #expect(resource.resourceTokens[Fixtures.api]?.expiresAt == later.addingTimeInterval(3600))
    }

    @Test(arguments: [(-1.0, "AT-1" as String?), (0.0, nil), (1.0, nil)])
    func validityBoundaryAtExpiry(offset: TimeInterval, expected: String?) {
        let tokens = Fixtures.tokens(expiresIn: 100)
        let expiry = Fixtures.start.addingTimeInterval(100)
        #expect(tokens.accessToken(validAfter: expiry.addingTimeInterval(offset)) == expected)
    }

    @Test func refreshWithoutRefreshTokenKeepsTheOldOne() {
        var old = Fixtures.tokens(idToken: "ID-1")
        old.resourceTokens[Fixtures.api] = .init(accessToken: "API-1", expiresAt: nil, issuedAt: Fixtures.start)
        let later = Fixtures.start.addingTimeInterval(50)
        let next = old.refreshed(with: TokenResponse(accessToken: "AT-2", expiresIn: 60), receivedAt: later)
        #expect(next.accessToken == "AT-2")
        #expect(next.refreshToken == "RT-1")
        #expect(next.idToken == "ID-1")
        #expect(next.scope == "openid offline_access")
        #expect(next.expiresAt == later.addingTimeInterval(60))
        #expect(next.issuedAt == later)
        #expect(next.resourceTokens[Fixtures.api]?.accessToken == "API-1")
    }

    @Test func refreshReplacesARotatedRefreshTokenAndIDToken() {
        let response = TokenResponse(accessToken: "AT-2", refreshToken: "RT-2", scope: "openid", idToken: "ID-2")
        let next = Fixtures.tokens(idToken: "ID-1").refreshed(with: response, receivedAt: Fixtures.start)
        #expect(next.refreshToken == "RT-2")
        #expect(next.idToken == "ID-2")
        #expect(next.scope == "openid")
    }

    @Test func resourceRefreshChangesOnlyThatResource() {
        let old = Fixtures.tokens()
        let response = TokenResponse(accessToken: "API-1", expiresIn: 30, refreshToken: "RT-2", scope: "read")
        let next = old.refreshed(with: response, for: Fixtures.api, receivedAt: Fixtures.start)
        #expect(next.accessToken == "AT-1")
        #expect(next.expiresAt == old.expiresAt)
        #expect(next.refreshToken == "RT-2")
        let entry = next.resourceTokens[Fixtures.api]
        #expect(entry?.accessToken == "API-1")
        #expect(entry?.scope == "read")
        #expect(entry?.expiresAt == Fixtures.start.addingTimeInterval(30))
        #expect(next.accessToken(for: Fixtures.api, validAfter: Fixtures.start.addingTimeInterval(29)) == "API-1")
        #expect(next.accessToken(for: Fixtures.api, validAfter: Fixtures.start.addingTimeInterval(30)) == nil)
        #expect(next.accessToken(for: "https://other.example.com", validAfter: Fixtures.start) == nil)
    }

    @Test func descriptionNeverShowsATokenOrSecret() {
        var tokens = Fixtures.tokens(access: "secret-access", refresh: "secret-refresh", idToken: "secret-id")
        tokens.resourceTokens[Fixtures.api] = .init(
            accessToken: "secret-api", expiresAt: nil, issuedAt: Fixtures.start
        )
        let text = "\(tokens) \(tokens.resourceTokens[Fixtures.api].map { "\($0)" } ?? "")"
        #expect(!text.contains("secret"))
        #expect(text.contains("refreshToken: yes"))
        #expect(text.contains(Fixtures.api))
    }

    @Test func encodesToTheDocumentedFileFormat() throws {
        var tokens = Fixtures.tokens(expiresIn: 60)
        tokens.resourceTokens[Fixtures.api] = .init(
            accessToken: "API", expiresAt: nil, scope: "read", issuedAt: Fixtures.start
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let text = String(decoding: try encoder.encode(tokens), as: UTF8.self)
        #expect(
            text == """
                {"access_token":"AT-1","expires_at":1700000060,"issued_at":1700000000,"refresh_token":"RT-1",\
                "resources":{"https:\\/\\/api.example.com":{"access_token":"API","issued_at":1700000000,\
                "scope":"read","token_type":"Bearer"}},"scope":"openid offline_access","token_type":"Bearer"}
                """)
        #expect(try JSONDecoder().decode(TokenSet.self, from: Data(text.utf8)) == tokens)
    }

    @Test func fractionalTimesSurviveARoundTrip() throws {
        let tokens = Fixtures.tokens(receivedAt: Date(timeIntervalSince1970: 1_700_000_000.25))
        let decoded = try JSONDecoder().decode(TokenSet.self, from: JSONEncoder().encode(tokens))
        #expect(decoded == tokens)
    }

    @Test func theVerdictIsStoredInTheDocumentedFormat() throws {
        var tokens = Fixtures.tokens(idToken: "id-1")
        tokens.idTokenVerification = IDTokenVerification(
            outcome: .refused, problem: "no key", algorithm: "ES256", keyID: "k1", tokenDigest: "abc",
            checkedAt: Fixtures.start
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let text = String(decoding: try encoder.encode(tokens), as: UTF8.self)
        #expect(
            text.contains(
                #""id_token_verification":{"alg":"ES256","checked_at":1700000000,"kid":"k1","outcome":"refused","#
                    + #""problem":"no key","sha256":"abc"}"#), "\(text)")
        #expect(try JSONDecoder().decode(TokenSet.self, from: Data(text.utf8)) == tokens)
    }

    /// The verdict is advice: one that cannot be read (a later format, a damaged file) is dropped, not an error.
    @Test(arguments: [
        #"{"outcome":"verified"}"#, #"{"outcome":"verified","checked_at":1e300}"#, #""verified""#,
        #"{"outcome":7,"checked_at":1}"#,
    ])
    func anUnreadableVerdictIsDropped(verdict: String) throws {
        let text =
            #"{"access_token":"AT","token_type":"Bearer","issued_at":1700000000,"#
            + #""id_token_verification":"# + verdict + "}"
        let tokens = try JSONDecoder().decode(TokenSet.self, from: Data(text.utf8))
        #expect(tokens.accessToken == "AT")
        #expect(tokens.idTokenVerification == nil)
    }

    @Test func anOutcomeOfALaterVersionIsNotBelieved() throws {
        let text =
            #"{"access_token":"AT","token_type":"Bearer","issued_at":1700000000,"#
            + #""id_token_verification":{"outcome":"quantum-verified","checked_at":1700000000,"sha256":"x"}}"#
        let tokens = try JSONDecoder().decode(TokenSet.self, from: Data(text.utf8))
        let verdict = try #require(tokens.idTokenVerification)
        #expect(verdict.outcome == .undetermined && !verdict.isVerified && !verdict.isFinal)
    }

    /// A refresh that brings a new ID token drops the verdict on the old one; one that brings the same, or none,
    /// keeps it.
    @Test func aNewIDTokenDropsTheVerdict() {
        var tokens = Fixtures.tokens(idToken: "id-1")
        tokens.idTokenVerification = IDTokenVerification(
            outcome: .verified, tokenDigest: "d", checkedAt: Fixtures.start
        )
        let same = tokens.refreshed(
            with: TokenResponse(accessToken: "AT-2", idToken: "id-1"), receivedAt: Fixtures.start)
        #expect(same.idTokenVerification == tokens.idTokenVerification)
        let none = tokens.refreshed(with: TokenResponse(accessToken: "AT-2"), receivedAt: Fixtures.start)
        #expect(none.idTokenVerification == tokens.idTokenVerification)
        let new = tokens.refreshed(
            with: TokenResponse(accessToken: "AT-2", idToken: "id-2"), receivedAt: Fixtures.start)
        #expect(new.idToken == "id-2")
        #expect(new.idTokenVerification == nil)
        let resource = tokens.refreshed(
            with: TokenResponse(accessToken: "API", idToken: "id-3"), for: Fixtures.api, receivedAt: Fixtures.start)
        #expect(resource.idTokenVerification == nil)
    }
}
