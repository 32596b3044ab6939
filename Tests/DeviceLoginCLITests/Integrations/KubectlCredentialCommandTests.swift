import DeviceLogin
import DeviceLoginTerminal
import DeviceLoginTesting
import Foundation
import Testing

@testable import DeviceLoginCLI

@Suite("kubectl-credential in process: the answer, the non-interactive contract, signing in again")
struct KubectlCredentialCommandTests {
    private static let v1 = "client.authentication.k8s.io/v1"
    private static let v1beta1 = "client.authentication.k8s.io/v1beta1"

    /// What kubectl puts in KUBERNETES_EXEC_INFO for `apiVersion` and `interactive`.
    private static func execInfo(_ apiVersion: String = v1, interactive: Bool) -> String {
        #"{"kind":"ExecCredential","apiVersion":"\#(apiVersion)","spec":{"interactive":\#(interactive)}}"#
    }

    /// Runs `kubectl-credential` with `words` in process. `person` puts a terminal on stdin and stderr.
    private func run(
        _ words: [String] = [], environment: [String: String], transport: any HTTPTransport, person: Bool = false,
        clock: ManualClock? = nil
    ) async throws -> (code: ExitCode, stdout: String, stderr: String) {
        var (context, stdout, stderr) = CLIHarness.context(environment: environment, transport: transport)
        context.stdinIsTerminal = person
        context.terminal = TerminalCapabilities(
            isTerminal: person, columns: 100, rows: 40, isUTF8: true, noColor: true, term: "xterm-256color")
        let arguments = ["kubectl-credential"] + words
        let code: ExitCode
        if let clock {
            code = try await clock.withAutoAdvance { [context] in await CLI.run(arguments, context: context) }
        } else {
            code = await CLI.run(arguments, context: context)
        }
        return (code, stdout(), stderr())
    }

    private static func validTokens(_ token: String = "at-kube-1", expiresAt: Date) -> TokenSet {
        TokenSet(accessToken: token, expiresAt: expiresAt, refreshToken: "rt-kube-1", issuedAt: Date())
    }

    @Test(
        "a valid stored token: the ExecCredential of the apiVersion asked for, and no request",
        arguments: [
            (execInfo(v1, interactive: false), v1), (execInfo(v1beta1, interactive: true), v1beta1), (nil, v1beta1),
        ] as [(String?, String)])
    func fastPath(execInfo: String?, apiVersion: String) async throws {
        let fixture = try ProfileFixture()
        defer { fixture.remove() }
        let expiry = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 3600).rounded(.down))
        try await fixture.save(Self.validTokens(expiresAt: expiry), name: "work")
        let transport = StubTransport()
        var environment = fixture.environment
        environment["KUBERNETES_EXEC_INFO"] = execInfo
        let result = try await run(["--profile", "work"], environment: environment, transport: transport)
        #expect(result.code == .success, "\(result.stderr)")
        #expect(
            result.stdout
                == #"{"apiVersion":"\#(apiVersion)","kind":"ExecCredential","status":{"expirationTimestamp":""#
                + DateText.rfc3339(expiry) + #"","token":"at-kube-1"}}"# + "\n")
        #expect(result.stderr.isEmpty)
        #expect(transport.requests.isEmpty)
    }

    @Test("--verbose traces the request and the refresh on stderr, never a token")
    func verbose() async throws {
        let fixture = try ProfileFixture()
        defer { fixture.remove() }
        try await fixture.save(Self.validTokens(expiresAt: Date().addingTimeInterval(-10)), name: "work")
        let transport = StubTransport { _ in
            StubTransport.json(#"{"access_token":"at-kube-2","token_type":"Bearer","expires_in":3600}"#)
        }
        var environment = fixture.environment
        environment["KUBERNETES_EXEC_INFO"] = Self.execInfo(interactive: false)
        let result = try await run(["--profile", "work", "--verbose"], environment: environment, transport: transport)
        #expect(result.code == .success, "\(result.stderr)")
        #expect(result.stdout.contains(#""token":"at-kube-2""#))
        #expect(result.stderr.contains("device-login: kubectl: apiVersion \(Self.v1), interactive: false"))
        #expect(result.stderr.contains("device-login: http: "))
        for secret in ["at-kube-1", "rt-kube-1", "at-kube-2"] { #expect(!result.stderr.contains(secret)) }
    }

    /// The ways a caller says nobody is there to approve a code.
    private static let nobodyThere: [(name: String, execInfo: String?, person: Bool, environment: [String: String])] =
        [
            ("kubectl said interactive: false", execInfo(interactive: false), true, [:]),
            ("CI is set", execInfo(interactive: true), true, ["CI": "true"]),
            ("no terminal", execInfo(interactive: true), false, [:]),
            ("no terminal, no KUBERNETES_EXEC_INFO", nil, false, [:]),
        ]

    @Test("nobody there and no profile, or one without tokens: exit 77 with one line, and no request")
    func nonInteractive() async throws {
        for way in Self.nobodyThere {
            for saved in [false, true] {
                let fixture = try ProfileFixture()
                defer { fixture.remove() }
                if saved { try await fixture.save(nil, name: "work") }
                let transport = StubTransport()
                var environment = fixture.environment.merging(way.environment) { $1 }
                environment["KUBERNETES_EXEC_INFO"] = way.execInfo
                let result = try await run(
                    ["--profile", "work"], environment: environment, transport: transport, person: way.person)
                #expect(result.code == .notSignedIn, "\(way.name), saved: \(saved): \(result.stderr)")
                #expect(result.stdout.isEmpty)
                let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false)
                #expect(lines.count == 2 && lines.last == "", "\(way.name): one line: \(result.stderr)")
                #expect(result.stderr.hasPrefix("device-login: not signed in"))
                #expect(result.stderr.contains("sign in with: device-login login --profile work"))
                #expect(transport.requests.isEmpty, "\(way.name), saved: \(saved)")
            }
        }
    }

    @Test("nobody there and the server ended the session at refresh: exit 77 after that one request")
    func sessionEndedNonInteractive() async throws {
        let fixture = try ProfileFixture()
        defer { fixture.remove() }
        try await fixture.save(Self.validTokens(expiresAt: Date().addingTimeInterval(-10)), name: "work")
        let transport = StubTransport { _ in
            HTTPResponse(
                status: 400, headers: [HTTPHeader("Content-Type", "application/json")],
                body: Data(#"{"error":"invalid_grant"}"#.utf8))
        }
        var environment = fixture.environment
        environment["KUBERNETES_EXEC_INFO"] = Self.execInfo(interactive: false)
        let result = try await run(["--profile", "work"], environment: environment, transport: transport, person: true)
        #expect(result.code == .notSignedIn, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(transport.requests.map(\.url.path) == ["/token"])
        #expect(result.stderr.contains("sign in with: device-login login --profile work --issuer"))
        #expect(!result.stderr.contains("at-kube-1") && !result.stderr.contains("rt-kube-1"))
    }

    @Test(
        "KUBERNETES_EXEC_INFO that is not kubectl's request: exit 78, the reason on stderr, nothing on stdout",
        arguments: [
            ("garbage", "device-login: KUBERNETES_EXEC_INFO is not valid JSON\n"),
            (#"{"kind":"Pod","apiVersion":"v1"}"#, "device-login: KUBERNETES_EXEC_INFO has a kind that is not "),
            (
                #"{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v2"}"#,
                "device-login: kubectl asks for apiVersion client.authentication.k8s.io/v2; "
            ),
            (String(repeating: "x", count: 1_048_576), "device-login: KUBERNETES_EXEC_INFO is 1048576 bytes long"),
            (String(repeating: "[", count: 5000), "device-login: KUBERNETES_EXEC_INFO nests arrays or objects"),
        ])
    func badRequest(execInfo: String, stderr: String) async throws {
        // Checked before the profile: the kubeconfig is at fault whether or not anyone signed in.
        let fixture = try ProfileFixture()
        defer { fixture.remove() }
        let transport = StubTransport()
        var environment = fixture.environment
        environment["KUBERNETES_EXEC_INFO"] = execInfo
        let result = try await run(["--profile", "work"], environment: environment, transport: transport, person: true)
        #expect(result.code == .configuration)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix(stderr), "\(result.stderr.prefix(300))")
        #expect(result.stderr.count < 1000, "the input is not echoed")
        #expect(transport.requests.isEmpty)
    }

    /// A mock server that approves every code at once, in virtual time, and a saved profile of it.
    private func savedMockProfile(
        _ fixture: ProfileFixture, tokens: TokenSet?,
        configure: (inout MockAuthorizationServer.Configuration) -> Void = { _ in }
    ) async throws -> (server: MockAuthorizationServer, clock: ManualClock) {
        let clock = ManualClock()
        var configuration = MockAuthorizationServer.Configuration(interval: 1, defaultScript: .approve(after: .zero))
        configure(&configuration)
        let server = MockAuthorizationServer(configuration: configuration, clock: clock)
        let profile = try Profile(
            name: "work", issuer: server.issuer, endpoints: try server.endpoints(),
            clientID: MockAuthorizationServer.Configuration.defaultClientID,
            scopes: ["openid", "offline_access"], bindings: [try URLBinding("https://k8s.example.test")],
            username: "ada")
        try await FileTokenStore(directory: fixture.home.path).save(ProfileRecord(profile: profile, tokens: tokens))
        return (server, clock)
    }

    @Test("a person there and kubectl allowing it: a signed-out profile signs in again, the prompt on stderr")
    func signsInAgain() async throws {
        let fixture = try ProfileFixture()
        defer { fixture.remove() }
        let (server, clock) = try await savedMockProfile(fixture, tokens: nil)
        var environment = fixture.environment
        environment["KUBERNETES_EXEC_INFO"] = Self.execInfo(interactive: true)
        let result = try await run(
            ["--profile", "work"], environment: environment, transport: InProcessTransport(server: server),
            person: true, clock: clock)
        #expect(result.code == .success, "\(result.stderr)")
        try expectAnswer(result.stdout, server: server)
        let record = try #require(try await FileTokenStore(directory: fixture.home.path).load(profile: "work"))
        let tokens = try #require(record.tokens)
        for secret in [tokens.accessToken, tokens.refreshToken, tokens.idToken].compactMap({ $0 }) {
            #expect(!result.stderr.contains(secret), "no token on stderr")
        }
        #expect(result.stdout.contains(tokens.accessToken), "the saved token is the one answered")
        #expect(result.stderr.contains("signing in again for kubectl"))
        let userCode = try #require(server.lastAuthorization?.userCode)
        #expect(result.stderr.contains(userCode), "the prompt shows the code")
        #expect(result.stderr.contains("Signed in to auth.example.test"), "login's confirmation, on stderr")
        // The saved endpoints are used as they are: no discovery request.
        let endpoints = server.requests.map(\.endpoint)
        #expect(endpoints.contains(.deviceAuthorization))
        #expect(!endpoints.contains(.openIDConfiguration) && !endpoints.contains(.authorizationServerMetadata))
        #expect(record.profile.bindings == [try URLBinding("https://k8s.example.test")], "the bindings are kept")
        #expect(record.profile.username == "ada")
        #expect(record.profile.scopes == ["openid", "offline_access"])
        #expect(server.lastAuthorization?.scopes == ["openid", "offline_access"])
    }

    @Test("a person there: the sign-in again follows the profile's remembered flow, here the browser's code grant")
    func signsInAgainWithTheRememberedFlow() async throws {
        let fixture = try ProfileFixture()
        defer { fixture.remove() }
        var configuration = MockAuthorizationServer.Configuration(interval: 1, defaultScript: .approve(after: .zero))
        configuration.codeGrant = MockAuthorizationServer.CodeGrantSettings()
        configuration.clients[0].redirectURIs = ["http://127.0.0.1/callback"]
        let model = MockAuthorizationServer(configuration: configuration)
        try await LoopbackServer.withRunning(model: model) { server in
            var endpoints = try model.endpoints()
            endpoints.authorization = URL(string: server.issuer + "/authorize")
            var profile = try Profile(
                name: "work", issuer: server.issuer, endpoints: endpoints,
                clientID: MockAuthorizationServer.Configuration.defaultClientID, scopes: ["openid", "offline_access"])
            profile.flow = "browser"
            try await FileTokenStore(directory: fixture.home.path).save(ProfileRecord(profile: profile, tokens: nil))
            var environment = fixture.environment
            environment["KUBERNETES_EXEC_INFO"] = Self.execInfo(interactive: true)
            environment["BROWSER"] = "curl -s -o /dev/null -L --max-time 10"
            var (context, stdout, stderr) = CLIHarness.context(environment: environment)
            context.stdinIsTerminal = true
            context.terminal = TerminalCapabilities(
                isTerminal: true, columns: 100, rows: 40, isUTF8: true, noColor: true, term: "xterm-256color")
            let code = await CLI.run(["kubectl-credential", "--profile", "work"], context: context)
            #expect(code == .success, "\(stderr())")
            #expect(stderr().contains("signing in with the browser on this device, as asked"), "\(stderr())")
            #expect(stdout().contains(#""kind":"ExecCredential""#))
            #expect(model.requests.allSatisfy { $0.endpoint != .deviceAuthorization })
            #expect(model.violations.isEmpty, "\(model.violations)")
        }
    }

    @Test("a person there: the server ends the session at refresh, and the plugin signs in again")
    func sessionEndedSignsInAgain() async throws {
        let fixture = try ProfileFixture()
        defer { fixture.remove() }
        let (server, clock) = try await savedMockProfile(
            fixture, tokens: Self.validTokens(expiresAt: Date().addingTimeInterval(-10))
        ) { $0.refreshFaults = [1: .oauthError(.invalidGrant)] }
        var environment = fixture.environment
        environment["KUBERNETES_EXEC_INFO"] = Self.execInfo(Self.v1beta1, interactive: true)
        let result = try await run(
            ["--profile", "work"], environment: environment, transport: InProcessTransport(server: server),
            person: true, clock: clock)
        #expect(result.code == .success, "\(result.stderr)")
        try expectAnswer(result.stdout, server: server, apiVersion: Self.v1beta1)
        #expect(server.refreshRequestCount == 1)
        #expect(server.deviceAuthorizationRequestCount == 1)
    }

    @Test("a person there, but the profile was never saved: no server is known, so exit 77 and no request")
    func neverSavedCannotSignIn() async throws {
        let fixture = try ProfileFixture()
        defer { fixture.remove() }
        let transport = StubTransport()
        var environment = fixture.environment
        environment["KUBERNETES_EXEC_INFO"] = Self.execInfo(interactive: true)
        let result = try await run(["--profile", "work"], environment: environment, transport: transport, person: true)
        #expect(result.code == .notSignedIn)
        #expect(result.stdout.isEmpty)
        #expect(
            result.stderr
                == "device-login: not signed in: there is no profile 'work'; sign in with: "
                + "device-login login --profile work --issuer URL --client-id ID\n")
        #expect(transport.requests.isEmpty)
    }

    @Test("the user denies the new sign-in: exit 65, nothing on stdout")
    func deniedSignIn() async throws {
        let fixture = try ProfileFixture()
        defer { fixture.remove() }
        let (server, clock) = try await savedMockProfile(fixture, tokens: nil) {
            $0.defaultScript = .deny(afterPolls: 0)
        }
        var environment = fixture.environment
        environment["KUBERNETES_EXEC_INFO"] = Self.execInfo(interactive: true)
        let result = try await run(
            ["--profile", "work"], environment: environment, transport: InProcessTransport(server: server),
            person: true, clock: clock)
        #expect(result.code == .denied, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    /// `stdout` is one line: an ExecCredential of `apiVersion` with a token the server accepts and an expiry.
    private func expectAnswer(
        _ stdout: String, server: MockAuthorizationServer, apiVersion: String = v1
    ) throws {
        #expect(stdout.hasSuffix("}\n") && stdout.filter { $0 == "\n" }.count == 1, "\(stdout)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any])
        #expect(object["apiVersion"] as? String == apiVersion)
        #expect(object["kind"] as? String == "ExecCredential")
        let status = try #require(object["status"] as? [String: Any])
        let token = try #require(status["token"] as? String)
        #expect(server.isValid(accessToken: token))
        #expect((status["expirationTimestamp"] as? String)?.hasSuffix("Z") == true)
    }
}
