import Foundation
import Testing

@testable import DeviceLogin

/// A glance holds the whole record only when it was made from one, and judges its access token by the token set's
/// rules.
struct ProfileGlanceTests {
    @Test func aGlanceOfAWholeRecordCarriesIt() throws {
        let record = try Fixtures.record(tokens: Fixtures.tokens(access: "AT-1", idToken: "ID-1"))
        let glance = ProfileGlance(whole: record)
        #expect(glance.record == record)
        #expect(glance.profile == record.profile)
        #expect(glance.accessToken?.value == "AT-1")
        #expect(glance.accessToken?.expiresAt == record.tokens?.expiresAt)

        let signedOut = ProfileGlance(whole: try Fixtures.record(tokens: nil))
        #expect(signedOut.record != nil)
        #expect(signedOut.accessToken == nil)
    }

    @Test func aGlanceOfTheAccessTokenAloneCarriesNoRecord() throws {
        let record = try Fixtures.record(tokens: Fixtures.tokens(access: "AT-1", idToken: "ID-1"))
        let glance = ProfileGlance(profile: record.profile, accessTokenOf: record.tokens)
        #expect(glance.record == nil)
        #expect(glance.accessToken?.value == "AT-1")
        #expect(ProfileGlance(profile: record.profile, accessTokenOf: nil).accessToken == nil)
    }

    @Test(
        arguments: [
            // (token type, seconds from now to expiry (nil: unknown), seconds after now asked about, valid, bearer)
            ("Bearer", 3600.0, 60.0, true, true),
            ("bearer", 60.0, 60.0, false, true),
            ("BEARER", 61.0, 60.0, true, true),
            ("DPoP", 3600.0, 60.0, true, false),
            ("Bearer", nil, 1e6, true, true),
        ] as [(String, Double?, Double, Bool, Bool)])
    func judgesItsTokenAsTheTokenSetDoes(
        type: String, expiresIn: Double?, after: Double, valid: Bool, bearer: Bool
    ) {
        let now = Fixtures.start
        var tokens = Fixtures.tokens(receivedAt: now)
        tokens.tokenType = type
        tokens.expiresAt = expiresIn.map { now.addingTimeInterval($0) }
        let token = ProfileGlance.AccessToken(of: tokens)
        let date = now.addingTimeInterval(after)
        #expect((token.value(validAfter: date) != nil) == valid)
        #expect(token.value(validAfter: date) == tokens.accessToken(validAfter: date))
        #expect(token.isBearer == bearer)
        #expect(token.isBearer == tokens.isBearer)
    }
}
