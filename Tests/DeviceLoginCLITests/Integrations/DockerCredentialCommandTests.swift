import DeviceLogin
import DeviceLoginTesting
import Foundation
import Testing

@testable import DeviceLoginCLI

/// `device-login docker-credential` in process against profiles signed in at the mock server, and the built binary
/// run as `docker-credential-device-login` through a link.
@Suite("docker-credential: Docker's credential helper")
struct DockerCredentialCommandTests {
    private static let registry = "registry.example.test"

    /// The answer of `get` for `url`, with the token stored for `profile`.
    private static func answer(
        _ fixture: HelperFixture, url: String, profile: String = "default", username: String = "oauth2"
    ) async throws -> String {
        let token = try #require(try await fixture.tokens(profile)).accessToken
        return try DockerCredentialProtocol.credentials(serverURL: url, username: username, secret: token)
    }

    @Test("get: the bound profile's token, for the URL as Docker wrote it, with no request")
    func get() async throws {
        let fixture = try HelperFixture()
        defer { fixture.remove() }
        let token = try await fixture.signIn(bindings: ["https://\(Self.registry)"])
        let before = fixture.model.requests.count
        for (input, url) in [
            (Self.registry, Self.registry), (Self.registry + "\n", Self.registry),
            ("https://\(Self.registry)/v2/\n", "https://\(Self.registry)/v2/"),
        ] {
            let result = await fixture.run(["docker-credential", "get"], input: input)
            #expect(result.code == .success)
            #expect(result.stdout == (try await Self.answer(fixture, url: url)))
            #expect(result.stdout.contains(token))
            #expect(result.stderr.isEmpty)
        }
        #expect(fixture.model.requests.count == before)
    }

    @Test("get refreshes a token that would expire, once; --verbose never shows the token")
    func refreshes() async throws {
        let fixture = try HelperFixture()
        defer { fixture.remove() }
        let first = try await fixture.signIn(bindings: ["https://\(Self.registry)"], username: "ada")
        try await fixture.expire()
        let result = await fixture.run(["docker-credential", "--verbose", "get"], input: Self.registry)
        #expect(result.code == .success)
        #expect(fixture.model.refreshRequestCount == 1)
        let fresh = try #require(try await fixture.tokens()).accessToken
        #expect(fresh != first)
        #expect(result.stdout == (try await Self.answer(fixture, url: Self.registry, username: "ada")))
        #expect(!result.stderr.contains(fresh) && !result.stderr.contains(first))
    }

    @Test(
        "get where no profile serves: the protocol's not-found answer on stdout, exit 1",
        arguments: ["other.example.test", "http://\(registry)", "\(registry):5000", "https://other.example.test/v2/"])
    func notFound(url: String) async throws {
        let fixture = try HelperFixture()
        defer { fixture.remove() }
        try await fixture.signIn(bindings: ["https://\(Self.registry)"])
        let result = await fixture.run(["docker-credential", "get"], input: url + "\n")
        #expect(result.code == .failure)
        #expect(result.stdout == "credentials not found in native keychain\n")
        #expect(result.stderr.isEmpty)
    }

    @Test("get with --profile: that profile, whatever its bindings")
    func namedProfile() async throws {
        let fixture = try HelperFixture()
        defer { fixture.remove() }
        try await fixture.signIn("work", bindings: [])
        let result = await fixture.run(["docker-credential", "--profile", "work", "get"], input: "any.example.test")
        #expect(result.code == .success)
        #expect(result.stdout == (try await Self.answer(fixture, url: "any.example.test", profile: "work")))
    }

    @Test("get for a profile that needs a sign-in: exit 77, one line, nothing on stdout")
    func signInNeeded() async throws {
        let fixture = try HelperFixture()
        defer { fixture.remove() }
        try await fixture.saveSignedOut("work", bindings: ["https://\(Self.registry)"])
        for options in [[], ["--profile", "work"], ["--profile", "missing"]] {
            let result = await fixture.run(["docker-credential"] + options + ["get"], input: Self.registry)
            #expect(result.code == .notSignedIn)
            #expect(result.stdout.isEmpty)
            #expect(result.stderr.contains("; sign in with: device-login login --profile "), "\(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1)
        }
    }

    @Test("list: every binding of every profile, with its user name; with --profile, that profile's")
    func list() async throws {
        let fixture = try HelperFixture()
        defer { fixture.remove() }
        let empty = await fixture.run(["docker-credential", "list"], input: "unused")
        #expect(empty.code == .success)
        #expect(empty.stdout == "{}\n")
        try await fixture.signIn("a", bindings: ["https://\(Self.registry)", "http://127.0.0.1:5000/team"])
        try await fixture.signIn("b", bindings: ["https://git.example.test"], username: "ada")
        try await fixture.signIn("unbound", bindings: [])
        try await fixture.saveSignedOut("out", bindings: ["https://out.example.test"])
        let all = await fixture.run(["docker-credential", "list"], input: "unused")
        #expect(all.code == .success)
        #expect(
            all.stdout == #"{"http://127.0.0.1:5000/team":"oauth2","https://git.example.test":"ada","#
                + #""https://out.example.test":"oauth2","https://registry.example.test":"oauth2"}"# + "\n")
        #expect(all.stderr.isEmpty)
        let one = await fixture.run(["docker-credential", "--profile", "b", "list"])
        #expect(one.stdout == #"{"https://git.example.test":"ada"}"# + "\n")
        let missing = await fixture.run(["docker-credential", "--profile", "missing", "list"])
        #expect(missing.code == .notSignedIn)
        #expect(missing.stdout.isEmpty)
    }

    @Test("list: a URL two profiles serve is listed once, with a warning")
    func listTie() async throws {
        let fixture = try HelperFixture()
        defer { fixture.remove() }
        try await fixture.signIn("a", bindings: ["https://\(Self.registry)"])
        try await fixture.signIn("b", bindings: ["https://\(Self.registry)/"], username: "ada")
        let result = await fixture.run(["docker-credential", "list"])
        #expect(result.code == .success)
        #expect(result.stdout == #"{"https://registry.example.test":"oauth2"}"# + "\n")
        #expect(result.stderr.contains("profiles 'a' and 'b' both serve https://registry.example.test; listed for 'a'"))
    }

    @Test("store: accepted and dropped for a URL a profile serves; refused (78) for any other")
    func store() async throws {
        let fixture = try HelperFixture()
        defer { fixture.remove() }
        let token = try await fixture.signIn(bindings: ["https://\(Self.registry)"])
        let served = await fixture.run(
            ["docker-credential", "store"],
            input: #"{"ServerURL":"\#(Self.registry)","Username":"ada","Secret":"typed-password"}"#)
        #expect(served.code == .success)
        #expect(served.stdout.isEmpty && served.stderr.isEmpty)
        #expect(try await fixture.tokens()?.accessToken == token)
        let other = await fixture.run(
            ["docker-credential", "store"],
            input: #"{"ServerURL":"other.example.test","Username":"ada","Secret":"typed-password"}"#)
        #expect(other.code == .configuration)
        #expect(other.stdout.isEmpty)
        #expect(
            other.stderr.contains(
                "no profile serves that ServerURL (https://other.example.test), and device-login keeps no"))
        #expect(other.stderr.contains("hint: "))
        #expect(!other.stderr.contains("typed-password"))
    }

    @Test("erase (docker logout): signs nothing out and says so; nothing where no profile serves")
    func erase() async throws {
        let fixture = try HelperFixture()
        defer { fixture.remove() }
        let token = try await fixture.signIn("work", bindings: ["https://\(Self.registry)"])
        let expiry = try await fixture.tokens("work")?.expiresAt
        let served = await fixture.run(["docker-credential", "erase"], input: Self.registry + "\n")
        #expect(served.code == .success)
        #expect(served.stdout.isEmpty)
        #expect(
            served.stderr
                == "device-login: docker logout does not sign out of profile 'work' (other tools share it); "
                + "to sign out: device-login logout --profile work\n")
        #expect(try await fixture.tokens("work")?.accessToken == token)
        #expect(try await fixture.tokens("work")?.expiresAt == expiry)
        let other = await fixture.run(["docker-credential", "erase"], input: "other.example.test")
        #expect(other.code == .success)
        #expect(other.stdout.isEmpty && other.stderr.isEmpty)
    }

    @Test("no operation, or an unknown one: a usage error")
    func badOperation() async throws {
        let fixture = try HelperFixture()
        defer { fixture.remove() }
        for words in [["docker-credential"], ["docker-credential", "version"], ["docker-credential", "get", "list"]] {
            let result = await fixture.run(words)
            #expect(result.code == .usage)
            #expect(result.stdout.isEmpty)
            #expect(result.stderr.hasPrefix("device-login: "))
        }
    }

    /// Input that is not Docker's, the operations it is given to, and what the error says.
    static let malformed: [(NamedInput, [String], String)] = [
        (NamedInput("nothing", ""), ["get", "erase"], "no server URL on standard input"),
        (NamedInput("garbage", "not a url at all"), ["get", "erase"], "contains a space"),
        (NamedInput.megabyteLine(), ["get", "erase", "store"], "longer than"),
        (NamedInput("a NUL byte", "\(registry)\0\n"), ["get", "erase", "store"], "contains a NUL byte"),
        (NamedInput("another scheme", "ftp://\(registry)"), ["get", "erase"], "the scheme must be https or http"),
        (NamedInput("garbage", "garbage"), ["store"], "not a JSON object with ServerURL, Username and Secret"),
        (NamedInput("invalid JSON", #"{"ServerURL": "\#(registry)", "#), ["store"], "not a JSON object"),
        (NamedInput("no user", #"{"ServerURL":"\#(registry)","Username":"","Secret":"s"}"#), ["store"], "Username"),
        (NamedInput("no URL", #"{"ServerURL":"","Username":"u","Secret":"s"}"#), ["store"], "ServerURL"),
    ]

    /// Input that Docker's helper refuses, every field's value marked `hunter2` (or the user `alice`), and the
    /// operations it is given to.
    static let secretBearing: [(NamedInput, [String])] = [
        (NamedInput("user information", "https://alice:hunter2@\(registry)/v2/"), ["get", "erase"]),
        (NamedInput("user information without a scheme", "alice:hunter2@\(registry)"), ["get", "erase"]),
        (NamedInput("a bad port", "\(registry):hunter2"), ["get", "erase"]),
        (NamedInput("a bad escape", "https://\(registry)/%hunter2"), ["get", "erase"]),
        (NamedInput("another scheme", "ftp://hunter2.example"), ["get", "erase"]),
        (NamedInput("a space", "hunter2 alice"), ["get", "erase"]),
        (
            NamedInput(
                "ServerURL with user information",
                #"{"ServerURL":"https://alice:hunter2@\#(registry)","Username":"alice","Secret":"hunter2"}"#),
            ["store"]
        ),
        (
            NamedInput(
                "ServerURL with a bad port", #"{"ServerURL":"hunter2:0","Username":"alice","Secret":"hunter2"}"#),
            ["store"]
        ),
        (NamedInput("no Username", #"{"ServerURL":"hunter2","Username":"","Secret":"hunter2"}"#), ["store"]),
        (NamedInput("a Secret not a string", #"{"ServerURL":"r","Username":"alice","Secret":["hunter2"]}"#), ["store"]),
        (NamedInput("cut short", #"{"ServerURL":"r","Username":"alice","Secret":"hunter2"#), ["store"]),
    ]

    @Test("an error names the field, never its value", arguments: secretBearing)
    func errorsQuoteNothing(input: NamedInput, operations: [String]) async throws {
        let fixture = try HelperFixture()
        defer { fixture.remove() }
        try await fixture.signIn(bindings: ["https://\(Self.registry)"])
        for operation in operations {
            let result = await fixture.run(["docker-credential", operation], bytes: input.bytes)
            #expect(result.code == .usage, "\(operation): \(result.stderr)")
            #expect(result.stdout.isEmpty)
            #expect(!result.stderr.contains("hunter2") && !result.stderr.contains("alice"), "\(result.stderr)")
        }
    }

    @Test("--profile answers no plain-http registry but a loopback one")
    func pinnedPlainHTTP() async throws {
        let fixture = try HelperFixture()
        defer { fixture.remove() }
        let token = try await fixture.signIn("work", bindings: [])
        let refused = await fixture.run(
            ["docker-credential", "--profile", "work", "get"], input: "http://\(Self.registry)\n")
        #expect(refused.code == .configuration, "\(refused.stderr)")
        #expect(refused.stdout.isEmpty)
        #expect(refused.stderr.contains("plain HTTP"), "\(refused.stderr)")
        let loopback = await fixture.run(
            ["docker-credential", "--profile", "work", "get"], input: "http://127.0.0.1:5000\n")
        #expect(loopback.code == .success, "\(loopback.stderr)")
        #expect(loopback.stdout.contains(token))
    }

    @Test("malformed input: one line on stderr, exit 64, nothing on stdout", arguments: malformed)
    func malformedInput(input: NamedInput, operations: [String], message: String) async throws {
        let fixture = try HelperFixture()
        defer { fixture.remove() }
        let token = try await fixture.signIn(bindings: ["https://\(Self.registry)"])
        for operation in operations {
            let result = await fixture.run(["docker-credential", operation], bytes: input.bytes)
            #expect(result.code == .usage, "\(operation)")
            #expect(result.stdout.isEmpty)
            #expect(result.stderr.hasPrefix("device-login: docker-credential \(operation): "))
            #expect(result.stderr.contains(message), "\(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1)
            #expect(!result.stderr.contains(token))
        }
    }
}

/// The built binary under the name Docker runs it by: a link named `docker-credential-device-login`.
@Suite("docker-credential-device-login: the binary through a link", .serialized)
struct DockerCredentialProgramTests {
    @Test("a link named docker-credential-device-login runs docker-credential: get, list, not found, usage")
    func link() async throws {
        let home = try BinaryHarness.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let link = home.appendingPathComponent("bin/docker-credential-device-login")
        try FileManager.default.createDirectory(
            at: link.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: BinaryHarness.binary)
        let token = "access-" + UUID().uuidString
        let endpoints = ServerEndpoints(
            deviceAuthorization: URL(string: "https://auth.example.test/device"),
            token: try #require(URL(string: "https://auth.example.test/token")))
        let profile = try Profile(
            name: "registry", endpoints: endpoints, clientID: "app",
            bindings: [try URLBinding("https://registry.example.test")])
        let tokens = TokenSet(
            accessToken: token, expiresAt: Date().addingTimeInterval(3600), refreshToken: "r", issuedAt: Date())
        try await FileTokenStore(directory: home.path).save(ProfileRecord(profile: profile, tokens: tokens))
        let environment = ["DEVICE_LOGIN_HOME": home.path]

        let get = try await ProcessHarness.run(
            ["get"], environment: environment, input: Data("registry.example.test\n".utf8), executable: link)
        #expect(get.status == 0, "\(get.stderr)")
        #expect(
            get.stdout == #"{"Secret":"\#(token)","ServerURL":"registry.example.test","Username":"oauth2"}"# + "\n")
        #expect(get.stderr.isEmpty)

        let list = try await ProcessHarness.run(
            ["list"], environment: environment, input: Data("unused".utf8), executable: link)
        #expect(list.stdout == #"{"https://registry.example.test":"oauth2"}"# + "\n")

        let other = try await ProcessHarness.run(
            ["get"], environment: environment, input: Data("other.example.test".utf8), executable: link)
        #expect(other.status == 1)
        #expect(other.stdout == "credentials not found in native keychain\n")

        let usage = try await ProcessHarness.run([], environment: environment, executable: link)
        #expect(usage.status == 64)
        #expect(usage.stdout.isEmpty)
        #expect(usage.stderr.contains("give the operation: get, store, erase or list"))
    }

    @Test("input with a password in it, and a plain-http registry with --profile, through the real binary")
    func secretsAndPlainHTTP() async throws {
        let home = try BinaryHarness.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let token = try await ProcessHarness.saveSignedInProfile(home: home)
        let environment = ["DEVICE_LOGIN_HOME": home.path]
        for (input, operations) in DockerCredentialCommandTests.secretBearing {
            for operation in operations {
                let run = try await ProcessHarness.run(
                    ["docker-credential", "--profile", "default", operation], environment: environment,
                    input: Data(input.bytes))
                #expect(run.status == 64, "\(input.name) \(operation): \(run.stderr)")
                #expect(run.stdout.isEmpty)
                #expect(!run.stderr.contains("hunter2") && !run.stderr.contains("alice"), "\(run.stderr)")
            }
        }
        let refused = try await ProcessHarness.run(
            ["docker-credential", "--profile", "default", "get"], environment: environment,
            input: Data("http://registry.example.test\n".utf8))
        #expect(refused.status == 78, "\(refused.stderr)")
        #expect(refused.stdout.isEmpty)
        #expect(!refused.stderr.contains(token))
    }
}
