import DeviceLogin
import DeviceLoginTesting
import Foundation
import Testing

@testable import DeviceLoginCLI

/// `device-login token`, `status`, `userinfo` and `logout` as separate processes against the loopback mock.
@Suite("Session commands of the real binary against the loopback mock", .serialized)
struct TokenCommandTests {
    /// Virtual time for the mock and the sign-in: the poll interval passes without waiting. (A fresh clock per test.)
    private let clock = ManualClock()

    /// Signs in through the library and saves the profile in `home`, the way `login` does.
    private func signIn(
        _ server: LoopbackServer, model: MockAuthorizationServer, home: URL, profile: String,
        client: ClientConfiguration = ClientConfiguration(
            clientID: MockAuthorizationServer.Configuration.defaultClientID
        )
    ) async throws -> TokenResponse {
        try await ProcessHarness.signIn(model: model, clock: clock, home: home, profile: profile, client: client)
    }

    /// Makes the stored access token of `profile` look expired an hour ago.
    private func expire(profile: String, home: URL) async throws {
        let store = FileTokenStore(directory: home.path)
        var record = try #require(try await store.load(profile: profile))
        record.tokens?.expiresAt = Date().addingTimeInterval(-3600)
        try await store.save(record)
    }

    private func model(rotating: Bool = true) -> MockAuthorizationServer {
        MockAuthorizationServer(
            configuration: MockAuthorizationServer.Configuration(
                interval: 1, rotatesRefreshTokens: rotating, recording: .summary
            ),
            clock: clock
        )
    }

    @Test("16 processes on an expired token: exactly one refresh, 16 identical tokens")
    func sixteenProcesses() async throws {
        let home = try BinaryHarness.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let model = model()
        try await LoopbackServer.withRunning(model: model) { server in
            let first = try await signIn(server, model: model, home: home, profile: "race")
            try await expire(profile: "race", home: home)
            #expect(model.refreshRequestCount == 0)
            let environment = ["DEVICE_LOGIN_HOME": home.path]
            let running = try (0..<16).map { _ in
                try BinaryHarness.start(["token", "--profile", "race"], environment: environment)
            }
            try await expectOneRefresh(running, model: model, replacing: first)
        }
    }

    /// Waits for the processes: each exits 0, the server saw exactly one refresh, and all printed the one new token.
    private func expectOneRefresh(
        _ running: [BinaryHarness.Running], model: MockAuthorizationServer, replacing first: TokenResponse
    ) async throws {
        var outputs: [String] = []
        for process in running {
            let result = try await process.finish()
            #expect(result.status == 0, "stderr: \(result.stderr)")
            outputs.append(result.stdout)
        }
        #expect(model.refreshRequestCount == 1)
        #expect(Set(outputs).count == 1)
        let token = try #require(outputs.first).trimmingCharacters(in: .newlines)
        #expect(!token.isEmpty)
        #expect(token != first.accessToken)
        #expect(model.isValid(accessToken: token))
    }

    // Issue 8: with --min-ttl beyond the server's token lifetime, each process found the token another had just
    // refreshed still too short, and refreshed again: N processes, N refreshes in a row.
    @Test("16 processes with --min-ttl beyond the server's token lifetime: exactly one refresh, 16 identical tokens")
    func sixteenProcessesWithALongMinimumTTL() async throws {
        let home = try BinaryHarness.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let model = model()
        try await LoopbackServer.withRunning(model: model) { server in
            let first = try await signIn(server, model: model, home: home, profile: "race")
            let environment = ["DEVICE_LOGIN_HOME": home.path]
            let arguments = ["token", "--profile", "race", "--min-ttl", "7200"]
            #expect(model.configuration.accessTokenLifetime < 7200)
            // Held here until all 16 wait for it, so that every one asked before the one refresh was made.
            let store = FileTokenStore(directory: home.path)
            let running = try await store.withExclusiveAccess(profile: "race") {
                let running = try (0..<16).map { _ in try BinaryHarness.start(arguments, environment: environment) }
                try await Self.waitUntilOpen(home.appendingPathComponent("race.lock").path, by: running)
                return running
            }
            try await expectOneRefresh(running, model: model, replacing: first)
        }
    }

    /// Waits until each process has `path` open (it is waiting for the lock), by its `/proc/PID/fd` links; where
    /// there is no `/proc`, waits 5 seconds instead.
    private static func waitUntilOpen(_ path: String, by running: [BinaryHarness.Running]) async throws {
        guard FileManager.default.fileExists(atPath: "/proc/self/fd") else {
            try await Task.sleep(for: .seconds(5))
            return
        }
        func hasOpen(_ pid: Int32) -> Bool {
            let directory = "/proc/\(pid)/fd"
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            return entries.contains { entry in
                (try? FileManager.default.destinationOfSymbolicLink(atPath: directory + "/" + entry)) == path
            }
        }
        let deadline = ContinuousClock.now + .seconds(60)
        while !running.allSatisfy({ hasOpen($0.process.processIdentifier) }) {
            guard ContinuousClock.now < deadline else {
                Issue.record("not every process opened \(path) within 60 s")
                return
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    @Test("the fast path: a valid stored token is printed with no request at all")
    func fastPath() async throws {
        let home = try BinaryHarness.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let model = model()
        try await LoopbackServer.withRunning(model: model) { server in
            let first = try await signIn(server, model: model, home: home, profile: "default")
            let before = model.requests.count
            let result = try await BinaryHarness.run(["token"], environment: ["DEVICE_LOGIN_HOME": home.path])
            #expect(result.status == 0)
            #expect(result.stdout == first.accessToken + "\n")
            #expect(result.stderr.isEmpty)
            #expect(model.requests.count == before)

            let json = try await BinaryHarness.run(["token", "--json"], environment: ["DEVICE_LOGIN_HOME": home.path])
            let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
            #expect(object?["v"] as? Int == 1)
            #expect(object?["access_token"] as? String == first.accessToken)
            #expect(object?["expires_at"] is String)
            #expect(object?["token_type"] as? String == "Bearer")

            // --min-ttl longer than the token's life forces a refresh.
            let forced = try await BinaryHarness.run(
                ["token", "--min-ttl", "7200"],
                environment: ["DEVICE_LOGIN_HOME": home.path])
            #expect(forced.status == 0)
            #expect(forced.stdout != result.stdout)
            #expect(model.refreshRequestCount == 1)
        }
    }

    @Test("status never prints a token; userinfo; logout revokes refresh then access and deletes the profile")
    func statusUserinfoLogout() async throws {
        let home = try BinaryHarness.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let model = model(rotating: false)
        try await LoopbackServer.withRunning(model: model) { server in
            let first = try await signIn(server, model: model, home: home, profile: "work")
            let environment = ["DEVICE_LOGIN_HOME": home.path]
            let status = try await BinaryHarness.run(["status", "--profile", "work"], environment: environment)
            #expect(status.status == 0)
            #expect(status.stdout.hasPrefix("Signed in as ada@example.test"))
            #expect(status.stdout.contains(home.path))
            let refresh = try #require(first.refreshToken)
            for secret in [first.accessToken, refresh, first.idToken ?? "x-none"] {
                #expect(!status.stdout.contains(secret) && !status.stderr.contains(secret))
            }
            let statusJSON = try await BinaryHarness.run(
                ["status", "--profile", "work", "--json"],
                environment: environment)
            let object = try JSONSerialization.jsonObject(with: Data(statusJSON.stdout.utf8)) as? [String: Any]
            #expect(object?["signed_in"] as? Bool == true)

            let info = try await BinaryHarness.run(
                ["userinfo", "--profile", "work", "--json"],
                environment: environment)
            #expect(info.status == 0, "stderr: \(info.stderr)")
            let claims = try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any]
            #expect(claims?["email"] as? String == "ada@example.test")

            let logout = try await BinaryHarness.run(["logout", "--profile", "work"], environment: environment)
            #expect(logout.status == 0, "stderr: \(logout.stderr)")
            #expect(logout.stderr.contains("Revoked the refresh token."))
            #expect(model.revocations.count == 2)
            #expect(!model.isValid(refreshToken: refresh))
            #expect(!model.isValid(accessToken: first.accessToken))
            let after = try await BinaryHarness.run(["status", "--profile", "work"], environment: environment)
            #expect(after.status == 77)
        }
    }

    // Issue 8: logout deleted the profile when revocation failed, leaving its tokens valid with no way to revoke them.
    @Test("logout while the server cannot revoke: the profile stays, exit 69, --local named; once back, logout works")
    func logoutKeepsTheProfileWhenRevocationFails() async throws {
        let home = try BinaryHarness.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let model = model(rotating: false)
        let (first, port) = try await LoopbackServer.withRunning(model: model) { server in
            (try await signIn(server, model: model, home: home, profile: "work"), server.port)
        }
        let environment = ["DEVICE_LOGIN_HOME": home.path]
        let file = home.appendingPathComponent("work.json")
        let before = try Data(contentsOf: file)
        // The server is down: every revocation fails.
        let failed = try await BinaryHarness.run(["logout", "--profile", "work"], environment: environment)
        #expect(failed.status == ExitCode.unavailable.rawValue, "stderr: \(failed.stderr)")
        #expect(failed.stderr.contains("Not revoked: the refresh token: "))
        #expect(failed.stderr.contains("Not revoked: the access token: "))
        #expect(
            failed.stderr.contains(
                "device-login: the server could not revoke every token; kept profile 'work' "
                    + "and its tokens\n"))
        #expect(failed.stderr.contains("`device-login logout --local --profile work`"))
        #expect(failed.stdout.isEmpty)
        for secret in [first.accessToken, first.refreshToken ?? "x-none"] { #expect(!failed.stderr.contains(secret)) }
        #expect(try Data(contentsOf: file) == before, "the profile and its tokens are exactly as they were")
        #expect(model.revocations.isEmpty)

        // The server is back on the same port: logout revokes, then deletes the profile.
        try await LoopbackServer.withRunning(model: model, port: port) { _ in
            let again = try await BinaryHarness.run(["logout", "--profile", "work"], environment: environment)
            #expect(again.status == 0, "stderr: \(again.stderr)")
            #expect(again.stdout == "Signed out of profile 'work'.\n")
        }
        #expect(model.revocations.map(\.tokenTypeHint) == ["refresh_token", "access_token"])
        #expect(!model.isValid(refreshToken: try #require(first.refreshToken)))
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    @Test("logout --local deletes a profile whose tokens the server could not revoke")
    func logoutLocalAfterAFailedRevocation() async throws {
        let home = try BinaryHarness.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let model = model(rotating: false)
        try await LoopbackServer.withRunning(model: model) { server in
            _ = try await signIn(server, model: model, home: home, profile: "default")
        }
        let environment = ["DEVICE_LOGIN_HOME": home.path]
        let failed = try await BinaryHarness.run(["logout"], environment: environment)
        #expect(failed.status == ExitCode.unavailable.rawValue)
        #expect(failed.stderr.contains("`device-login logout --local`"))
        let local = try await BinaryHarness.run(["logout", "--local"], environment: environment)
        #expect(local.status == 0, "stderr: \(local.stderr)")
        #expect(local.stdout == "Signed out of profile 'default' (locally).\n")
        #expect(try await FileTokenStore(directory: home.path).load(profile: "default") == nil)
    }

    @Test("an invalid_grant on refresh ends the session: exit 77 and the tokens are gone")
    func sessionEnded() async throws {
        let home = try BinaryHarness.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let model = model()
        try await LoopbackServer.withRunning(model: model) { server in
            _ = try await signIn(server, model: model, home: home, profile: "default")
            try await expire(profile: "default", home: home)
            model.configure { $0.refreshFaults = [1: .oauthError(.invalidGrant)] }
            let result = try await BinaryHarness.run(["token"], environment: ["DEVICE_LOGIN_HOME": home.path])
            #expect(result.status == 77)
            #expect(result.stdout.isEmpty)
            // One line: the server's reason, then the login command with the profile's own server and client.
            #expect(
                result.stderr.hasPrefix("device-login: the server ended the session (invalid_grant: "),
                "\(result.stderr)")
            #expect(
                result.stderr.hasSuffix(
                    "; sign in with: device-login login --issuer \(model.issuer) --client-id test-client\n"))
            #expect(result.stderr.filter { $0 == "\n" }.count == 1)
            let record = try await FileTokenStore(directory: home.path).load(profile: "default")
            #expect(record?.tokens == nil)
        }
    }

    @Test("a confidential client's refresh: the secret from a file, stdin, the environment, or an argument (warned)")
    func clientSecrets() async throws {
        let home = try BinaryHarness.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let secret = "s3cret:&"
        let model = model()
        model.configure { $0.clients = [.init(id: "conf", authentication: .clientSecretBasic(secret: secret))] }
        let secretFile = home.appendingPathComponent("client-secret")
        try Data((secret + "\n").utf8).write(to: secretFile)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: secretFile.path)
        let warning =
            "device-login: warning: --client-secret on the command line is visible to other users in ps; "
            + "use --client-secret-file or --client-secret - (stdin)\n"
        try await LoopbackServer.withRunning(model: model) { server in
            let client = ClientConfiguration(clientID: "conf", authentication: .clientSecretBasic(secret: secret))
            _ = try await signIn(server, model: model, home: home, profile: "default", client: client)
            let environment = ["DEVICE_LOGIN_HOME": home.path]
            let ways: [(words: [String], environment: [String: String], input: Data?, stderr: String)] = [
                (["--client-secret-file", secretFile.path], [:], nil, ""),
                (["--client-secret", "-"], [:], Data((secret + "\n").utf8), ""),
                ([], ["DEVICE_LOGIN_CLIENT_SECRET": secret], nil, ""),
                (["--client-secret", secret], [:], nil, warning),
            ]
            for (number, way) in ways.enumerated() {
                try await expire(profile: "default", home: home)
                let result = try await ProcessHarness.run(
                    ["token"] + way.words, environment: environment.merging(way.environment) { $1 }, input: way.input
                )
                #expect(result.status == 0, "\(way.words): \(result.stderr)")
                #expect(result.stderr == way.stderr)
                #expect(model.refreshRequestCount == number + 1)
            }
            // No secret where the profile needs one: a configuration error before any request.
            try await expire(profile: "default", home: home)
            let missing = try await ProcessHarness.run(
                ["token", "--client-secret", "-"], environment: environment,
                input: Data())
            #expect(missing.status == 78)
            #expect(missing.stderr == "device-login: the client secret from standard input is empty\n")
            #expect(model.refreshRequestCount == ways.count)
        }
    }

    // Issue 17: a refresh token or client secret the server repeated in error_description reached stderr.
    @Test("a refresh refused by a server echoing the refresh token and the client secret: neither on stderr")
    func echoedSecrets() async throws {
        let home = try BinaryHarness.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let secret = "token-secret-\(UUID().uuidString)"
        let model = model()
        model.configure { $0.clients = [.init(id: "conf", authentication: .clientSecretBasic(secret: secret))] }
        try await LoopbackServer.withRunning(model: model) { server in
            let client = ClientConfiguration(clientID: "conf", authentication: .clientSecretBasic(secret: secret))
            let response = try await signIn(server, model: model, home: home, profile: "default", client: client)
            let refreshToken = try #require(response.refreshToken)
            // server_error keeps the session, so it is tried with and without the trace; invalid_grant ends it.
            let serverError = OAuthError.Code(rawValue: "server_error")
            let runs = [(serverError, [String]()), (serverError, ["--verbose"]), (.invalidGrant, [])]
            for (code, words) in runs {
                try await expire(profile: "default", home: home)
                let faults = (1...40).map { ($0, MockAuthorizationServer.Fault.echoingCredentials(code)) }
                model.configure { $0.refreshFaults = Dictionary(uniqueKeysWithValues: faults) }
                let result = try await BinaryHarness.run(
                    ["token"] + words,
                    environment: ["DEVICE_LOGIN_HOME": home.path, "DEVICE_LOGIN_CLIENT_SECRET": secret])
                #expect(result.status != 0)
                for text in [result.stdout, result.stderr] {
                    #expect(!text.contains(secret), "\(text)")
                    #expect(!text.contains(refreshToken), "\(text)")
                    #expect(!text.contains(response.accessToken), "\(text)")
                }
                // The error itself, not the trace (which redacted before): it says a value was there.
                let error = result.stderr.split(separator: "\n").filter { !$0.hasPrefix("device-login: http") }
                #expect(
                    error.contains { $0.contains("[redacted, \(refreshToken.count) chars]") }, "\(result.stderr)")
            }
        }
    }
}

@Suite("token --json: the v1 shape")
struct TokenJSONShapeTests {
    @Test("token --json: v 1 and fixed keys")
    func tokenDocument() async throws {
        let home = try BinaryHarness.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let token = try await ProcessHarness.saveSignedInProfile(home: home)
        let result = await CLIHarness.run(["token", "--json"], environment: ["DEVICE_LOGIN_HOME": home.path])
        #expect(result.code == .success, "\(result.stderr)")
        let document = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(Set(document.keys) == ["v", "access_token", "token_type", "expires_at"])
        #expect(document["v"] as? Int == 1)
        #expect(document["access_token"] as? String == token)
    }
}
