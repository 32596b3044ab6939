import DeviceLogin
import DeviceLoginTestSupport
import DeviceLoginTesting
import Foundation
import Testing

@testable import DeviceLoginCLI

/// A private home and a mock server that demands DPoP and nonces, for the CLI in process: sign-ins in virtual time,
/// and every proof the CLI prints sent to the mock's resource endpoint, which checks it.
struct DPoPCLIFixture {
    let home: URL
    let clock = ManualClock()
    let server: MockAuthorizationServer

    init(requiresNonce: Bool = true) throws {
        home = try BinaryHarness.temporaryHome()
        server = MockAuthorizationServer(
            configuration: MockAuthorizationServer.Configuration(
                clients: [.init(id: MockAuthorizationServer.Configuration.defaultClientID, requiresDPoP: true)],
                interval: 1, recording: .full, defaultScript: .approve(after: .zero),
                dpop: .init(requiresNonce: requiresNonce)),
            clock: clock)
    }

    var environment: [String: String] { ["DEVICE_LOGIN_HOME": home.path, "PATH": "/usr/bin:/bin"] }
    var store: FileTokenStore { FileTokenStore(directory: home.path) }
    var keyPath: String { home.path + "/default.dpop.jwk" }

    /// Runs the CLI in process against the mock, in virtual time.
    func run(_ arguments: [String]) async -> (code: ExitCode, stdout: String, stderr: String) {
        var (context, out, err) = CLIHarness.context(
            environment: environment, transport: InProcessTransport(server: server))
        context.clock = clock
        let code =
            (try? await clock.withAutoAdvance { [context] in await CLI.run(arguments, context: context) }) ?? .failure
        return (code, out(), err())
    }

    /// `login` at the mock, with `words` added.
    func login(_ words: [String] = ["--dpop"]) async -> (code: ExitCode, stdout: String, stderr: String) {
        await run(["login", "--issuer", server.issuer, "--client-id", "test-client", "--qr", "never"] + words)
    }

    /// Sends `headers` to the mock's resource endpoint with `method`.
    func resource(_ headers: [HTTPHeader], method: HTTPRequest.Method = .get) async throws -> HTTPResponse {
        try await InProcessTransport(server: server).send(
            HTTPRequest(method: method, url: try server.resourceEndpoint(), headers: headers))
    }

    /// The stored access token.
    func accessToken() async throws -> String {
        try #require(try await store.load(profile: "default")?.tokens?.accessToken)
    }

    func remove() { try? FileManager.default.removeItem(at: home) }
}

@Suite("DPoP in the CLI: login --dpop, status, dpop-proof, curl-config --url, exec --dpop-url, logout")
struct DPoPCommandTests {
    @Test("login --dpop: the key saved 0600 beside the profile, the profile marked, the tokens DPoP-bound")
    func login() async throws {
        let fixture = try DPoPCLIFixture()
        defer { fixture.remove() }
        let result = await fixture.login()
        #expect(result.code == .success, "\(result.stderr)")
        #expect(result.stdout.hasSuffix("; the tokens are bound to a DPoP key.\n"))
        #expect(try permissions(fixture.keyPath) == 0o600)
        let record = try #require(try await fixture.store.load(profile: "default"))
        #expect(record.profile.usesDPoP)
        #expect(record.tokens?.tokenType == "DPoP")
        let key = try #require(try await fixture.store.loadDPoPKey(profile: "default"))
        #expect(fixture.server.binding(accessToken: try await fixture.accessToken()) == (try key.thumbprint()))
        let profileText = try String(contentsOfFile: fixture.home.path + "/default.json", encoding: .utf8)
        #expect(profileText.contains(#""dpop" : true"#))
        #expect(!profileText.contains(#""d" :"#))
        // Every request proven: the first of each endpoint asked for the nonce, then accepted.
        let checks = fixture.server.requests.compactMap(\.dpop)
        #expect(checks.map(\.verdict).first == .nonceDemanded)
        #expect(checks.last?.verdict == .accepted)
        #expect(checks.allSatisfy { $0.thumbprint == (try? key.thumbprint()) })
    }

    @Test("status: the token type, DPoP, and where its key is; status --json: \"token_type\": \"DPoP\"")
    func status() async throws {
        let fixture = try DPoPCLIFixture()
        defer { fixture.remove() }
        #expect(await fixture.login().code == .success)
        let text = await fixture.run(["status"])
        #expect(text.code == .success)
        #expect(text.stdout.contains("  token type:     DPoP (bound to the key in \(fixture.keyPath))\n"))
        let json = await fixture.run(["status", "--json"])
        let document = try JSONDecoder().decode(JSONObject.self, from: Data(json.stdout.utf8))
        guard case .array(let profiles)? = document["profiles"], case .object(let object)? = profiles.first else {
            Issue.record("status --json has no profiles list: \(json.stdout)")
            return
        }
        #expect(profiles.count == 1)
        #expect(object["token_type"] == .string("DPoP"))
        #expect(object["dpop"] == .bool(true))
        #expect(object["dpop_key"] == .string(fixture.keyPath))
    }

    @Test("dpop-proof: one proof on stdout that the resource server accepts with the token, once")
    func dpopProof() async throws {
        let fixture = try DPoPCLIFixture()
        defer { fixture.remove() }
        #expect(await fixture.login().code == .success)
        let url = try fixture.server.resourceEndpoint().absoluteString
        let proof = await fixture.run(["dpop-proof", "--url", url + "?page=2"])
        #expect(proof.code == .success, "\(proof.stderr)")
        #expect(proof.stderr.isEmpty)
        let lines = proof.stdout.split(separator: "\n")
        #expect(lines.count == 1)
        let token = await fixture.run(["token"]).stdout.trimmingCharacters(in: .newlines)
        let headers = [HTTPHeader("Authorization", "DPoP " + token), HTTPHeader("DPoP", String(lines[0]))]
        #expect(try await fixture.resource(headers).status == 200)
        #expect(try await fixture.resource(headers).status == 401) // a proof is good once
        let post = await fixture.run(["dpop-proof", "--url", url, "--method", "post"])
        let forPost = [HTTPHeader("Authorization", "DPoP " + token), HTTPHeader("DPoP", post.stdout.trimmed())]
        #expect(try await fixture.resource(forPost).status == 401) // made for POST, sent with GET
        // Refused before its jti was taken, it is still good for the request it was made for.
        #expect(try await fixture.resource(forPost, method: .post).status == 200)
    }

    @Test("curl-config --url: Authorization: DPoP and the proof, as curl config lines the resource server accepts")
    func curlConfig() async throws {
        let fixture = try DPoPCLIFixture()
        defer { fixture.remove() }
        #expect(await fixture.login().code == .success)
        let url = try fixture.server.resourceEndpoint().absoluteString
        let config = await fixture.run(["curl-config", "--url", url])
        #expect(config.code == .success, "\(config.stderr)")
        let lines = config.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        #expect(lines[0] == #"header = "Authorization: DPoP \#(try await fixture.accessToken())""#)
        #expect(lines[1].hasPrefix(#"header = "DPoP: ey"#))
        let headers = lines.map { line in
            let value = line.dropFirst(#"header = ""#.count).dropLast()
            let colon = value.firstIndex(of: ":") ?? value.startIndex
            return HTTPHeader(String(value[..<colon]), String(value[value.index(after: colon)...]).trimmed())
        }
        #expect(try await fixture.resource(headers).status == 200)
    }

    @Test("curl-config of a DPoP profile without --url, or --method without --url: a usage error naming --url")
    func curlConfigUsage() async throws {
        let fixture = try DPoPCLIFixture()
        defer { fixture.remove() }
        #expect(await fixture.login().code == .success)
        let bare = await fixture.run(["curl-config"])
        #expect(bare.code == .usage)
        #expect(bare.stdout.isEmpty)
        #expect(
            bare.stderr.hasPrefix(
                "device-login: profile 'default' uses DPoP: give --url (and --method unless GET), the request the"
                    + " proof is for\n"))
        let method = await fixture.run(["curl-config", "--method", "POST"])
        #expect(method.code == .usage)
        #expect(method.stderr.hasPrefix("device-login: --method needs --url, the URL of the request\n"))
    }

    @Test("exec --dpop-url: the token and a proof for that request in the command's environment")
    func exec() async throws {
        let fixture = try DPoPCLIFixture()
        defer { fixture.remove() }
        #expect(await fixture.login().code == .success)
        let out = fixture.home.appendingPathComponent("out")
        let url = try fixture.server.resourceEndpoint().absoluteString
        let script = #"printf '%s\n%s\n' "$DEVICE_LOGIN_ACCESS_TOKEN" "$DEVICE_LOGIN_DPOP_PROOF" > "\#(out.path)""#
        let result = await fixture.run(["exec", "--dpop-url", url, "--", "/bin/sh", "-c", script])
        #expect(result.code == .success, "\(result.stderr)")
        let lines = try String(contentsOf: out, encoding: .utf8).split(separator: "\n").map(String.init)
        try #require(lines.count == 2)
        #expect(lines[0] == (try await fixture.accessToken()))
        let headers = [HTTPHeader("Authorization", "DPoP " + lines[0]), HTTPHeader("DPoP", lines[1])]
        #expect(try await fixture.resource(headers).status == 200)
        // Without --dpop-url: the token, and no proof (not even one the caller's environment had).
        let plain = await fixture.run(["exec", "--", "/bin/sh", "-c", script])
        #expect(plain.code == .success)
        #expect(try String(contentsOf: out, encoding: .utf8).hasSuffix("\n\n"))
        let clash = await fixture.run(
            ["exec", "--env", "DEVICE_LOGIN_DPOP_PROOF", "--dpop-url", url, "--", "/bin/true"])
        #expect(clash.code == .usage)
    }

    @Test("token refreshes a DPoP session with a proof of the same key; the mock checks the binding")
    func refresh() async throws {
        let fixture = try DPoPCLIFixture()
        defer { fixture.remove() }
        #expect(await fixture.login().code == .success)
        let before = try await fixture.accessToken()
        var record = try #require(try await fixture.store.load(profile: "default"))
        record.tokens?.expiresAt = Date().addingTimeInterval(-10)
        try await fixture.store.save(record)
        fixture.server.rotateDPoPNonce()
        let token = await fixture.run(["token"])
        #expect(token.code == .success, "\(token.stderr)")
        let after = token.stdout.trimmingCharacters(in: .newlines)
        #expect(after != before)
        #expect(fixture.server.refreshRequestCount == 2) // the one refused for the rotated nonce, and its retry
        let refresh = fixture.server.requests.filter { $0.grantType == "refresh_token" }
        #expect(refresh.map(\.dpop?.verdict) == [.nonceDemanded, .accepted])
        #expect(refresh.last?.dpop?.passed.last == "key binding")
        #expect(fixture.server.binding(accessToken: after) == fixture.server.binding(accessToken: before))
    }

    @Test("logout deletes the key with the profile; a sign-in without --dpop deletes an old key")
    func removal() async throws {
        let fixture = try DPoPCLIFixture()
        defer { fixture.remove() }
        #expect(await fixture.login().code == .success)
        #expect(FileManager.default.fileExists(atPath: fixture.keyPath))
        let logout = await fixture.run(["logout"])
        #expect(logout.code == .success, "\(logout.stderr)")
        #expect(!FileManager.default.fileExists(atPath: fixture.keyPath))
        #expect(try await fixture.store.load(profile: "default") == nil)

        #expect(await fixture.login().code == .success)
        fixture.server.configure { $0.clients = [.init(id: "test-client")] }
        let again = await fixture.login([])
        #expect(again.code == .success, "\(again.stderr)")
        #expect(!FileManager.default.fileExists(atPath: fixture.keyPath))
        #expect(try await fixture.store.load(profile: "default")?.profile.usesDPoP == false)
    }

    @Test("a DPoP profile whose key file is gone: exit 77, naming the file and the login command with --dpop")
    func missingKey() async throws {
        let fixture = try DPoPCLIFixture()
        defer { fixture.remove() }
        #expect(await fixture.login().code == .success)
        try FileManager.default.removeItem(atPath: fixture.keyPath)
        let token = await fixture.run(["token"])
        #expect(token.code == .notSignedIn)
        #expect(token.stderr.contains("uses DPoP, but its key file \(fixture.keyPath) is missing; sign in with: "))
        #expect(token.stderr.hasSuffix(" --dpop\n"))
        // logout needs no key: the profile can always be deleted.
        #expect(await fixture.run(["logout", "--local"]).code == .success)
    }

    @Test("a Bearer profile: dpop-proof and exec --dpop-url refuse (exit 78); curl-config ignores --url")
    func bearerProfile() async throws {
        let fixture = try ProfileFixture()
        defer { fixture.remove() }
        try await fixture.save(
            TokenSet(accessToken: "at-bearer", expiresAt: Date().addingTimeInterval(3600), issuedAt: Date()))
        let url = "https://api.example.test/items"
        let proof = await CLIHarness.run(["dpop-proof", "--url", url], environment: fixture.environment)
        #expect(proof.code == .configuration)
        #expect(proof.stdout.isEmpty)
        #expect(proof.stderr.hasPrefix("device-login: profile 'default' does not use DPoP"))
        let exec = await CLIHarness.run(
            ["exec", "--dpop-url", url, "--", "/bin/true"], environment: fixture.environment)
        #expect(exec.code == .configuration)
        let curl = await CLIHarness.run(["curl-config", "--url", url], environment: fixture.environment)
        #expect(curl.stdout == #"header = "Authorization: Bearer at-bearer""# + "\n")
        let missing = await CLIHarness.run(["dpop-proof"], environment: fixture.environment)
        #expect(missing.code == .usage)
        let nonce = await CLIHarness.run(
            ["dpop-proof", "--url", url, "--nonce", "has space"], environment: fixture.environment)
        #expect(nonce.code == .usage)
    }

    @Test("CurlConfig: a DPoP authorization is two quoted header lines")
    func curlConfigLines() throws {
        let authorization = RequestAuthorization(accessToken: "tok", scheme: "DPoP", proof: "eyJ.eyJ.sig")
        #expect(
            try CurlConfig.authorization(authorization)
                == "header = \"Authorization: DPoP tok\"\nheader = \"DPoP: eyJ.eyJ.sig\"\n")
        #expect(throws: DeviceLoginError.self) {
            try CurlConfig.authorization(RequestAuthorization(accessToken: "tok", scheme: "DPoP", proof: "a\nb"))
        }
    }

    @Test("login --dpop is a flag; a saved DPoP profile signs in again with DPoP")
    func settings() async throws {
        var options = ParsedOptions()
        options.append("https://auth.example.test", for: "issuer")
        options.append("cli", for: "client-id")
        #expect(try await LoginSettings.parse(options).dpop == false)
        options.append("", for: "dpop")
        #expect(try await LoginSettings.parse(options).dpop)
        let profile = try Profile(
            endpoints: ServerEndpoints(
                deviceAuthorization: URL(string: "https://a/d"),
                token: try #require(URL(string: "https://a/t"))),
            clientID: "cli", usesDPoP: true)
        #expect(LoginSettings(signingInAgain: profile, client: ClientConfiguration(clientID: "cli"), caFile: nil).dpop)
        #expect(CLIHints.loginCommand(profile: "default", saved: profile).hasSuffix(" --client-id cli --dpop"))
    }
}

/// The real binary against the mock on a loopback socket: a DPoP sign-in, curl through curl-config, a refresh,
/// logout.
@Suite("DPoP through the real binary on the loopback mock", .timeLimit(.minutes(3)))
struct DPoPBinaryTests {
    static let curl = URL(fileURLWithPath: "/usr/bin/curl")

    @Test(
        "login --dpop, status --json, curl-config --url | curl, token after expiry, logout",
        .enabled(if: FileManager.default.isExecutableFile(atPath: curl.path), "needs curl at /usr/bin/curl"))
    func endToEnd() async throws {
        let home = try BinaryHarness.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let model = MockAuthorizationServer(
            configuration: MockAuthorizationServer.Configuration(
                clients: [.init(id: MockAuthorizationServer.Configuration.defaultClientID, requiresDPoP: true)],
                interval: 1, recording: .summary, defaultScript: .approveImmediately,
                dpop: .init(requiresNonce: true)))
        let environment = ["DEVICE_LOGIN_HOME": home.path, "PATH": "/usr/bin:/bin", "NO_PROXY": "*"]
        try await LoopbackServer.withRunning(model: model) { server in
            let login = try await BinaryHarness.run(
                ["login", "--dpop", "--issuer", server.issuer, "--client-id", "test-client", "--qr", "never"],
                environment: environment)
            #expect(login.status == 0, "\(login.stderr)")
            let status = try await BinaryHarness.run(["status", "--json"], environment: environment)
            #expect(status.stdout.contains(#""token_type":"DPoP""#), "\(status.stdout)")
            let resource = try model.resourceEndpoint().absoluteString
            let binary = BinaryHarness.binary.path
            let pipeline = try await ChildProcess.run(
                URL(fileURLWithPath: "/bin/sh"),
                ["-c", #""$1" curl-config --url "$2" | curl -sS -K - "$2""#, "sh", binary, resource],
                environment: environment)
            let body = String(decoding: pipeline.stdout, as: UTF8.self)
            #expect(pipeline.status == 0, "\(String(decoding: pipeline.stderr, as: UTF8.self))")
            #expect(body.contains(#""jkt""#), "\(body)")
            #expect(model.requests(to: .resource).last?.dpop?.isAccepted == true)

            let store = FileTokenStore(directory: home.path)
            var record = try #require(try await store.load(profile: "default"))
            record.tokens?.expiresAt = Date().addingTimeInterval(-10)
            try await store.save(record)
            let token = try await BinaryHarness.run(["token"], environment: environment)
            #expect(token.status == 0, "\(token.stderr)")
            #expect(model.refreshRequestCount >= 1)
            #expect(model.requests(to: .token).last?.dpop?.passed.last == "key binding")

            let logout = try await BinaryHarness.run(["logout"], environment: environment)
            #expect(logout.status == 0, "\(logout.stderr)")
            #expect(!FileManager.default.fileExists(atPath: home.path + "/default.dpop.jwk"))
        }
    }
}

private func permissions(_ path: String) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
}

extension String {
    fileprivate func trimmed() -> String { trimmingCharacters(in: .whitespacesAndNewlines) }
}
