import DeviceLogin
import Foundation
import Testing

@testable import DeviceLoginCLI

@Suite("PAMUserMap: username_map, claim values to local users")
struct PAMUserMapTests {
    @Test("lines map values to users; a value may map to several; comments, blanks and CR LF ignored")
    func parse() throws {
        let map = try PAMUserMap.parse(
            "# who is who\r\nalice@example.com = alice\r\n\nalice@example.com = admin\nbob@example.com=bob\n"
                + "odd=value@x = carol\n")
        #expect(map.allows("alice@example.com", as: "alice"))
        #expect(map.allows("alice@example.com", as: "admin"))
        #expect(map.allows("bob@example.com", as: "bob"))
        #expect(map.allows("odd=value@x", as: "carol"))
        #expect(!map.allows("bob@example.com", as: "alice"))
        #expect(!map.allows("Alice@example.com", as: "alice"))
        #expect(!map.allows("alice", as: "alice"))
    }

    @Test(
        "refused, with the line",
        arguments: [
            ("a = b\nno mapping here\n", 2),
            ("a = \n", 1),
            (" = b\n", 1),
            ("a = b c\n", 1),
            ("a\u{1B}[2J = b\n", 1),
            ("a = b\u{200B}\n", 1),
        ])
    func refused(text: String, line: Int) {
        #expect {
            try PAMUserMap.parse(text)
        } throws: { error in
            (error as? PAMConfiguration.Problem)?.line == line
        }
    }

    @Test("bounded: the file's size")
    func bounded() {
        let big = String(repeating: "# padding padding padding\n", count: PAMUserMap.maximumFileBytes / 20)
        #expect(throws: PAMConfiguration.Problem.self) { try PAMUserMap.parse(big) }
    }

    @Test(
        "with a mapping, the claim must map to the user; without, equal it",
        arguments: [
            ("alice@example.com", "alice", true, PAMDecision.Verdict.allow),
            ("alice@example.com", "root", true, .deny),
            ("alice", "alice", true, .deny),
            ("alice", "alice", false, .allow),
        ])
    func decision(claim: String, user: String, mapped: Bool, verdict: PAMDecision.Verdict) throws {
        let claims = try IDTokenClaims(jsonObject: [
            "iss": .string("https://id.example.com"), "sub": .string("u-1"), "aud": .string("ssh-box"),
            "iat": .number(1_800_000_000), "exp": .number(1_800_003_600), "preferred_username": .string(claim),
        ])
        let configuration = try PAMConfiguration.parse("issuer = https://id.example.com\nclient_id = ssh-box\n")
        let map = mapped ? try PAMUserMap.parse("alice@example.com = alice\n") : nil
        let decision = PAMDecision.decide(claims: claims, user: user, configuration: configuration, map: map)
        #expect(decision.verdict == verdict, "\(decision.reason)")
    }
}
