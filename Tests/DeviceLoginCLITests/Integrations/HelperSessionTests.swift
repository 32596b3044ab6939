import DeviceLogin
import Foundation
import Testing

@testable import DeviceLoginCLI

@Suite("HelperSession: the profile for a URL, and the non-interactive contract")
struct HelperSessionTests {
    /// Saves profile `name` bound to `bindings`, with tokens valid for an hour (or none).
    private func save(
        _ name: String, _ bindings: [String], tokens: Bool = true, in fixture: ProfileFixture
    ) async throws {
        let endpoints = ServerEndpoints(
            issuer: ProfileFixture.issuer, deviceAuthorization: URL(string: ProfileFixture.issuer + "/device")!,
            token: URL(string: ProfileFixture.issuer + "/token")!)
        let profile = try Profile(
            name: name, issuer: ProfileFixture.issuer, endpoints: endpoints, clientID: ProfileFixture.clientID,
            bindings: try bindings.map(URLBinding.init))
        let set = TokenSet(
            accessToken: "AT-\(name)", expiresAt: Date().addingTimeInterval(3600), refreshToken: "RT", issuedAt: Date())
        try await FileTokenStore(directory: fixture.home.path).save(
            ProfileRecord(profile: profile, tokens: tokens ? set : nil))
    }

    private func open(
        _ url: String, _ words: [String] = [], fixture: ProfileFixture
    ) async throws -> (session: HelperSession?, stderr: String) {
        let (context, _, stderr) = CLIHarness.context(environment: fixture.environment)
        let options = try ArgumentParser.parse(
            words, options: HelperSession.options, command: "test", environment: [:], maximumPositionals: 0)
        let session = try await HelperSession.open(
            options, serving: try URLBinding(url), command: "test", context: context)
        return (session, stderr())
    }

    @Test("the longest matching binding wins; a URL no profile serves gets nil; unbound profiles never match")
    func longestMatch() async throws {
        let fixture = try ProfileFixture()
        defer { fixture.remove() }
        try await save("host", ["https://git.example.com"], in: fixture)
        try await save("team", ["https://git.example.com/team"], in: fixture)
        try await save("unbound", [], in: fixture)
        #expect(
            try await open("https://git.example.com/team/app.git", fixture: fixture).session?.profile.name == "team")
        #expect(
            try await open("https://git.example.com/other/app.git", fixture: fixture).session?.profile.name == "host")
        #expect(try await open("https://git.example.com", fixture: fixture).session?.profile.name == "host")
        #expect(try await open("https://gitlab.example.com", fixture: fixture).session == nil)
        #expect(try await open("http://git.example.com", fixture: fixture).session == nil)
    }

    @Test("--profile wins over the bindings; a --profile that does not exist asks for a sign-in")
    func explicitProfile() async throws {
        let fixture = try ProfileFixture()
        defer { fixture.remove() }
        try await save("team", ["https://git.example.com/team"], in: fixture)
        try await save("other", [], in: fixture)
        let chosen = try await open("https://git.example.com/team", ["--profile", "other"], fixture: fixture)
        #expect(chosen.session?.profile.name == "other")
        await #expect(throws: SignInNeeded.self) {
            _ = try await open("https://git.example.com/team", ["--profile", "missing"], fixture: fixture)
        }
    }

    @Test("two profiles that serve a URL equally well: a configuration error naming both")
    func tie() async throws {
        let fixture = try ProfileFixture()
        defer { fixture.remove() }
        try await save("a", ["https://git.example.com"], in: fixture)
        try await save("b", ["https://GIT.example.com:443/"], in: fixture)
        do {
            _ = try await open("https://git.example.com/x", fixture: fixture)
            Issue.record("a tie was accepted")
        } catch let error as DeviceLoginError {
            #expect(error.code == .configuration)
            // The binding they share, not the URL asked for, which the message does not quote.
            #expect(error.message == "profiles 'a' and 'b' both serve https://git.example.com")
        }
    }

    @Test("a profile file that cannot be read is skipped with a warning; the others still serve")
    func unreadableProfile() async throws {
        let fixture = try ProfileFixture()
        defer { fixture.remove() }
        try await save("good", ["https://git.example.com"], in: fixture)
        let broken = try FileTokenStore(directory: fixture.home.path).filePath(profile: "broken")
        try Data("{not json".utf8).write(to: URL(fileURLWithPath: broken))
        let result = try await open("https://git.example.com", fixture: fixture)
        #expect(result.session?.profile.name == "good")
        #expect(result.stderr.hasPrefix("device-login: warning: profile 'broken' cannot be read, skipped: "))
    }

    @Test("a fresh token needs no request while valid; a profile without tokens asks for a sign-in, naming it")
    func freshTokenAndSignInNeeded() async throws {
        let fixture = try ProfileFixture()
        defer { fixture.remove() }
        try await save("work", ["https://git.example.com"], in: fixture)
        try await save("gone", ["https://gone.example.com"], tokens: false, in: fixture)
        let session = try #require(try await open("https://git.example.com", fixture: fixture).session)
        let fresh = try await session.freshToken()
        #expect(fresh.token == "AT-work")
        #expect(fresh.expiresAt.map { $0 > Date().addingTimeInterval(3500) } == true)

        let gone = try #require(try await open("https://gone.example.com", fixture: fixture).session)
        do {
            _ = try await gone.freshToken()
            Issue.record("a profile without tokens gave a token")
        } catch let needed as SignInNeeded {
            #expect(
                needed.line
                    == "device-login: not signed in (profile gone); sign in with: device-login login --profile gone"
                    + " --issuer \(ProfileFixture.issuer) --client-id \(ProfileFixture.clientID)")
        }
    }

    @Test("a person can answer only with a terminal on stdin and stderr and no CI")
    func interactivity() {
        var (context, _, _) = CLIHarness.context()
        #expect(!Interactivity.personCanAnswer(context))
        context.stdinIsTerminal = true
        context.terminal.isTerminal = true
        #expect(Interactivity.personCanAnswer(context))
        context.environment["CI"] = "true"
        #expect(!Interactivity.personCanAnswer(context))
        context.environment["CI"] = nil
        context.stdinIsTerminal = false
        #expect(!Interactivity.personCanAnswer(context))
    }
}
