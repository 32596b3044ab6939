import DeviceLogin
import DeviceLoginTerminal
import Testing

@testable import DeviceLoginCLI

@Suite("DemoOptions: demo's options, and the sign-in it runs")
struct DemoOptionsTests {
    private func options(_ words: [String], environment: [String: String] = [:]) throws -> DemoOptions {
        let parsed = try ArgumentParser.parse(
            words, options: DemoCommand.handOver.options, command: "demo",
            environment: environment)
        return try DemoOptions(parsed)
    }

    @Test("defaults: wait for a person, a free port, interval 5, QR auto, text output, a sign-in")
    func defaults() throws {
        let value = try options([])
        #expect(value.approveAfter == nil)
        #expect(value.port == 0)
        #expect(value.interval == 5)
        #expect(value.qr == .auto)
        #expect(!value.json)
        #expect(!value.serve)
        #expect(value.verificationURI == nil)
    }

    @Test("--verification-uri: the address the server sends instead of its own page's; bounded")
    func verificationURI() throws {
        #expect(
            try options(["--verification-uri", "https://evil.example/device"]).verificationURI
                == "https://evil.example/device")
        for bad in ["", "https://e.example/" + String(repeating: "a", count: DemoOptions.maximumURILength)] {
            #expect(throws: UsageError.self) { try options(["--verification-uri", bad]) }
        }
    }

    @Test("every option, from the command line and from the environment")
    func given() throws {
        let value = try options(
            [
                "--approve-after", "0", "--port", "65535", "--interval", "1", "--qr", "never",
                "--json",
            ], environment: ["DEVICE_LOGIN_SERVE": "1"])
        #expect(value.approveAfter == 0)
        #expect(value.port == 65_535)
        #expect(value.interval == 1)
        #expect(value.qr == .never)
        #expect(value.json)
        #expect(value.serve)
    }

    @Test(
        "the sign-in is the one `login --issuer I --client-id C --no-store` makes, with --qr and --json",
        arguments: [
            [], ["--qr", "never"], ["--json"], ["--qr", "always", "--json"],
        ])
    func signIn(words: [String]) async throws {
        let demo = try options(words).signIn(issuer: "http://127.0.0.1:8080", clientID: "test-client")
        let login = try ArgumentParser.parse(
            ["--issuer", "http://127.0.0.1:8080", "--client-id", "test-client", "--no-store"] + words,
            options: LoginSettings.options, command: "login"
        )
        #expect(demo == (try await LoginSettings.parse(login)))
        #expect(!demo.store)
        #expect(demo.client == ClientConfiguration(clientID: "test-client"))
    }

    @Test("login's variables do not reach demo's sign-in")
    func environmentOfLogin() throws {
        let demo = try options(
            [],
            environment: [
                "DEVICE_LOGIN_CLIENT_ID": "other", "DEVICE_LOGIN_SCOPE": "openid", "DEVICE_LOGIN_NO_STORE": "0",
                "DEVICE_LOGIN_PROFILE": "work",
            ]
        ).signIn(issuer: "http://127.0.0.1:8080", clientID: "test-client")
        #expect(demo.client.clientID == "test-client")
        #expect(demo.client.scopes == nil)
        #expect(!demo.store)
        #expect(demo.profile == "default")
    }

    @Test(
        "usage errors name the option and point at demo's help",
        arguments: [
            (["--port", "65536"], "--port must be a whole number from 0 to 65535"),
            (["--interval", "0"], "--interval must be a whole number from 1 to 60"),
            (["--approve-after", "soon"], "--approve-after must be a whole number from 0 to 3600"),
            (["--approve-after", "-1"], "--approve-after must be a whole number from 0 to 3600"),
            (["--qr", "sometimes"], "--qr must be auto, always or never, not 'sometimes'"),
        ])
    func usageErrors(words: [String], message: String) throws {
        let error = try #require(throws: UsageError.self) { try options(words) }
        #expect(error == UsageError(message, command: "demo"))
    }
}
