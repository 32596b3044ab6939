import Testing

@testable import DeviceLogin

@Suite struct BearerChallengeTests {
    @Test func readsTheRFC6750Example() {
        let challenge = BearerChallenge(
            header: """
                Bearer realm="example", error="invalid_token", error_description="The access token expired"
                """)
        #expect(challenge?.error == "invalid_token")
        #expect(challenge?.errorDescription == "The access token expired")
        #expect(challenge?.parameters["realm"] == "example")
    }

    @Test func findsBearerAmongOtherChallengesAndIgnoresTheirParameters() {
        let header = "DPoP algs=\"ES256\", error=\"use_dpop_nonce\", bearer error=invalid_token"
        let challenge = BearerChallenge(header: header)
        #expect(challenge?.error == "invalid_token")
        #expect(challenge?.parameters["algs"] == nil)
    }

    @Test func handlesEscapesAndABareScheme() {
        let escaped = BearerChallenge(header: "Bearer error_description=\"say \\\"hi\\\"\"")
        #expect(escaped?.errorDescription == "say \"hi\"")
        #expect(BearerChallenge(header: "Bearer")?.parameters == [:])
    }

    @Test func otherSchemesAreNotABearerChallenge() {
        #expect(BearerChallenge(header: "Basic realm=\"x\"") == nil)
        #expect(BearerChallenge(header: "") == nil)
    }
}
