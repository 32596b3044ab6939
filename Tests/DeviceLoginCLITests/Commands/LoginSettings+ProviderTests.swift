import DeviceLogin
import DeviceLoginTesting
import Foundation
import Testing

@testable import DeviceLoginCLI

@Suite("login --provider: presets filled in, the user's options winning, a sign-in per provider dialect")
struct LoginSettingsProviderTests {
    private func settings(_ words: [String]) async throws -> LoginSettings {
        let parsed = try ArgumentParser.parse(
            words, options: LoginSettings.options, command: "login", environment: [:])
        return try await LoginSettings.parse(parsed)
    }

    private func usageError(_ words: [String]) async -> String? {
        do {
            _ = try await settings(words)
            return nil
        } catch let error as UsageError {
            return error.message
        } catch {
            return "not a usage error: \(error)"
        }
    }

    @Test("--provider github fills the two endpoints, no issuer; nothing else")
    func github() async throws {
        let value = try await settings(["--provider", "github", "--client-id", "app"])
        #expect(value.issuer == nil)
        #expect(value.deviceAuthorizationEndpoint?.absoluteString == "https://github.com/login/device/code")
        #expect(value.tokenEndpoint?.absoluteString == "https://github.com/login/oauth/access_token")
        #expect(value.client.scopes == nil)
        #expect(value.provider?.preset == "github")
        #expect(value.warnings.isEmpty)
    }

    @Test("what the user gives wins: --scope, --device-authorization-endpoint, --token-endpoint, --issuer")
    func explicitWins() async throws {
        let endpoints = try await settings([
            "--provider", "microsoft", "--client-id", "app", "--scope", "User.Read",
            "--device-authorization-endpoint", "https://proxy.example/devicecode",
        ])
        #expect(endpoints.client.scopes == ["User.Read"])
        #expect(endpoints.deviceAuthorizationEndpoint?.absoluteString == "https://proxy.example/devicecode")
        #expect(
            endpoints.tokenEndpoint?.absoluteString
                == "https://login.microsoftonline.com/organizations/oauth2/v2.0/token")
        // The preset's endpoints belong to its issuer: with another issuer, discovery finds that one's.
        let issuer = try await settings([
            "--provider", "gitlab", "--client-id", "app", "--issuer", "https://other.example",
        ])
        #expect(issuer.issuer == "https://other.example")
        #expect(issuer.deviceAuthorizationEndpoint == nil)
        #expect(issuer.client.scopes == ["openid", "profile"], "the preset's scopes stay")
        let token = try await settings([
            "--provider", "github", "--client-id", "app", "--token-endpoint", "https://proxy.example/token",
        ])
        #expect(token.tokenEndpoint?.absoluteString == "https://proxy.example/token")
        #expect(token.deviceAuthorizationEndpoint?.absoluteString == "https://github.com/login/device/code")
    }

    @Test("usage errors name the option at fault")
    func usageErrors() async {
        let cases: [([String], String)] = [
            (["--host", "ghe.example.com"], "--host is only used with --provider"),
            (["--provider", "gitea"], "unknown provider 'gitea': choose one of github, gitlab, google"),
            (["--provider", "google", "--tenant", "x"], "--provider google takes no --tenant"),
            (["--provider", "keycloak", "--host", "https://sso"], "--provider keycloak needs --realm: the realm"),
            (["--provider", "auth0"], "--provider auth0 needs --domain: the tenant's domain"),
            (["--provider", "github", "--host", "ftp://ghe"], "--host: the host must be an http(s) URL"),
            (["--provider", "keycloak", "--host", "h", "--realm", "a/b"], "--realm: the realm must be 1 to 255"),
        ]
        for (words, message) in cases {
            let error = await usageError(words + ["--client-id", "app"])
            #expect(error?.hasPrefix(message) == true, "\(words): \(error ?? "accepted")")
        }
        // A setting from the environment says where it came from.
        do {
            let parsed = try ArgumentParser.parse(
                ["--issuer", "https://a.example", "--client-id", "app"], options: LoginSettings.options,
                command: "login", environment: ["DEVICE_LOGIN_REALM": "ops"])
            _ = try await LoginSettings.parse(parsed)
            Issue.record("a realm without --provider was accepted")
        } catch let error as UsageError {
            #expect(error.message == "--realm (from DEVICE_LOGIN_REALM) is only used with --provider")
        } catch {
            Issue.record("\(error)")
        }
        // No client ID ships with a preset, and the error says so.
        #expect(
            await usageError(["--provider", "github"])
                == "missing --client-id (or DEVICE_LOGIN_CLIENT_ID); presets carry no client ID: register your own "
                + "app with github")
    }

    @Test("Google's secret goes in the form body, as its documentation shows, unless --client-auth says otherwise")
    func googleClientAuthentication() async throws {
        let post = try await settings(["--provider", "google", "--client-id", "app", "--client-secret", "s"])
        #expect(post.client.authentication == .clientSecretPost(secret: "s"))
        let basic = try await settings([
            "--provider", "google", "--client-id", "app", "--client-secret", "s", "--client-auth", "basic",
        ])
        #expect(basic.client.authentication == .clientSecretBasic(secret: "s"))
        let keycloak = try await settings([
            "--provider", "keycloak", "--host", "h", "--realm", "r", "--client-id", "app", "--client-secret", "s",
        ])
        #expect(keycloak.client.authentication == .clientSecretBasic(secret: "s"))
    }

    @Test("warnings: Google's scope list and client secret, Auth0's audience")
    func warnings() async throws {
        let google = try await settings([
            "--provider", "google", "--client-id", "app", "--scope", "openid https://www.googleapis.com/auth/drive",
        ])
        #expect(
            google.warnings == [
                "Google's device flow accepts only the scopes openid email profile "
                    + "https://www.googleapis.com/auth/drive.appdata https://www.googleapis.com/auth/drive.file "
                    + "https://www.googleapis.com/auth/youtube https://www.googleapis.com/auth/youtube.readonly; "
                    + "it will refuse https://www.googleapis.com/auth/drive",
                "Google's token endpoint requires the client secret: give --client-secret-file (or "
                    + "--client-secret -)",
            ])
        let auth0 = try await settings(["--provider", "auth0", "--domain", "t.auth0.com", "--client-id", "app"])
        #expect(auth0.warnings.count == 1)
        #expect(auth0.warnings.first?.hasPrefix("no --param audience=...: without it the access token") == true)
        let withAudience = try await settings([
            "--provider", "auth0", "--domain", "t.auth0.com", "--client-id", "app", "--param", "audience=https://api",
        ])
        #expect(withAudience.warnings.isEmpty)
    }

    // MARK: - Sign-ins against the mock, in process, in virtual time

    /// A mock server shaped like a provider: its issuer, paths and dialect.
    private static func server(
        issuer: String, paths: MockAuthorizationServer.Paths = MockAuthorizationServer.Paths(),
        dialect: MockAuthorizationServer.Dialect = .standard, clock: ManualClock,
        configure: (inout MockAuthorizationServer.Configuration) -> Void = { _ in }
    ) -> MockAuthorizationServer {
        var configuration = MockAuthorizationServer.Configuration(
            issuer: issuer, paths: paths, dialect: dialect, supportedScopes: nil, interval: 1,
            defaultScript: .approve(after: .zero))
        configure(&configuration)
        return MockAuthorizationServer(configuration: configuration, clock: clock)
    }

    /// Runs `login --no-store --json` with `words` against `server`, in process.
    private func login(_ words: [String], server: MockAuthorizationServer, clock: ManualClock) async throws
        -> (code: ExitCode, stdout: String, stderr: String)
    {
        var (context, out, err) = CLIHarness.context(transport: InProcessTransport(server: server))
        context.clock = clock
        let arguments =
            ["login", "--client-id", MockAuthorizationServer.Configuration.defaultClientID, "--no-store", "--json"]
            + ["--qr", "never"] + words
        let code = try await clock.withAutoAdvance { [context] in await CLI.run(arguments, context: context) }
        return (code, out(), err())
    }

    /// A mock shaped like github.com: its paths, its form-encoding dialect.
    private static func github(
        clock: ManualClock, configure: (inout MockAuthorizationServer.Configuration) -> Void
    ) -> MockAuthorizationServer {
        server(
            issuer: "https://github.com",
            paths: MockAuthorizationServer.Paths(
                deviceAuthorization: "/login/device/code", token: "/login/oauth/access_token"),
            dialect: .github, clock: clock, configure: configure)
    }

    /// The endpoints the server was asked at, in order, without repeats.
    private func endpoints(_ server: MockAuthorizationServer) -> [MockAuthorizationServer.Endpoint] {
        server.requests.map(\.endpoint).reduce(into: []) { list, endpoint in
            if list.last != endpoint { list.append(endpoint) }
        }
    }

    @Test("github: GitHub's form-encoding dialect at github.com's paths, no discovery request")
    func signInGitHub() async throws {
        let clock = ManualClock()
        let server = Self.github(clock: clock) { $0.servesDiscovery = false }
        let result = try await login(["--provider", "github"], server: server, clock: clock)
        #expect(result.code == .success, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("{\"access_token\":"))
        #expect(endpoints(server) == [.deviceAuthorization, .token])
        #expect(server.violations.isEmpty)
    }

    @Test("github: device_flow_disabled says to enable Device Flow in the app's settings (with --flow device)")
    func githubDeviceFlowDisabled() async throws {
        let clock = ManualClock()
        let server = Self.github(clock: clock) {
            $0.deviceAuthorizationFaults = [1: .oauthError(OAuthError.Code(rawValue: "device_flow_disabled"))]
        }
        let result = try await login(["--provider", "github", "--flow", "device"], server: server, clock: clock)
        #expect(result.code == .protocolError)
        #expect(result.stderr.contains("hint: GitHub has the device flow turned off for this app"), "\(result.stderr)")
    }

    @Test("gitlab: discovery without a device endpoint; the preset's /oauth/authorize_device is used")
    func signInGitLab() async throws {
        let clock = ManualClock()
        let server = Self.server(
            issuer: "https://gitlab.com",
            paths: MockAuthorizationServer.Paths(deviceAuthorization: "/oauth/authorize_device", token: "/oauth/token"),
            clock: clock
        ) { $0.advertisesDeviceAuthorizationEndpoint = false }
        let result = try await login(["--provider", "gitlab"], server: server, clock: clock)
        #expect(result.code == .success, "\(result.stderr)")
        #expect(endpoints(server).prefix(3) == [.openIDConfiguration, .deviceAuthorization, .token])
        let sent = server.requests.first { $0.endpoint == .deviceAuthorization }
        #expect(sent?.formValue("scope") == "openid profile")
    }

    @Test("google: Google's dialect (verification_url, 428 and 403), its scopes, the client secret in the body")
    func signInGoogle() async throws {
        let clock = ManualClock()
        let server = Self.server(issuer: "https://accounts.google.com", dialect: .google, clock: clock) {
            $0.clients = [
                MockAuthorizationServer.Client(
                    id: MockAuthorizationServer.Configuration.defaultClientID,
                    authentication: .clientSecretPost(secret: "tv-secret"))
            ]
            $0.defaultScript = .approve(afterPolls: 2)
        }
        let result = try await login(
            ["--provider", "google", "--client-secret", "tv-secret"], server: server, clock: clock)
        #expect(result.code == .success, "\(result.stderr)")
        #expect(!result.stderr.contains("requires the client secret"))
        let sent = server.requests.first { $0.endpoint == .deviceAuthorization }
        #expect(sent?.formValue("scope") == "openid email profile")
    }

    @Test("microsoft: no discovery for organizations; the v2.0 paths; Microsoft's dialect")
    func signInMicrosoft() async throws {
        let clock = ManualClock()
        let server = Self.server(
            issuer: "https://login.microsoftonline.com/organizations/oauth2/v2.0",
            paths: MockAuthorizationServer.Paths(deviceAuthorization: "/devicecode", token: "/token"),
            dialect: .microsoft, clock: clock
        ) { $0.servesDiscovery = false }
        let result = try await login(["--provider", "microsoft"], server: server, clock: clock)
        #expect(result.code == .success, "\(result.stderr)")
        #expect(endpoints(server) == [.deviceAuthorization, .token])
        let sent = server.requests.first { $0.endpoint == .deviceAuthorization }
        #expect(sent?.formValue("scope") == "openid profile offline_access")
    }

    @Test(
        "auth0, okta, keycloak: discovery from the preset's issuer",
        arguments: [
            (
                ["--provider", "auth0", "--domain", "tenant.eu.auth0.com", "--param", "audience=https://api"],
                "https://tenant.eu.auth0.com"
            ),
            (["--provider", "okta", "--domain", "dev-1.okta.com"], "https://dev-1.okta.com/oauth2/default"),
            (
                ["--provider", "keycloak", "--host", "https://sso.example.com", "--realm", "ops"],
                "https://sso.example.com/realms/ops"
            ),
        ])
    func signInWithDiscovery(words: [String], issuer: String) async throws {
        let clock = ManualClock()
        let server = Self.server(issuer: issuer, clock: clock)
        let result = try await login(words, server: server, clock: clock)
        #expect(result.code == .success, "\(result.stderr)")
        #expect(endpoints(server).first == .openIDConfiguration)
        #expect(endpoints(server).contains(.token))
        #expect(!result.stderr.contains("warning"), "\(result.stderr)")
    }
}
