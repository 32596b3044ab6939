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

    @Test("the signed-in user comes from a valid ID token only")
    func signedInUser() {
        func jwt(_ claims: String) -> String {
            func encode(_ text: String) -> String {
                Data(text.utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
                    .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            }
            return encode(#"{"alg":"none"}"#) + "." + encode(claims) + "."
        }
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let good = jwt(
            #"{"iss":"https://a","sub":"s1","aud":"cli","exp":1800003600,"iat":1800000000,"#
                + #""email":"ada@example.test"}"#)
        #expect(
            TokenOutput.signedInUser(idToken: good, issuer: "https://a", clientID: "cli", now: now).label
                == "ada@example.test")
        let otherAudience = TokenOutput.signedInUser(idToken: good, issuer: "https://a", clientID: "other", now: now)
        #expect(otherAudience.label == nil)
        #expect(otherAudience.problem != nil)
        let otherIssuer = TokenOutput.signedInUser(idToken: good, issuer: "https://evil", clientID: "cli", now: now)
        #expect(otherIssuer.label == nil)
        #expect(TokenOutput.signedInUser(idToken: "garbage", issuer: nil, clientID: "cli", now: now).problem != nil)
        #expect(TokenOutput.signedInUser(idToken: nil, issuer: nil, clientID: "cli", now: now).label == nil)
    }
}
