import DeviceLogin
import Foundation
import Testing

@testable import DeviceLoginCLI

@Suite("login --dry-run: what would be used, no request, no secret")
struct LoginDryRunTests {
    /// A transport that fails the test on any request.
    private static let noRequest = StubTransport { request in
        Issue.record("login --dry-run sent \(request.method) \(request.url.absoluteString)")
        throw TransportError(.connectionFailed, "no request may be sent")
    }

    private func dryRun(_ words: [String]) async -> (code: ExitCode, stdout: String, stderr: String) {
        await CLIHarness.run(
            ["login", "--dry-run"] + words, environment: ["DEVICE_LOGIN_HOME": "/nonexistent/device-login"],
            transport: Self.noRequest)
    }

    @Test("github: the two endpoints, no discovery, the client; every line exact")
    func github() async {
        let result = await dryRun(["--provider", "github", "--client-id", "app", "--scope", "repo read:org"])
        #expect(result.code == .success, "\(result.stderr)")
        #expect(result.stderr.isEmpty)
        #expect(
            result.stdout == """
                Dry run: nothing was sent. A sign-in with these options would use:
                  provider:                       github
                  issuer:                         none (no discovery)
                  device authorization endpoint:  https://github.com/login/device/code
                  token endpoint:                 https://github.com/login/oauth/access_token
                  authorization endpoint:         https://github.com/login/oauth/authorize
                  revocation endpoint:            none
                  userinfo endpoint:              none
                  scopes:                         repo read:org
                  client ID:                      app
                  client authentication:          none (a public client)
                  DPoP:                           no
                  flow:                           auto: the device flow: no graphical session, and the server offers it
                  saved to:                       profile 'default' (/nonexistent/device-login/default.json)

                """)
    }

    @Test(
        "the flow line: --flow's word, auto's choice in this session, the kiosk's device flow",
        arguments: [
            (
                [], ["DISPLAY": ":0"],
                "auto: the browser on this device: a graphical session, not over SSH, if the server"
            ),
            (
                [], ["DISPLAY": ":0", "SSH_TTY": "/dev/pts/0"],
                "auto: the device flow: over SSH, and the server offers it"
            ),
            (["--flow", "paste"], [:], "paste (as asked)"),
            (["--kiosk"], ["DISPLAY": ":0"], "device (--kiosk is device-flow only)"),
        ] as [([String], [String: String], String)])
    func flowLine(words: [String], environment: [String: String], line: String) async {
        let result = await CLIHarness.run(
            ["login", "--dry-run", "--issuer", "https://a.example", "--client-id", "c", "--no-store"] + words,
            environment: environment, transport: Self.noRequest)
        #expect(result.code == .success, "\(result.stderr)")
        #expect(result.stdout.contains("  flow:                           " + line), "\(result.stdout)")
    }

    @Test("keycloak at a loopback host: which endpoints discovery would fill, from which URLs")
    func keycloak() async {
        let result = await dryRun([
            "--provider", "keycloak", "--host", "http://127.0.0.1:8080", "--realm", "ops", "--client-id", "cli",
            "--no-store",
        ])
        #expect(result.code == .success, "\(result.stderr)")
        #expect(
            result.stdout.contains(
                """
                  issuer:                         http://127.0.0.1:8080/realms/ops
                  discovery:                      http://127.0.0.1:8080/realms/ops/.well-known/openid-configuration
                                                  then http://127.0.0.1:8080/.well-known/oauth-authorization-server/realms/ops
                                                  then http://127.0.0.1:8080/.well-known/openid-configuration/realms/ops
                  device authorization endpoint:  from discovery
                  token endpoint:                 from discovery
                  authorization endpoint:         from discovery, if listed
                  revocation endpoint:            from discovery, if listed
                  userinfo endpoint:              from discovery, if listed
                  scopes:                         openid profile offline_access if discovery says the server is an \
                OpenID provider (offline_access only when its scopes_supported lists it or is absent), else none
                """))
        #expect(result.stdout.hasSuffix("  saved to:                       nothing (--no-store)\n"))
    }

    @Test("no secret is printed: not the client secret, not a secret parameter, no header value")
    func secrets() async {
        let result = await dryRun([
            "--provider", "auth0", "--domain", "t.auth0.com", "--client-id", "app",
            "--client-secret", "very-secret-value", "--param", "audience=https://api.example.com",
            "--param", "client_assertion=assertion-secret", "--header", "X-Api-Key: header-secret-value",
        ])
        #expect(result.code == .success, "\(result.stderr)")
        for secret in ["very-secret-value", "assertion-secret", "header-secret-value"] {
            #expect(!result.stdout.contains(secret), "\(secret) printed")
            #expect(!result.stderr.contains(secret), "\(secret) printed")
        }
        #expect(result.stdout.contains("  parameter:                      audience=https://api.example.com\n"))
        #expect(result.stdout.contains("  parameter:                      client_assertion=[redacted, 16 chars]\n"))
        #expect(result.stdout.contains("  header:                         X-Api-Key: [redacted, 19 chars]\n"))
        #expect(
            result.stdout.contains(
                "  client authentication:          client_secret_basic (the secret was given; it is not shown)\n"))
    }

    @Test("--json: one object with \"v\": 1, fixed keys; warnings still on stderr")
    func json() async throws {
        let result = await dryRun([
            "--provider", "google", "--client-id", "app", "--json", "--scope", "openid",
            "--scope", "https://www.googleapis.com/auth/drive",
        ])
        #expect(result.code == .success)
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["v"] as? Int == 1)
        #expect(object["provider"] as? String == "google")
        #expect(object["issuer"] as? String == "https://accounts.google.com")
        #expect(object["device_authorization_endpoint"] is NSNull)
        #expect(
            object["discovery_urls"] as? [String] == [
                "https://accounts.google.com/.well-known/openid-configuration",
                "https://accounts.google.com/.well-known/oauth-authorization-server",
            ])
        #expect(object["scopes"] as? [String] == ["openid", "https://www.googleapis.com/auth/drive"])
        #expect(
            Set(object.keys) == [
                "v", "dry_run", "provider", "issuer", "discovery_urls", "device_authorization_endpoint",
                "token_endpoint", "authorization_endpoint", "revocation_endpoint", "userinfo_endpoint", "scopes",
                "resources", "parameters",
                "headers", "client_id", "client_authentication", "dpop", "flow", "flow_choice", "profile", "store",
            ])
        #expect(result.stderr.contains("device-login: warning: Google's device flow accepts only the scopes"))
    }

    @Test("without a preset: the endpoints as given")
    func withoutPreset() async {
        let result = await dryRun([
            "--client-id", "c", "--device-authorization-endpoint", "https://a.example/device", "--token-endpoint",
            "https://a.example/token", "--no-store",
        ])
        #expect(result.code == .success, "\(result.stderr)")
        #expect(result.stdout.contains("  provider:                       none\n"))
        #expect(result.stdout.contains("  device authorization endpoint:  https://a.example/device\n"))
        #expect(result.stdout.contains("  scopes:                         none\n"))
    }

    @Test("no client ID: the preview shows what it would use with the client ID marked missing, then exit 64")
    func missingClientID() async throws {
        let result = await dryRun(["--provider", "github"])
        #expect(result.code == .usage)
        #expect(result.stdout.hasPrefix("Dry run: nothing was sent. A sign-in with these options would use:\n"))
        #expect(result.stdout.contains("  device authorization endpoint:  https://github.com/login/device/code\n"))
        #expect(
            result.stdout.contains(
                "  client ID:                      missing: give --client-id (your own app's; presets carry none)\n"))
        #expect(result.stderr.contains("missing --client-id (or DEVICE_LOGIN_CLIENT_ID)"))
        #expect(result.stderr.contains("register your own app with github"))

        let json = await dryRun(["--provider", "github", "--json"])
        #expect(json.code == .usage)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["client_id"] is NSNull)
        #expect(object["token_endpoint"] as? String == "https://github.com/login/oauth/access_token")
    }

    @Test("no client ID and another usage error: the other error, no preview")
    func missingClientIDAndAnotherError() async {
        let result = await dryRun(["--provider", "github", "--param", "novalue"])
        #expect(result.code == .usage)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("--param must look like key=value"))
    }

    @Test("a login without --dry-run still refuses a missing client ID before anything else")
    func realRunStillRefuses() async {
        let result = await CLIHarness.run(
            ["login", "--provider", "github"], environment: ["DEVICE_LOGIN_HOME": "/nonexistent/device-login"],
            transport: Self.noRequest)
        #expect(result.code == .usage)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("missing --client-id"))
    }

    @Test(
        "a plain http --host or --domain off loopback: refused as the sign-in's HTTPS policy would (78), naming it",
        arguments: [
            ["--provider", "keycloak", "--host", "http://sso.example.com", "--realm", "ops"],
            ["--provider", "gitlab", "--host", "http://gitlab.example.com"],
            ["--provider", "github", "--host", "HTTP://ghe.example.com:8080"],
            ["--provider", "okta", "--domain", "http://dev-1.okta.com"],
        ])
    func plainHTTPHost(words: [String]) async {
        let option = words[2]
        let result = await dryRun(words + ["--client-id", "app"])
        #expect(result.code == .configuration)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("device-login: \(option) is plain http:// to "))
        #expect(result.stderr.contains("--allow-insecure-http"))
    }

    @Test("a plain http --host on loopback, or with --allow-insecure-http: previewed")
    func plainHTTPHostAllowed() async {
        let loopback = await dryRun([
            "--provider", "keycloak", "--host", "http://127.0.0.1:8080", "--realm", "ops", "--client-id", "app",
        ])
        #expect(loopback.code == .success, "\(loopback.stderr)")
        let allowed = await dryRun([
            "--provider", "keycloak", "--host", "http://sso.example.com", "--realm", "ops", "--client-id", "app",
            "--allow-insecure-http",
        ])
        #expect(allowed.code == .success, "\(allowed.stderr)")
        #expect(allowed.stdout.contains("  issuer:                         http://sso.example.com/realms/ops\n"))
    }

    @Test("auth0 --domain with :443: the issuer discovery returns, without the port")
    func auth0DefaultPort() async {
        let result = await dryRun(["--provider", "auth0", "--domain", "T.us.auth0.com:443", "--client-id", "app"])
        #expect(result.code == .success, "\(result.stderr)")
        #expect(result.stdout.contains("  issuer:                         https://t.us.auth0.com/\n"))
    }

    @Test("keycloak --host with /../: refused, nothing previewed")
    func keycloakDotSegments() async {
        let result = await dryRun([
            "--provider", "keycloak", "--host", "https://sso.example.com/auth/../admin", "--realm", "ops",
            "--client-id", "app",
        ])
        #expect(result.code == .usage)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("--host: the host must be"))
    }
}
