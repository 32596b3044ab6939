import DeviceLogin
import DeviceLoginTesting
import Foundation
import Testing

/// Issue 12's "done means": the real `device-login`, from a fresh home, reaches a signed-in GitHub- or
/// Keycloak-shaped mock with one `--provider` line, over loopback with libcurl.
@Suite("login --provider: the built binary signs in to GitHub- and Keycloak-shaped mocks", .timeLimit(.minutes(2)))
struct ProviderBinaryTests {
    /// A loopback mock that approves every code at once, polled every second in real time.
    private static func model(
        issuer: String, paths: MockAuthorizationServer.Paths, dialect: MockAuthorizationServer.Dialect,
        servesDiscovery: Bool
    ) -> MockAuthorizationServer {
        MockAuthorizationServer(
            configuration: MockAuthorizationServer.Configuration(
                issuer: issuer, paths: paths, dialect: dialect, interval: 1, servesDiscovery: servesDiscovery,
                defaultScript: .approveImmediately))
    }

    /// Runs `login` then `status --json` with the binary in a fresh home; returns both and the saved profile.
    private func signIn(_ words: [String]) async throws -> (
        login: BinaryHarness.Run, status: BinaryHarness.Run, profile: Profile?
    ) {
        let home = try BinaryHarness.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let environment = ["DEVICE_LOGIN_HOME": home.path]
        let login = try await BinaryHarness.run(
            ["login", "--client-id", MockAuthorizationServer.Configuration.defaultClientID, "--qr", "never"] + words,
            environment: environment)
        let status = try await BinaryHarness.run(["status", "--json"], environment: environment)
        let profile = try await FileTokenStore(directory: home.path).load(profile: "default")?.profile
        return (login, status, profile)
    }

    @Test("--provider github --host http://127.0.0.1:PORT: GitHub's paths and form-encoding dialect")
    func github() async throws {
        let model = Self.model(
            issuer: "https://github.example.test",
            paths: MockAuthorizationServer.Paths(
                deviceAuthorization: "/login/device/code", token: "/login/oauth/access_token"),
            dialect: .github, servesDiscovery: false)
        try await LoopbackServer.withRunning(model: model) { server in
            let host = "http://127.0.0.1:\(server.port)"
            let result = try await signIn(["--provider", "github", "--host", host])
            #expect(result.login.status == 0, "\(result.login.stderr)")
            #expect(result.login.stdout.hasPrefix("Signed in to 127.0.0.1:\(server.port)"), "\(result.login.stdout)")
            #expect(result.status.status == 0, "\(result.status.stderr)")
            #expect(result.status.stdout.contains(#""provider":"github""#), "\(result.status.stdout)")
            #expect(result.profile?.provider == "github")
            #expect(result.profile?.endpoints.token.absoluteString == host + "/login/oauth/access_token")
            #expect(model.requests.map(\.endpoint).allSatisfy { $0 == .deviceAuthorization || $0 == .token })
            #expect(model.violations.isEmpty)
        }
    }

    @Test("--provider keycloak --host http://127.0.0.1:PORT --realm demo: discovery under /realms/demo")
    func keycloak() async throws {
        let model = Self.model(
            issuer: "https://sso.example.test/realms/demo",
            paths: MockAuthorizationServer.Paths(
                deviceAuthorization: "/protocol/openid-connect/auth/device", token: "/protocol/openid-connect/token",
                revocation: "/protocol/openid-connect/revoke", userinfo: "/protocol/openid-connect/userinfo",
                jwks: "/protocol/openid-connect/certs"),
            dialect: .standard, servesDiscovery: true)
        try await LoopbackServer.withRunning(model: model) { server in
            let host = "http://127.0.0.1:\(server.port)"
            let result = try await signIn(["--provider", "keycloak", "--host", host, "--realm", "demo"])
            #expect(result.login.status == 0, "\(result.login.stderr)")
            #expect(result.login.stdout.hasPrefix("Signed in to 127.0.0.1:\(server.port)"), "\(result.login.stdout)")
            #expect(result.status.stdout.contains(#""id_token_verified":true"#), "\(result.status.stdout)")
            #expect(result.status.stdout.contains(#""provider":"keycloak""#), "\(result.status.stdout)")
            #expect(result.profile?.issuer == host + "/realms/demo")
            #expect(
                result.profile?.endpoints.deviceAuthorization?.absoluteString
                    == host + "/realms/demo/protocol/openid-connect/auth/device")
            #expect(model.requests.first?.endpoint == .openIDConfiguration)
            #expect(model.violations.isEmpty)
        }
    }
}
