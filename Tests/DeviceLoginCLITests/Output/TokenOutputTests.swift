import DeviceLogin
import Foundation
import Testing

@testable import DeviceLoginCLI

@Suite("TokenOutput: what lands on stdout")
struct TokenOutputTests {
    @Test("JSON escapes DEL, C1 controls and bidi overrides, and stays the same JSON value")
    func escapes() throws {
        let hostile = "a\u{7F}b\u{9B}31mc\u{202E}d\u{2066}e\u{200B}f"
        let text = try TokenOutput.encode(["name": .string(hostile)])
        #expect(text == #"{"name":"a\u007Fb\u009B31mc\u202Ed\u2066e\u200Bf"}"#)
        #expect(!text.unicodeScalars.contains { $0.value >= 0x7F && $0.value <= 0x9F })
        let decoded = try JSONDecoder().decode([String: String].self, from: Data(text.utf8))
        #expect(decoded["name"] == hostile)
    }

    @Test("the token response as received plus an absolute expires_at")
    func json() throws {
        let response = TokenResponse(
            accessToken: "at", tokenType: "bearer", expiresIn: 60,
            additionalFields: ["x": .number(1)])
        let text = try TokenOutput.json(response, receivedAt: Date(timeIntervalSince1970: 1_800_000_000))
        #expect(
            text == #"{"access_token":"at","expires_at":"2027-01-15T08:01:00Z","expires_in":60,"#
                + #""token_type":"bearer","x":1}"#)
    }

    @Test(
        "durations for people",
        arguments: [
            (0, "0 s"), (59, "59 s"), (60, "1 min"), (3599, "59 min"), (3600, "1 h"), (5400, "1 h 30 min"),
            (86_400, "1 d"), (97_200, "1 d 3 h"), (-5, "0 s"), (36_500 * 86_400 - 1, "36499 d 23 h"),
            (36_500 * 86_400, "over 100 years"), (Int.max, "over 100 years"), (Int.min, "0 s"),
        ])
    func durations(seconds: Int, text: String) {
        #expect(TokenOutput.duration(seconds: seconds) == text)
    }

    @Test("the signed-in user comes from a verified ID token only")
    func signedInUser() {
        func jwt(_ claims: String) -> String {
            func encode(_ text: String) -> String {
                Data(text.utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
                    .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            }
            return encode(#"{"alg":"RS256"}"#) + "." + encode(claims) + ".c2ln"
        }
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let good = jwt(
            #"{"iss":"https://a","sub":"s1","aud":"cli","exp":1800003600,"iat":1800000000,"#
                + #""email":"ada@example.test"}"#)
        func verdict(_ outcome: IDTokenVerification.Outcome, _ problem: String? = nil) -> IDTokenVerification {
            IDTokenVerification(outcome: outcome, problem: problem, tokenDigest: "d", checkedAt: now)
        }
        #expect(TokenOutput.signedInUser(idToken: good, verification: verdict(.verified)).label == "ada@example.test")
        let refused = TokenOutput.signedInUser(idToken: good, verification: verdict(.refused, "bad\nsignature"))
        #expect(refused.label == nil)
        #expect(refused.problem == "bad signature" || refused.problem?.contains("\n") == false)
        let unchecked = TokenOutput.signedInUser(idToken: good, verification: nil)
        #expect(unchecked.label == nil)
        #expect(unchecked.problem == "it was not checked")
        #expect(TokenOutput.signedInUser(idToken: "garbage", verification: verdict(.verified)).label == nil)
        #expect(TokenOutput.signedInUser(idToken: nil, verification: nil) == (nil, nil))
    }
}
