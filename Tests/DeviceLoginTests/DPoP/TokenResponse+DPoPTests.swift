import Testing

@testable import DeviceLogin

@Suite("TokenResponse+DPoP: the token type must fit the proof (RFC 9449 §5)")
struct TokenResponseDPoPTests {
    @Test(
        "a DPoP request takes only DPoP tokens; a request without a proof takes none",
        arguments: [
            ("DPoP", true, true), ("dpop", true, true), ("Bearer", true, false), ("bearer", true, false),
            ("Bearer", false, true), ("bearer", false, true), ("DPoP", false, false), ("DPOP", false, false),
        ])
    func refusal(tokenType: String, proven: Bool, accepted: Bool) {
        let response = TokenResponse(accessToken: "at", tokenType: tokenType)
        let refusal = response.tokenTypeRefusal(provenWithDPoP: proven)
        #expect((refusal == nil) == accepted)
        #expect(refusal.map { $0.code == .invalidResponse } ?? true)
        #expect(response.isDPoP == (tokenType.lowercased() == "dpop"))
    }

    @Test("the downgrade's message names it and what to do; it shows no token")
    func downgradeMessage() throws {
        let refusal = try #require(
            TokenResponse(accessToken: "secret-token", tokenType: "Bearer").tokenTypeRefusal(provenWithDPoP: true))
        #expect(refusal.message.contains("did not bind the token to the key"))
        #expect(!refusal.message.contains("secret-token"))
        #expect(refusal.hint == "sign in without DPoP if the server does not support it")
    }
}
