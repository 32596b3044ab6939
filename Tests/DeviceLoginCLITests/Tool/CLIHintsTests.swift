import DeviceLoginTesting
import Foundation
import Testing

@testable import DeviceLogin
@testable import DeviceLoginCLI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Real errors of the library: each carries its reason and a hint that names nothing of the CLI, and the CLI words
/// the hint as it always has.
@Suite("CLIHints: the library's facts in the CLI's words")
struct CLIHintsTests {
    private let model = MockAuthorizationServer(configuration: MockAuthorizationServer.Configuration())
    private var client: ClientConfiguration {
        ClientConfiguration(clientID: MockAuthorizationServer.Configuration.defaultClientID)
    }

    /// Checks that `error` has `reason` and a library hint free of CLI words, and that the CLI prints `cliHint`.
    private func check(_ error: DeviceLoginError, reason: DeviceLoginError.Reason?, cliHint: String) {
        #expect(error.reason == reason)
        let hint = error.hint ?? ""
        #expect(!hint.contains("device-login") && !hint.contains("--"), "the library's hint names the CLI: \(hint)")
        #expect(CLIHints.hint(for: error) == cliHint)
    }

    private func state(tokens: TokenSet?) throws -> TokenState {
        let profile = try Profile(name: "work", issuer: model.issuer, endpoints: try model.endpoints(), client: client)
        return TokenState(
            record: ProfileRecord(profile: profile, tokens: tokens), client: client, store: nil,
            transport: InProcessTransport(server: model)
        )
    }

    @Test("an endpoint missing from the metadata: the option that gives it")
    func missingEndpoint() throws {
        let noDevice = try AuthorizationServerMetadata(jsonObject: [
            "issuer": .string("https://a.example"), "token_endpoint": .string("https://a.example/token"),
        ])
        check(
            try #require(throws: DeviceLoginError.self) { try ServerEndpoints(metadata: noDevice) },
            reason: .missingEndpoint(.deviceAuthorization),
            cliHint:
                "give the endpoint by hand (--device-authorization-endpoint), or sign in with --flow browser or paste")
        let noToken = try AuthorizationServerMetadata(jsonObject: [
            "issuer": .string("https://a.example"),
            "device_authorization_endpoint": .string("https://a.example/device"),
        ])
        check(
            try #require(throws: DeviceLoginError.self) { try ServerEndpoints(metadata: noToken) },
            reason: .missingEndpoint(.token), cliHint: "give the endpoint by hand (--token-endpoint)")
    }

    @Test("invalid_scope: --scope")
    func scopeRefused() async throws {
        var asking = client
        asking.scopes = ["launch-codes"]
        let flow = DeviceFlow(
            endpoints: try model.endpoints(), client: asking,
            transport: InProcessTransport(server: model))
        let error = try await #require(throws: DeviceLoginError.self) { try await flow.requestAuthorization() }
        #expect(error.oauthError?.code == .invalidScope)
        check(error, reason: .scopeRefused, cliHint: "ask for scopes the server knows (--scope)")
    }

    @Test("not signed in, or the session ended: device-login login")
    func notSignedIn() async throws {
        let none = try await #require(throws: DeviceLoginError.self) {
            _ = try await state(tokens: nil).freshAccessToken()
        }
        #expect(none.code == .noSession)
        check(none, reason: .notSignedIn(profile: "work"), cliHint: "sign in first: device-login login")

        let expired = TokenSet(
            accessToken: "AT", expiresAt: Date(timeIntervalSince1970: 0),
            refreshToken: "never-issued", issuedAt: Date(timeIntervalSince1970: 0))
        let ended = try await #require(throws: DeviceLoginError.self) {
            _ = try await state(tokens: expired).freshAccessToken()
        }
        #expect(ended.code == .sessionEnded)
        check(ended, reason: .notSignedIn(profile: "work"), cliHint: "run device-login login")
    }

    @Test("the token file: locked by another device-login, or from a newer one")
    func store() async throws {
        let directory = try BinaryHarness.temporaryHome().path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = FileTokenStore(directory: directory, lockTimeout: .milliseconds(1))

        let lockPath = try store.lockPath(profile: "default")
        let holder = open(lockPath, O_RDWR | O_CREAT, 0o600)
        defer { close(holder) }
        try #require(flock(holder, LOCK_EX | LOCK_NB) == 0)
        let locked = try await #require(throws: DeviceLoginError.self) {
            try await store.withExclusiveAccess(profile: "default") {}
        }
        check(
            locked, reason: .storeLocked(path: lockPath),
            cliHint: "wait for the other device-login to finish, or stop it")

        let path = try store.filePath(profile: "next")
        #expect(
            FileManager.default.createFile(
                atPath: path, contents: Data("{\"version\":99}".utf8),
                attributes: [.posixPermissions: 0o600]))
        let newer = try await #require(throws: DeviceLoginError.self) { _ = try await store.load(profile: "next") }
        check(
            newer, reason: .storeFromNewerVersion(path: path, version: 99),
            cliHint: "use a newer device-login, or move the file aside and sign in again")
    }

    @Test("an expired code: run the command again")
    func expired() {
        check(
            DeviceLoginError.codeExpired(oauthError: nil), reason: nil,
            cliHint: "run the command again to get a new code")
    }

    @Test("a certificate that cannot be verified: --ca-file, wherever the failure was wrapped")
    func certificate() {
        let failure = TransportError(
            .certificateVerificationFailed,
            "TLS with auth.example.test failed: SSL certificate problem: self-signed")
        let hint = "if a private CA signed the server's certificate, trust it with --ca-file PEM"
        #expect(CLIHints.hint(for: DeviceLoginError.wrapping(failure, while: "the token request")) == hint)
        #expect(
            CLIHints.hint(
                for: DeviceLoginError(
                    .discovery, "discovery failed", hint: "check the issuer URL",
                    transportError: failure)) == hint)
        // Other TLS failures are not about trust: the library's hint stays.
        let handshake = TransportError(.tlsFailure, "TLS with auth.example.test failed: wrong version number")
        #expect(
            CLIHints.hint(for: DeviceLoginError.wrapping(handshake, while: "the token request"))
                == "check the network and the server address, then try again")
    }

    @Test("on stderr: a login whose discovery meets an unverifiable certificate names --ca-file, exit 69")
    func certificateReported() async {
        let transport = StubTransport { _ in
            throw TransportError(
                .certificateVerificationFailed,
                "TLS with auth.example.test failed: SSL certificate problem: self-signed certificate")
        }
        let result = await CLIHarness.run(
            ["login", "--issuer", "https://auth.example.test", "--client-id", "c", "--no-store"], transport: transport
        )
        #expect(result.code == .unavailable)
        #expect(result.stderr.hasSuffix("\nhint: \(CLIHints.certificateHint)\n"), "\(result.stderr)")
        #expect(CLIHints.certificateHint.contains("--ca-file PEM"))
    }

    @Test("every other hint is the library's, as it is")
    func others() {
        let transport = DeviceLoginError(.transport, "down", hint: "check the network and the server address")
        #expect(CLIHints.hint(for: transport) == "check the network and the server address")
        #expect(CLIHints.hint(for: DeviceLoginError(.oauth, "refused")) == nil)
    }

    @Test("on stderr: `token` for a profile without tokens names the whole login command, on one line")
    func reported() async throws {
        let home = try BinaryHarness.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let profile = try Profile(name: "work", issuer: model.issuer, endpoints: try model.endpoints(), client: client)
        try await FileTokenStore(directory: home.path).save(ProfileRecord(profile: profile, tokens: nil))
        let result = await CLIHarness.run(
            ["token", "--profile", "work"],
            environment: ["DEVICE_LOGIN_HOME": home.path])
        #expect(result.code == .notSignedIn)
        #expect(
            result.stderr == "device-login: not signed in (profile work); sign in with: device-login login"
                + " --profile work --issuer \(model.issuer) --client-id \(client.clientID)\n")
    }
}

@Suite("CLIHints.loginCommand: the login command that signs a profile in again")
struct LoginCommandHintTests {
    @Test("with the saved server and client, quoted for a shell; placeholders without a profile")
    func command() throws {
        let endpoints = ServerEndpoints(
            deviceAuthorization: URL(string: "https://auth.example.com/device")!,
            token: URL(string: "https://auth.example.com/token")!)
        let withEndpoints = try Profile(
            name: "work", endpoints: endpoints, clientID: "my app's", scopes: ["openid", "offline_access"])
        #expect(
            CLIHints.loginCommand(profile: "work", saved: withEndpoints)
                == "device-login login --profile work --device-authorization-endpoint https://auth.example.com/device"
                + " --token-endpoint https://auth.example.com/token --client-id 'my app'\\''s'"
                + " --scope 'openid offline_access'")
        let withIssuer = try Profile(issuer: "https://auth.example.com", endpoints: endpoints, clientID: "cli")
        #expect(
            CLIHints.loginCommand(profile: "default", saved: withIssuer)
                == "device-login login --issuer https://auth.example.com --client-id cli")
        #expect(
            CLIHints.loginCommand(profile: "x", saved: nil)
                == "device-login login --profile x --issuer URL --client-id ID")
    }
}

@Suite("SignInNeeded: the one line")
struct SignInNeededTests {
    @Test("an ended session: the server's reason once, then the login command; other errors are not sign-ins")
    func endedSession() throws {
        let endpoints = ServerEndpoints(
            deviceAuthorization: URL(string: "https://auth.example.com/device")!,
            token: URL(string: "https://auth.example.com/token")!)
        let profile = try Profile(name: "w", issuer: "https://auth.example.com", endpoints: endpoints, clientID: "c")
        let ended = DeviceLoginError(.sessionEnded, "the server ended the session (invalid_grant); sign in again")
        #expect(
            SignInNeeded(ended, profile: profile)?.line
                == "device-login: the server ended the session (invalid_grant); sign in with: device-login login"
                + " --profile w --issuer https://auth.example.com --client-id c")
        #expect(SignInNeeded(DeviceLoginError(.transport, "down"), profile: profile) == nil)
    }
}

@Suite("CLI.arguments(program:): the program name Docker calls")
struct ProgramNameTests {
    @Test("docker-credential-device-login runs docker-credential; any other name runs as given")
    func names() {
        #expect(
            CLI.arguments(program: "/usr/local/bin/docker-credential-device-login", ["get"]) == [
                "docker-credential", "get",
            ])
        #expect(CLI.arguments(program: "docker-credential-device-login", ["list"]) == ["docker-credential", "list"])
        #expect(CLI.arguments(program: "/usr/bin/device-login", ["token"]) == ["token"])
        #expect(CLI.arguments(program: nil, ["token"]) == ["token"])
        #expect(CLI.arguments(program: "/x/docker-credential-device-login-old", ["get"]) == ["get"])
    }
}
