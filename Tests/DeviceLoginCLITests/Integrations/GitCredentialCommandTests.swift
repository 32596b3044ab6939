import DeviceLogin
import DeviceLoginTesting
import Foundation
import Testing

@testable import DeviceLoginCLI

/// `device-login git-credential` in process, against profiles signed in at the mock server: every operation and
/// branch, and malformed input.
@Suite("git-credential: git's credential helper")
struct GitCredentialCommandTests {
    private static let host = "git.example.test"
    private static let request = "protocol=https\nhost=\(host)\n"

    /// The answer git reads for `token` as stored for `profile`.
    private static func answer(
        _ fixture: HelperFixture, profile: String = "default", username: String = "oauth2"
    ) async throws -> String {
        let tokens = try #require(try await fixture.tokens(profile))
        let expiry = try #require(tokens.expiresAt)
        let seconds = Int64(expiry.timeIntervalSince1970.rounded(.down))
        return "username=\(username)\npassword=\(tokens.accessToken)\npassword_expiry_utc=\(seconds)\n"
    }

    @Test("get: the profile bound to the host answers its stored token, with no request")
    func get() async throws {
        let fixture = try HelperFixture()
        defer { fixture.remove() }
        let token = try await fixture.signIn(bindings: ["https://\(Self.host)"])
        let before = fixture.model.requests.count
        for input in [Self.request + "\n", Self.request, "protocol=https\r\nhost=\(Self.host)\r\n\r\n"] {
            let result = await fixture.run(["git-credential", "get"], input: input)
            #expect(result.code == .success)
            #expect(result.stdout == (try await Self.answer(fixture)))
            #expect(result.stdout.contains("password=\(token)\n"))
            #expect(result.stderr.isEmpty)
        }
        #expect(fixture.model.requests.count == before)
    }

    @Test("get: a token that would expire is refreshed first, once; --verbose never shows it")
    func refreshes() async throws {
        let fixture = try HelperFixture()
        defer { fixture.remove() }
        let first = try await fixture.signIn(bindings: ["https://\(Self.host)"])
        try await fixture.expire()
        let result = await fixture.run(["git-credential", "--verbose", "get"], input: Self.request)
        #expect(result.code == .success)
        #expect(fixture.model.refreshRequestCount == 1)
        let fresh = try #require(try await fixture.tokens()).accessToken
        #expect(fresh != first)
        #expect(fixture.model.isValid(accessToken: fresh))
        #expect(result.stdout == (try await Self.answer(fixture)))
        #expect(result.stderr.contains("device-login: profile: default serves https://\(Self.host)"))
        #expect(!result.stderr.contains(fresh) && !result.stderr.contains(first))
    }

    @Test(
        "get answers nothing, exit 0, where no profile serves: git asks its next helper",
        arguments: [
            "protocol=https\nhost=other.example.test\n",
            "protocol=http\nhost=\(host)\n",
            "protocol=https\nhost=\(host):8443\n",
            "protocol=ssh\nhost=\(host)\n",
            "protocol=cert\nhost=\npath=/etc/cert.p12\n",
            "protocol=https\n",
            "host=\(host)\n",
            "",
            "\n",
        ])
    func notServed(input: String) async throws {
        let fixture = try HelperFixture()
        defer { fixture.remove() }
        try await fixture.signIn(bindings: ["https://\(Self.host)"])
        let result = await fixture.run(["git-credential", "get"], input: input)
        #expect(result.code == .success)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.isEmpty)
    }

    @Test("get with no profile at all: nothing, exit 0")
    func noProfiles() async throws {
        let fixture = try HelperFixture()
        defer { fixture.remove() }
        let result = await fixture.run(["git-credential", "get"], input: Self.request)
        #expect(result.code == .success)
        #expect(result.stdout.isEmpty && result.stderr.isEmpty)
    }

    @Test("a path binding serves its repositories only when git sends the path (credential.useHttpPath)")
    func pathBinding() async throws {
        let fixture = try HelperFixture()
        defer { fixture.remove() }
        try await fixture.signIn("host", bindings: ["https://\(Self.host)"])
        try await fixture.signIn("team", bindings: ["https://\(Self.host)/team"])
        let team = await fixture.run(["git-credential", "get"], input: Self.request + "path=team/app.git\n")
        #expect(team.stdout == (try await Self.answer(fixture, profile: "team")))
        let teamwork = await fixture.run(["git-credential", "get"], input: Self.request + "path=teamwork/app.git\n")
        #expect(teamwork.stdout == (try await Self.answer(fixture, profile: "host")))
        let noPath = await fixture.run(["git-credential", "get"], input: Self.request)
        #expect(noPath.stdout == (try await Self.answer(fixture, profile: "host")))
    }

    @Test("two profiles that serve a URL equally well: an error naming both (78), nothing on stdout")
    func tie() async throws {
        let fixture = try HelperFixture()
        defer { fixture.remove() }
        try await fixture.signIn("a", bindings: ["https://\(Self.host)"])
        try await fixture.signIn("b", bindings: ["https://\(Self.host)/"])
        let result = await fixture.run(["git-credential", "get"], input: Self.request)
        #expect(result.code == .configuration)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("profiles 'a' and 'b' both serve https://\(Self.host)"))
        let chosen = await fixture.run(["git-credential", "--profile", "b", "get"], input: Self.request)
        #expect(chosen.stdout == (try await Self.answer(fixture, profile: "b")))
    }

    @Test("--profile wins over the bindings, for any http(s) host, and only for http(s)")
    func namedProfile() async throws {
        let fixture = try HelperFixture()
        defer { fixture.remove() }
        try await fixture.signIn("work", bindings: [])
        let result = await fixture.run(
            ["git-credential", "--profile", "work", "get"], input: "protocol=https\nhost=anything.example\n")
        #expect(result.code == .success)
        #expect(result.stdout == (try await Self.answer(fixture, profile: "work")))
        let ssh = await fixture.run(
            ["git-credential", "--profile", "work", "get"], input: "protocol=ssh\nhost=anything.example\n")
        #expect(ssh.code == .success)
        #expect(ssh.stdout.isEmpty)
    }

    @Test("a missing --profile, or a bound profile signed out: quit=1, exit 77, one line naming login")
    func signInNeeded() async throws {
        let fixture = try HelperFixture()
        defer { fixture.remove() }
        try await fixture.saveSignedOut("work", bindings: ["https://\(Self.host)"])
        let cases: [([String], String)] = [
            (
                ["--profile", "missing"],
                "there is no profile 'missing'; sign in with: device-login login --profile missing"
            ),
            ([], "not signed in (profile work); sign in with: device-login login --profile work --issuer"),
            (["--profile", "work"], "sign in with: device-login login --profile work"),
        ]
        for (options, message) in cases {
            let result = await fixture.run(["git-credential"] + options + ["get"], input: Self.request)
            #expect(result.code == .notSignedIn)
            #expect(result.stdout == "quit=1\n")
            #expect(result.stderr.contains(message), "\(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1)
        }
        let erase = await fixture.run(
            ["git-credential", "--profile", "missing", "erase"], input: Self.request + "password=p\n")
        #expect(erase.code == .notSignedIn)
        #expect(erase.stdout.isEmpty)
        #expect(fixture.model.requests(to: .token).isEmpty)
    }

    @Test(
        "the user name: git's, unless the profile names another user",
        arguments: [
            (nil, nil, "oauth2"), ("", nil, "oauth2"), ("oauth2", nil, "oauth2"), ("alice", nil, "alice"),
            (nil, "bob", "bob"), ("bob", "bob", "bob"), ("alice", "bob", nil), ("oauth2", "bob", nil),
            ("Bob", "bob", nil), ("", "bob", "bob"),
        ] as [(String?, String?, String?)])
    func username(asked: String?, profileUsername: String?, answer: String?) throws {
        let profile = try Profile(
            endpoints: ServerEndpoints(
                deviceAuthorization: URL(string: "https://a.example/device"),
                token: try #require(URL(string: "https://a.example/token"))),
            clientID: "app", username: profileUsername)
        #expect(GitCredentialCommand.answerUsername(asked: asked, profile: profile) == answer)
    }

    @Test("get with git's user name: answered under it, or not at all when the profile is another user's")
    func usernameAnswers() async throws {
        let fixture = try HelperFixture()
        defer { fixture.remove() }
        try await fixture.signIn("open", bindings: ["https://\(Self.host)"])
        try await fixture.signIn("bob", bindings: ["https://bob.example.test"], username: "bob")
        let alice = await fixture.run(["git-credential", "get"], input: Self.request + "username=alice\n")
        #expect(alice.stdout == (try await Self.answer(fixture, profile: "open", username: "alice")))
        let bob = await fixture.run(["git-credential", "get"], input: "protocol=https\nhost=bob.example.test\n")
        #expect(bob.stdout == (try await Self.answer(fixture, profile: "bob", username: "bob")))
        let other = await fixture.run(
            ["git-credential", "get"], input: "protocol=https\nhost=bob.example.test\nusername=alice\n")
        #expect(other.code == .success)
        #expect(other.stdout.isEmpty)
        #expect(other.stderr.isEmpty)
    }

    @Test("store: accepted and ignored, whatever the profile, input read and dropped")
    func store() async throws {
        let fixture = try HelperFixture()
        defer { fixture.remove() }
        let token = try await fixture.signIn(bindings: ["https://\(Self.host)"])
        for options in [[], ["--profile", "missing"]] {
            let result = await fixture.run(
                ["git-credential"] + options + ["store"],
                input: Self.request + "username=oauth2\npassword=something-else\npassword_expiry_utc=1\n")
            #expect(result.code == .success)
            #expect(result.stdout.isEmpty && result.stderr.isEmpty)
        }
        #expect(try await fixture.tokens()?.accessToken == token)
    }

    @Test("erase marks only the refused token expired; the next get refreshes it (one refresh at the server)")
    func erase() async throws {
        let fixture = try HelperFixture()
        defer { fixture.remove() }
        let first = try await fixture.signIn(bindings: ["https://\(Self.host)"])
        let expiry = try #require(try await fixture.tokens()?.expiresAt)

        // Another password (another helper's, or an older token): nothing marked, nothing refreshed.
        for password in ["not-the-token", first + "x", ""] {
            let other = await fixture.run(
                ["git-credential", "erase"], input: Self.request + "username=oauth2\npassword=\(password)\n")
            #expect(other.code == .success)
            #expect(other.stdout.isEmpty && other.stderr.isEmpty)
        }
        let noPassword = await fixture.run(["git-credential", "erase"], input: Self.request)
        #expect(noPassword.code == .success)
        #expect(try await fixture.tokens()?.expiresAt == expiry)
        let unchanged = await fixture.run(["git-credential", "get"], input: Self.request)
        #expect(unchanged.stdout.contains("password=\(first)\n"))
        #expect(fixture.model.refreshRequestCount == 0)

        let erased = await fixture.run(
            ["git-credential", "--verbose", "erase"], input: Self.request + "username=oauth2\npassword=\(first)\n")
        #expect(erased.code == .success)
        #expect(erased.stdout.isEmpty)
        #expect(erased.stderr.contains("the refused access token is marked expired"))
        #expect(!erased.stderr.contains(first))
        let stale = try #require(try await fixture.tokens())
        #expect(stale.accessToken == first)
        #expect(stale.refreshToken != nil)
        #expect(try #require(stale.expiresAt) < Date())

        let refreshed = await fixture.run(["git-credential", "get"], input: Self.request)
        #expect(refreshed.code == .success)
        #expect(fixture.model.refreshRequestCount == 1)
        let second = try #require(try await fixture.tokens()).accessToken
        #expect(second != first)
        #expect(refreshed.stdout == (try await Self.answer(fixture)))

        // git erases the first token again, late: the new one stays.
        _ = await fixture.run(["git-credential", "erase"], input: Self.request + "password=\(first)\n")
        let again = await fixture.run(["git-credential", "get"], input: Self.request)
        #expect(again.stdout.contains("password=\(second)\n"))
        #expect(fixture.model.refreshRequestCount == 1)
    }

    @Test("erase where no profile serves: nothing, exit 0")
    func eraseNotServed() async throws {
        let fixture = try HelperFixture()
        defer { fixture.remove() }
        let token = try await fixture.signIn(bindings: ["https://\(Self.host)"])
        let result = await fixture.run(
            ["git-credential", "erase"], input: "protocol=https\nhost=other.example.test\npassword=\(token)\n")
        #expect(result.code == .success)
        #expect(result.stdout.isEmpty && result.stderr.isEmpty)
        #expect(try await fixture.tokens()?.accessToken == token)
        #expect(try #require(try await fixture.tokens()?.expiresAt) > Date())
    }

    @Test(
        "another operation is ignored without reading stdin, as gitcredentials(7) asks",
        arguments: ["capability", "frob"])
    func otherOperation(operation: String) async throws {
        let fixture = try HelperFixture()
        defer { fixture.remove() }
        let result = await fixture.run(["git-credential", operation], bytes: [0, 1, 2])
        #expect(result.code == .success)
        #expect(result.stdout.isEmpty && result.stderr.isEmpty)
    }

    @Test("no operation: a usage error")
    func noOperation() async throws {
        let fixture = try HelperFixture()
        defer { fixture.remove() }
        let result = await fixture.run(["git-credential"])
        #expect(result.code == .usage)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("device-login: give the operation (get, store or erase)"))
        let two = await fixture.run(["git-credential", "get", "store"])
        #expect(two.code == .usage)
    }

    /// Input that is not git's request, and what the error says.
    static let malformed: [(NamedInput, String)] = [
        (NamedInput("garbage", "garbage\n"), "line 1 of the request on standard input is not key=value"),
        (NamedInput("a last line without =", "protocol=https\nhost=\(host)\nnot a pair"), "line 3 of the request"),
        (NamedInput.megabyteLine(), "longer than 65536 bytes"),
        (NamedInput.megabyteLine(after: "password="), "longer than 65536 bytes"),
        (NamedInput("a NUL byte", "protocol=https\nhost=\(host)\npassword=a\0b\n"), "contains a NUL byte"),
        (NamedInput("binary", [0xFF, 0xFE, 0x00, 0x0A]), "contains a NUL byte"),
        (
            NamedInput("a host that is no host", "protocol=https\nhost=bad host\n"),
            "the host and path git sent make no URL"
        ),
    ]

    @Test("malformed input: one line on stderr, exit 64, nothing on stdout", arguments: malformed)
    func malformedInput(input: NamedInput, message: String) async throws {
        let fixture = try HelperFixture()
        defer { fixture.remove() }
        let token = try await fixture.signIn(bindings: ["https://\(Self.host)"])
        for operation in ["get", "store", "erase"] {
            let result = await fixture.run(["git-credential", operation], bytes: input.bytes)
            #expect(result.code == .usage, "\(operation)")
            #expect(result.stdout.isEmpty)
            #expect(result.stderr.hasPrefix("device-login: git-credential: "))
            #expect(result.stderr.contains(message), "\(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1)
            #expect(!result.stderr.contains(token))
        }
    }

    /// Requests that git's helper refuses, a value of every attribute marked `hunter2` (or the user `alice`).
    static let secretBearing: [NamedInput] = [
        NamedInput("user information in host", "protocol=https\nhost=alice:hunter2@\(host)\n"),
        NamedInput("a space in host", "protocol=https\nhost=hunter2 .example\nusername=alice\n"),
        NamedInput("a bad port", "protocol=https\nhost=\(host):hunter2\npassword=hunter2\n"),
        NamedInput("a path in host", "protocol=http\nhost=\(host)/hunter2\n"),
        NamedInput("a bad IPv6 host", "protocol=https\nhost=[hunter2\n"),
        NamedInput("a bad escape in path", "protocol=https\nhost=\(host)\npath=team/%hunter2\n"),
        NamedInput("a line without =", "username=alice\npassword=hunter2\nhunter2\n"),
        NamedInput("a NUL in password", "protocol=https\nhost=\(host)\npassword=hunter2\0\n"),
        NamedInput(
            "wwwauth, url and a bad host",
            "wwwauth[]=Bearer realm=hunter2\nurl=https://alice:hunter2@\(host)\nprotocol=https\n"
                + "host=alice:hunter2@\(host)\n"),
        NamedInput(
            "capability and a long password",
            "capability[]=hunter2\npassword=" + String(repeating: "hunter2", count: 10_000)),
    ]

    @Test("an error names what is wrong, never a value of the request", arguments: secretBearing)
    func errorsQuoteNothing(input: NamedInput) async throws {
        let fixture = try HelperFixture()
        defer { fixture.remove() }
        try await fixture.signIn(bindings: ["https://\(Self.host)"])
        for operation in ["get", "store", "erase"] {
            let result = await fixture.run(["git-credential", operation], bytes: input.bytes)
            #expect(result.code == .usage, "\(operation): \(result.stderr)")
            #expect(result.stdout.isEmpty)
            #expect(!result.stderr.contains("hunter2") && !result.stderr.contains("alice"), "\(result.stderr)")
        }
    }

    @Test("--profile answers no plain-http host but a loopback one: the token never crosses the network in clear")
    func pinnedPlainHTTP() async throws {
        let fixture = try HelperFixture()
        defer { fixture.remove() }
        let token = try await fixture.signIn("work", bindings: [])
        let result = await fixture.run(
            ["git-credential", "--profile", "work", "get"], input: "protocol=http\nhost=\(Self.host)\n")
        #expect(result.code == .configuration, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("plain HTTP"), "\(result.stderr)")
        #expect(!result.stderr.contains(token))
        let loopback = await fixture.run(
            ["git-credential", "--profile", "work", "get"], input: "protocol=http\nhost=127.0.0.1:8080\n")
        #expect(loopback.code == .success, "\(loopback.stderr)")
        #expect(loopback.stdout.contains("password=\(token)\n"))
    }

    @Test("a path is matched as a URL: dot segments and encodings cannot pick another team's profile")
    func normalisedPath() async throws {
        let fixture = try HelperFixture()
        defer { fixture.remove() }
        try await fixture.signIn("team-a", bindings: ["https://\(Self.host)/team-a"])
        try await fixture.signIn("team-b", bindings: ["https://\(Self.host)/team-b"])
        let request = "protocol=https\nhost=\(Self.host)\npath="
        let climbing = await fixture.run(["git-credential", "get"], input: request + "team-b/../team-a/app.git\n")
        #expect(climbing.stdout == (try await Self.answer(fixture, profile: "team-a")))
        let encoded = await fixture.run(["git-credential", "get"], input: request + "%74eam-b/app.git\n")
        #expect(encoded.stdout == (try await Self.answer(fixture, profile: "team-b")))
        let longer = await fixture.run(["git-credential", "get"], input: request + "team-ab/app.git\n")
        #expect(longer.code == .success && longer.stdout.isEmpty)
    }

    @Test("password_expiry_utc: whole seconds, rounded down; none for dates out of range")
    func expirySeconds() {
        #expect(GitCredentialCommand.unixSeconds(Date(timeIntervalSince1970: 1_700_000_000.9)) == 1_700_000_000)
        #expect(GitCredentialCommand.unixSeconds(Date(timeIntervalSince1970: 0)) == 0)
        #expect(GitCredentialCommand.unixSeconds(Date(timeIntervalSince1970: -1)) == nil)
        #expect(GitCredentialCommand.unixSeconds(Date(timeIntervalSince1970: 1e13)) == nil)
        #expect(GitCredentialCommand.unixSeconds(.distantFuture) == 64_092_211_200)
    }
}

/// The built binary as git runs it: its errors for hostile input, and a pinned profile asked for a plain-http host.
@Suite("git-credential: the real binary", .serialized, .timeLimit(.minutes(2)))
struct GitCredentialProgramTests {
    @Test("input with a password in it: exit 64, one line, no value of the input")
    func inputErrorsQuoteNothing() async throws {
        let home = try BinaryHarness.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        _ = try await ProcessHarness.saveSignedInProfile(home: home)
        for input in GitCredentialCommandTests.secretBearing {
            for arguments in [["git-credential", "get"], ["git-credential", "--profile", "default", "get"]] {
                let run = try await ProcessHarness.run(
                    arguments, environment: ["DEVICE_LOGIN_HOME": home.path], input: Data(input.bytes))
                #expect(run.status == 64, "\(input.name): \(run.stderr)")
                #expect(run.stdout.isEmpty)
                #expect(!run.stderr.contains("hunter2") && !run.stderr.contains("alice"), "\(run.stderr)")
            }
        }
    }

    @Test("--profile and a plain-http host: refused (78), nothing on stdout; loopback http is answered")
    func pinnedPlainHTTP() async throws {
        let home = try BinaryHarness.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let token = try await ProcessHarness.saveSignedInProfile(home: home)
        let environment = ["DEVICE_LOGIN_HOME": home.path]
        let arguments = ["git-credential", "--profile", "default", "get"]
        let refused = try await ProcessHarness.run(
            arguments, environment: environment, input: Data("protocol=http\nhost=git.example.test\n".utf8))
        #expect(refused.status == 78, "\(refused.stderr)")
        #expect(refused.stdout.isEmpty)
        #expect(!refused.stderr.contains(token))
        let loopback = try await ProcessHarness.run(
            arguments, environment: environment, input: Data("protocol=http\nhost=localhost:3000\n".utf8))
        #expect(loopback.status == 0, "\(loopback.stderr)")
        #expect(loopback.stdout.contains("password=\(token)\n"))
        let https = try await ProcessHarness.run(
            arguments, environment: environment, input: Data("protocol=https\nhost=git.example.test\n".utf8))
        #expect(https.stdout.contains("password=\(token)\n"))
    }
}
