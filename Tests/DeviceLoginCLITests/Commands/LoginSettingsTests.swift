import DeviceLogin
import DeviceLoginTerminal
import Testing

@testable import DeviceLoginCLI

@Suite("LoginSettings: login options to library values")
struct LoginSettingsTests {
    private func settings(
        _ words: [String], environment: [String: String] = [:], secrets: ClientSecretOption.Input = .system
    ) async throws -> LoginSettings {
        let parsed = try ArgumentParser.parse(
            words, options: LoginSettings.options, command: "login",
            environment: environment)
        return try await LoginSettings.parse(parsed, secrets: secrets)
    }

    @Test("issuer and client ID; OpenID default scopes left to discovery; QR auto; store on")
    func defaults() async throws {
        let value = try await settings(["--issuer", "https://auth.example.com", "--client-id", "app"])
        #expect(value.issuer == "https://auth.example.com")
        #expect(value.client.clientID == "app")
        #expect(value.client.scopes == nil)
        #expect(value.client.authentication == .none)
        #expect(value.qr == .auto)
        #expect(value.store)
        #expect(value.profile == "default")
        #expect(!value.json)
    }

    @Test("--scope repeats and takes space-separated lists")
    func scopes() async throws {
        let value = try await settings([
            "--issuer", "https://a", "--client-id", "c", "--scope", "openid email",
            "--scope", "offline_access",
        ])
        #expect(value.client.scopes == ["openid", "email", "offline_access"])
    }

    @Test("a secret means client_secret_basic unless --client-auth post")
    func secrets() async throws {
        let basic = try await settings(["--issuer", "https://a", "--client-id", "c", "--client-secret", "s"])
        #expect(basic.client.authentication == .clientSecretBasic(secret: "s"))
        let post = try await settings([
            "--issuer", "https://a", "--client-id", "c", "--client-secret", "s",
            "--client-auth", "post",
        ])
        #expect(post.client.authentication == .clientSecretPost(secret: "s"))
    }

    @Test("--param key=value pairs (Auth0 audience), resources, extra endpoints")
    func parameters() async throws {
        let value = try await settings([
            "--client-id", "c", "--device-authorization-endpoint", "https://a/device", "--token-endpoint",
            "https://a/token", "--param", "audience=https://api", "--resource", "https://api.example.com/",
            "--qr", "never", "--no-store", "--json",
        ])
        #expect(value.issuer == nil)
        #expect(value.client.additionalParameters.map(\.name) == ["audience"])
        #expect(value.client.additionalParameters.map(\.value) == ["https://api"])
        #expect(value.client.resources == ["https://api.example.com/"])
        #expect(value.deviceAuthorizationEndpoint?.absoluteString == "https://a/device")
        #expect(value.qr == .never)
        #expect(!value.store)
        #expect(value.json)
    }

    @Test(
        "usage errors",
        arguments: [
            ["--issuer", "https://a"],
            ["--client-id", "c"],
            ["--client-id", "c", "--device-authorization-endpoint", "https://a/d"],
            ["--client-id", "c", "--issuer", "not a url"],
            ["--client-id", "c", "--issuer", "ftp://a"],
            ["--client-id", "c", "--issuer", "https://a", "--qr", "sometimes"],
            ["--client-id", "c", "--issuer", "https://a", "--param", "novalue"],
            ["--client-id", "c", "--issuer", "https://a", "--param", "=v"],
            ["--client-id", "c", "--issuer", "https://a", "--resource", "relative/path"],
            ["--client-id", "c", "--issuer", "https://a", "--resource", "https://a/#frag"],
            ["--client-id", "c", "--issuer", "https://a", "--client-secret", "s", "--client-auth", "jwt"],
            ["--client-id", "c", "--issuer", "https://a", "--header", "no colon"],
            ["--client-id", "c", "--issuer", "https://a", "--header", ": empty name"],
            ["--client-id", "c", "--issuer", "https://a", "--header", "Bad Name: x"],
        ])
    func usageErrors(words: [String]) async {
        await #expect(throws: UsageError.self) { try await settings(words) }
    }

    @Test("--header Name: value, repeated")
    func headers() async throws {
        let value = try await settings([
            "--issuer", "https://a", "--client-id", "c", "--header", "X-Tenant: blue",
            "--header=X-Trace:1",
        ])
        #expect(value.client.additionalHeaders == [HTTPHeader("X-Tenant", "blue"), HTTPHeader("X-Trace", "1")])
    }

    @Test("everything can come from the environment")
    func fromEnvironment() async throws {
        let value = try await settings(
            [],
            environment: [
                "DEVICE_LOGIN_ISSUER": "https://env.example", "DEVICE_LOGIN_CLIENT_ID": "env-app",
                "DEVICE_LOGIN_SCOPE": "openid offline_access", "DEVICE_LOGIN_QR": "always",
                "DEVICE_LOGIN_NO_STORE": "1",
            ])
        #expect(value.issuer == "https://env.example")
        #expect(value.client.clientID == "env-app")
        #expect(value.client.scopes == ["openid", "offline_access"])
        #expect(value.qr == .always)
        #expect(!value.store)
    }

    /// Secrets from memory: standard input holds `stdin`, every file holds `file` with permission bits `mode`.
    private func input(stdin: String = "", file: String = "", mode: UInt32 = 0o100600) -> ClientSecretOption.Input {
        ClientSecretOption.Input(
            readFile: { _, limit in .init(bytes: Array(file.utf8.prefix(limit)), mode: mode) },
            readStandardInput: { limit in Array(stdin.utf8.prefix(limit)) }
        )
    }

    @Test("login: --client-secret - and --client-secret-file give the secret; an argument warns")
    func settings() async throws {
        func settings(_ words: [String], _ input: ClientSecretOption.Input) async throws -> LoginSettings {
            try await self.settings(["--issuer", "https://a", "--client-id", "c"] + words, secrets: input)
        }
        let piped = try await settings(["--client-secret", "-"], input(stdin: "from-stdin\n"))
        #expect(piped.client.authentication == .clientSecretBasic(secret: "from-stdin"))
        #expect(piped.warnings.isEmpty)
        let file = try await settings(
            ["--client-secret-file", "/f", "--client-auth", "post"],
            input(file: "from-file\n"))
        #expect(file.client.authentication == .clientSecretPost(secret: "from-file"))
        #expect(file.warnings.isEmpty)
        let loose = try await settings(["--client-secret-file", "/f"], input(file: "from-file", mode: 0o100644))
        #expect(loose.warnings == ["other users can read the client secret file /f (mode 644): chmod 600 it"])
        let argument = try await settings(["--client-secret", "s3cret"], input())
        #expect(argument.client.authentication == .clientSecretBasic(secret: "s3cret"))
        #expect(argument.warnings == [ClientSecretOption.warning(for: .argument("s3cret"))])
        await #expect(throws: DeviceLoginError.self) { try await settings(["--client-secret", "-"], input(stdin: "")) }
    }
}
