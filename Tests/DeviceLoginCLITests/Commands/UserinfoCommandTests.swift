import DeviceLogin
import Foundation
import Testing

@testable import DeviceLoginCLI

/// `device-login userinfo` with a server whose claim names and values are written to fake other claims.
@Suite("userinfo: hostile claim names and values")
struct UserinfoCommandTests {
    /// Claims whose names clean to the same text as another's, to nothing, or to something that looks like another.
    static let hostileClaims = #"""
        {"sub":"s1","email":"ada@example.test","email\u202E":"root@evil.test","email\u200B":"zw@evil.test",
         "name\n sub":"x","":"empty","\u200B":"invisible","\u0435mail":"homoglyph@evil.test",
         "email:":"colon","e\u001B[2Dmail":"escape","a b":"space","say \"hi\"":"quote",
         "https://example.test/groups":["admins","\nsub: root"],"note":"line one\nemail: root@evil.test"}
        """#

    private func run(_ arguments: [String], body: String) async throws -> (code: ExitCode, stdout: String) {
        let fixture = try ProfileFixture()
        defer { fixture.remove() }
        try await fixture.save(
            TokenSet(
                accessToken: "at-123456", expiresAt: Date().addingTimeInterval(3600), issuedAt: Date()
            ))
        let transport = StubTransport { request in
            guard request.url.path == "/userinfo" else { throw TransportError(.other, "unexpected request") }
            return StubTransport.json(body)
        }
        let result = await CLIHarness.run(arguments, environment: fixture.environment, transport: transport)
        #expect(result.stderr.isEmpty, "\(result.stderr)")
        return (result.code, result.stdout)
    }

    @Test("names that clean to another's, to nothing, or look like another's are shown escaped; one line each")
    func hostileNames() async throws {
        let result = try await run(["userinfo"], body: Self.hostileClaims)
        #expect(result.code == .success)
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        #expect(lines.count == 14, "one line per claim: \(lines)")
        #expect(lines.filter { $0.hasPrefix("email: ") } == ["email: ada@example.test"])
        #expect(lines.filter { $0.hasPrefix("sub: ") } == ["sub: s1"])
        for expected in [
            #""email\u202E": root@evil.test"#, #""email\u200B": zw@evil.test"#, #""name\n sub": x"#,
            #""": empty"#, #""\u200B": invisible"#, #""\u0435mail": homoglyph@evil.test"#, "email:: colon",
            #""e\u001b[2Dmail": escape"#, #""a b": space"#, #""say \"hi\"": quote"#,
            #"https://example.test/groups: ["admins","\nsub: root"]"#, "note: line one email: root@evil.test",
        ] {
            #expect(lines.contains(expected), "missing \(expected) in \(lines)")
        }
        // No two lines name the same claim.
        let names = lines.map { $0.hasPrefix("\"") ? $0 : String($0.prefix { $0 != " " }) }
        #expect(Set(names).count == names.count)
    }

    @Test("--json keeps every name as received, escaped")
    func hostileNamesAsJSON() async throws {
        let result = try await run(["userinfo", "--json"], body: Self.hostileClaims)
        #expect(result.code == .success)
        #expect(result.stdout.hasSuffix("}\n"))
        #expect(result.stdout.split(separator: "\n").count == 1)
        #expect(result.stdout.contains(#""email\u202E":"root@evil.test""#))
        #expect(result.stdout.contains(#""\u0435mail":"homoglyph@evil.test""#) || result.stdout.contains("еmail"))
        let decoded = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        #expect(decoded?.count == 14)
        #expect(decoded?["email\u{202E}"] as? String == "root@evil.test")
    }

    @Test(
        "claim names: plain ASCII as it is, anything else as an ASCII JSON literal",
        arguments: [
            ("email", "email"), ("https://example.com/groups", "https://example.com/groups"), ("email:", "email:"),
            ("", #""""#), (" ", #"" ""#), ("email\u{202E}", #""email\u202E""#), ("\u{200B}", #""\u200B""#),
            ("\u{435}mail", #""\u0435mail""#), ("a b", #""a b""#), ("\"email\"", #""\"email\"""#), ("a\\b", #""a\\b""#),
            ("名前", #""\u540D\u524D""#),
        ])
    func displayName(name: String, shown: String) {
        #expect(UserinfoCommand.displayName(name) == shown)
    }
}
