import DeviceLogin
import DeviceLoginTesting
import Foundation
import Testing

@testable import DeviceLoginCLI

/// Store problems through the CLI (issue 8): found before `login` asks the person anything, tokens revoked when a
/// save still fails after approval, and a far time in a profile file reported instead of a crash.
@Suite(
    "Store problems: login checks first, revokes what it cannot save; status reads far times safely",
    .serialized, .timeLimit(.minutes(2)))
struct StoreProblemTests {
    /// A sign-in server on loopback that approves every code at once (polled every second, in real time).
    private static func model(script: MockAuthorizationServer.Script = .approveImmediately) -> MockAuthorizationServer {
        MockAuthorizationServer(
            configuration: MockAuthorizationServer.Configuration(
                interval: 1, rotatesRefreshTokens: true, recording: .summary, defaultScript: script
            ))
    }

    private static func login(_ server: LoopbackServer) -> [String] {
        [
            "login", "--issuer", server.issuer, "--client-id", MockAuthorizationServer.Configuration.defaultClientID,
            "--qr", "never",
        ]
    }

    /// Each problem, made in a fresh `DEVICE_LOGIN_HOME`, and what the error says.
    static let problems: [(name: String, make: @Sendable (String) throws -> Void, says: String)] = [
        (
            "a symbolic link as DEVICE_LOGIN_HOME",
            { home in
                try FileManager.default.moveItem(atPath: home, toPath: home + ".real")
                try FileManager.default.createSymbolicLink(atPath: home, withDestinationPath: home + ".real")
            }, "is a symbolic link; refusing to follow it"
        ),
        (
            "a symbolic link as the lock file",
            { home in
                try FileManager.default.createSymbolicLink(
                    atPath: home + "/default.lock", withDestinationPath: "/dev/null")
            }, "the lock file \(String.home)/default.lock is a symbolic link"
        ),
        (
            "a folder others can read",
            { home in
                try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: home)
            }, "can be accessed by other users (mode 0755)"
        ),
        (
            "a symbolic link as the token file",
            { home in
                try FileManager.default.createSymbolicLink(
                    atPath: home + "/default.json", withDestinationPath: "x.json")
            }, "the token file \(String.home)/default.json is a symbolic link"
        ),
        (
            "a lock file of another user",
            { home in
                _ = FileManager.default.createFile(atPath: home + "/default.lock", contents: nil)
                guard chown(home + "/default.lock", 65_534, 65_534) == 0 else {
                    throw CocoaError(.fileWriteNoPermission)
                }
            }, "belongs to another user (uid 65534)"
        ),
    ]

    // Issue 8: a symlinked lock file or home, or a 0755 folder, was found only after the person approved, and the
    // tokens were dropped unrevoked.
    @Test(
        "each store problem: login exits 74 before any request reaches the server",
        arguments: 0..<problems.count)
    func loginChecksTheStoreFirst(index: Int) async throws {
        let problem = Self.problems[index]
        // Making a file of another user needs root.
        guard problem.name != "a lock file of another user" || geteuid() == 0 else { return }
        let home = try BinaryHarness.temporaryHome().path
        defer {
            try? FileManager.default.removeItem(atPath: home)
            try? FileManager.default.removeItem(atPath: home + ".real")
        }
        try problem.make(home)
        let model = Self.model()
        try await LoopbackServer.withRunning(model: model) { server in
            let result = await CLIHarness.run(Self.login(server), environment: ["DEVICE_LOGIN_HOME": home])
            #expect(result.code == .ioError, "\(problem.name): \(result.stderr)")
            let says = problem.says.replacingOccurrences(of: String.home, with: home)
            #expect(result.stderr.contains(says), "\(problem.name): \(result.stderr)")
            #expect(result.stderr.contains("hint: "))
            #expect(result.stdout.isEmpty)
            #expect(model.requests.isEmpty, "\(problem.name): \(model.requests.map(\.path))")
        }
    }

    /// The metadata of `https://auth.example.test`, whose token endpoint is plain `http` on a host that is not
    /// loopback.
    private static let insecureMetadata = """
        {"issuer":"https://auth.example.test","device_authorization_endpoint":"https://auth.example.test/device",
        "token_endpoint":"http://auth.example.test/token"}
        """

    // Issue 17: a login that failed before any request had already created the state folder and the lock file.
    @Test(
        "a login that fails before the sign-in (endpoint refused: 78; server unreachable: 69) creates no folder",
        arguments: [(insecureMetadata, ExitCode.configuration), (nil, ExitCode.unavailable)])
    func aFailedLoginCreatesNoFolder(metadata: String?, exit: ExitCode) async throws {
        let parent = try BinaryHarness.temporaryHome().path
        defer { try? FileManager.default.removeItem(atPath: parent) }
        let home = parent + "/state/device-login"
        let transport = StubTransport { request in
            guard let metadata else { throw TransportError(.connectionFailed, "nobody is there") }
            return StubTransport.json(metadata)
        }
        let arguments = ["login", "--issuer", "https://auth.example.test", "--client-id", "cli", "--qr", "never"]
        let result = await CLIHarness.run(
            arguments, environment: ["DEVICE_LOGIN_HOME": home], transport: transport)
        #expect(result.code == exit, "\(result.stderr)")
        #expect(transport.requests.allSatisfy { $0.url.path.hasPrefix("/.well-known/") }, "a sign-in request was sent")
        #expect(try FileManager.default.contentsOfDirectory(atPath: parent).isEmpty, "the folder was created")
    }

    @Test("a missing home is created 0700 when the tokens are saved")
    func loginCreatesTheHome() async throws {
        let parent = try BinaryHarness.temporaryHome().path
        defer { try? FileManager.default.removeItem(atPath: parent) }
        let home = parent + "/state/device-login"
        let model = Self.model()
        try await LoopbackServer.withRunning(model: model) { server in
            let result = await CLIHarness.run(Self.login(server), environment: ["DEVICE_LOGIN_HOME": home])
            #expect(result.code == .success, "\(result.stderr)")
        }
        let attributes = try FileManager.default.attributesOfItem(atPath: home)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o700)
        #expect(try await FileTokenStore(directory: home).load(profile: "default")?.tokens != nil)
    }

    // Issue 8: tokens that could not be saved after approval were dropped while still valid.
    @Test("the store breaks while the person approves: login exits 74, and the new tokens are revoked")
    func unsavedTokensAreRevoked() async throws {
        let home = try BinaryHarness.temporaryHome().path
        defer { try? FileManager.default.removeItem(atPath: home) }
        let model = Self.model(script: .pending)
        try await LoopbackServer.withRunning(model: model) { server in
            let arguments = Self.login(server)
            let login = Task { await CLIHarness.run(arguments, environment: ["DEVICE_LOGIN_HOME": home]) }
            var waited = 0
            while model.lastAuthorization == nil, waited < 2_000 {
                try await Task.sleep(for: .milliseconds(10))
                waited += 1
            }
            let authorization = try #require(model.lastAuthorization)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: home)
            #expect(model.approve(deviceCode: authorization.deviceCode))
            let result = await login.value
            #expect(result.code == .ioError)
            #expect(result.stderr.contains("can be accessed by other users"), "\(result.stderr)")
            #expect(result.stderr.contains("the new tokens were not saved, so they were revoked at the server"))
            #expect(result.stdout.isEmpty)
            #expect(model.revocations.map(\.tokenTypeHint) == ["refresh_token", "access_token"])
            #expect(model.revocations.first?.kind == .refreshToken, "a live refresh token was revoked")
        }
    }

    // Issue 17: `login --json --no-store > /dev/full` exited 74 and left the tokens, written nowhere, valid.
    @Test(
        "login --no-store whose result cannot be written: the lost tokens are revoked (74, said; SIGPIPE: 141, quiet)",
        arguments: [ProcessHarness.Output.full, .brokenPipe])
    func unwrittenTokensAreRevoked(output: ProcessHarness.Output) async throws {
        let home = try BinaryHarness.temporaryHome().path
        defer { try? FileManager.default.removeItem(atPath: home) }
        let model = Self.model()
        try await LoopbackServer.withRunning(model: model) { server in
            let result = try await ProcessHarness.run(
                Self.login(server) + ["--json", "--no-store", "--quiet"], environment: ["DEVICE_LOGIN_HOME": home],
                output: output)
            #expect(model.revocations.map(\.tokenTypeHint) == ["refresh_token", "access_token"])
            #expect(model.revocations.first?.kind == .refreshToken, "a live refresh token was revoked")
            for revocation in model.revocations {
                #expect(!result.stderr.contains(revocation.token), "a token reached stderr")
                #expect(!model.isValid(accessToken: revocation.token))
                #expect(!model.isValid(refreshToken: revocation.token))
            }
            if case .brokenPipe = output {
                #expect(result.status == 128 + SIGPIPE, "\(result.stderr)")
                #expect(result.stderr.isEmpty, "\(result.stderr)")
            } else {
                #expect(result.status == ExitCode.ioError.rawValue, "\(result.stderr)")
                #expect(
                    result.stderr.contains(
                        "the tokens could not be written to standard output and were revoked at the server"),
                    "\(result.stderr)")
            }
        }
    }

    // Issue 8, bug 1: a stored expires_at of ±1e300 or 9.3e18 made every later status trap (SIGILL).
    @Test(
        "status of the binary on a profile file with a far time: exit 74 naming the file, never a signal",
        arguments: ["1e+300", "-1e+300", "9.3e+18", "9300000000000000000"])
    func farTimeInTheProfileFile(number: String) async throws {
        let home = try BinaryHarness.temporaryHome().path
        defer { try? FileManager.default.removeItem(atPath: home) }
        let marker = 1_234_567_890.5
        let endpoints = ServerEndpoints(
            issuer: "https://auth.example.test", deviceAuthorization: URL(string: "https://a.test/d"),
            token: try #require(URL(string: "https://a.test/t"))
        )
        let profile = try Profile(endpoints: endpoints, clientID: "cli")
        let tokens = TokenSet(
            accessToken: "at-far", expiresAt: Date(timeIntervalSince1970: marker),
            issuedAt: Date(timeIntervalSince1970: 1_800_000_000))
        try await FileTokenStore(directory: home).save(ProfileRecord(profile: profile, tokens: tokens))
        let path = home + "/default.json"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains("\(marker)"))
        let planted = text.replacingOccurrences(of: "\(marker)", with: number)
        try planted.write(toFile: path, atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)

        for arguments in [["status"], ["status", "--json"], ["token"]] {
            let result = try await BinaryHarness.run(arguments, environment: ["DEVICE_LOGIN_HOME": home])
            #expect(result.status == ExitCode.ioError.rawValue, "\(arguments) with \(number): \(result.stderr)")
            #expect(result.stderr.contains("the token file \(path) is corrupt: tokens.expires_at is "))
            #expect(result.stderr.contains("mv \(path) \(path).bad"))
            #expect(result.stdout.isEmpty)
        }
    }
}

extension String {
    /// Where the test's home goes in an expected message.
    fileprivate static let home = "$HOME"
}
