import DeviceLogin
import DeviceLoginTesting
import Foundation
import Testing

@testable import DeviceLoginCLI

/// `login --detach` and `login --resume` as real processes against the demo's loopback server, which enforces the
/// interval and counts every RFC 8628 rule a client breaks. Real time, kept short: the server asks for 1 s.
@Suite("login --detach / --resume: a sign-in that survives the process", .serialized, .timeLimit(.minutes(2)))
struct DetachedSignInTests {
    /// The demo server, started with `arguments`, and its issuer.
    private func startServer(approveAfter: Int, _ extra: [String] = []) async throws -> (BinaryHarness.Running, String)
    {
        let server = try BinaryHarness.start(
            ["demo", "--serve", "--approve-after", "\(approveAfter)", "--interval", "1"] + extra, environment: [:])
        let issuer = await firstLine(of: server)
        #expect(issuer.hasPrefix("http://127.0.0.1:"))
        return (server, issuer)
    }

    /// Stops the server and expects it saw no RFC 8628 violation; a failure shows the server's summary, which names
    /// each violation (which rule, which poll, how soon).
    private func expectNoViolations(
        stopping server: BinaryHarness.Running, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let summary = try await stop(server)
        #expect(violations(in: summary) == "0", "\(summary)", sourceLocation: sourceLocation)
    }

    /// Stops the server and returns what it wrote on stderr.
    private func stop(_ server: BinaryHarness.Running) async throws -> String {
        server.process.interrupt()
        let served = try await server.finish()
        #expect(served.status == 0, "\(served.stderr)")
        return served.stderr
    }

    /// The number of RFC 8628 violations in the server's summary.
    private func violations(in summary: String) -> String {
        let marker = "RFC 8628 violations seen: "
        guard let range = summary.range(of: marker) else { return "(no summary)" }
        return String(summary[range.upperBound...].prefix { $0 != "." })
    }

    private func detach(issuer: String, home: URL) async throws -> BinaryHarness.Run {
        try await BinaryHarness.run(
            ["login", "--detach", "--issuer", issuer, "--client-id", "test-client", "--qr", "never"],
            environment: ["DEVICE_LOGIN_HOME": home.path])
    }

    /// A fresh home, the server, and a sign-in detached against it (checked to have exited 0).
    private func detachedSignIn(
        approveAfter: Int
    ) async throws -> (home: URL, server: BinaryHarness.Running, detached: BinaryHarness.Run) {
        let home = try BinaryHarness.temporaryHome()
        let (server, issuer) = try await startServer(approveAfter: approveAfter)
        let detached = try await detach(issuer: issuer, home: home)
        #expect(detached.status == 0, "\(detached.stderr)")
        return (home, server, detached)
    }

    private func resume(home: URL, _ extra: [String] = []) throws -> BinaryHarness.Running {
        try BinaryHarness.start(["login", "--resume"] + extra, environment: ["DEVICE_LOGIN_HOME": home.path])
    }

    /// A `--resume` started and known to poll: it holds the polling lock once it says it is waiting.
    private func pollingResume(home: URL) async throws -> BinaryHarness.Running {
        let running = try resume(home: home)
        let waiting = await firstLine(of: running, stderr: true)
        #expect(waiting.hasPrefix("Waiting for the sign-in with code "))
        return running
    }

    @Test("--detach exits 0 at once; --resume 3 s later ends in a token, the pending file gone, 0 RFC violations")
    func detachThenResume() async throws {
        let (home, server, detached) = try await detachedSignIn(approveAfter: 2)
        defer { try? FileManager.default.removeItem(at: home) }
        #expect(detached.stdout.isEmpty)
        let pendingPath = home.appendingPathComponent("default.pending").path
        #expect(
            detached.stderr.contains(
                "The sign-in is pending (\(pendingPath)); finish it with: "
                    + "device-login login --resume\n"))
        let attributes = try FileManager.default.attributesOfItem(atPath: pendingPath)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let stored = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: pendingPath)))
        let response = (stored as? [String: Any])?["response"] as? [String: Any]
        let deviceCode = try #require(response?["device_code"] as? String)
        let userCode = try #require(response?["user_code"] as? String)
        #expect(detached.stderr.contains(userCode))
        #expect(!detached.stderr.contains(deviceCode))
        let status = try await BinaryHarness.run(["status", "--json"], environment: ["DEVICE_LOGIN_HOME": home.path])
        #expect(status.status == ExitCode.notSignedIn.rawValue)
        #expect(status.stdout.contains("\"user_code\":\"\(userCode)\""))
        #expect(!status.stdout.contains(deviceCode))

        try await Task.sleep(for: .seconds(3))
        let resumed = try await resume(home: home).finish()
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.stdout.hasPrefix("Signed in to 127.0.0.1:"))
        #expect(resumed.stdout.hasSuffix(" as ada@example.test; the access token is valid for 1 h.\n"))
        #expect(resumed.stderr.contains("Waiting for the sign-in with code \(userCode) to be approved at "))
        #expect(!resumed.stderr.contains(deviceCode))
        #expect(!FileManager.default.fileExists(atPath: pendingPath))
        #expect(FileManager.default.fileExists(atPath: home.appendingPathComponent("default.json").path))
        // Nothing is left to resume: said so, naming login.
        let again = try await resume(home: home).finish()
        #expect(again.status == ExitCode.notSignedIn.rawValue)
        #expect(again.stderr.contains("there is no pending sign-in for profile 'default'"))
        #expect(again.stderr.contains("device-login login"))
        try await expectNoViolations(stopping: server)
    }

    @Test("two resumes at once: one polls, the other says so and exits 75; 0 RFC violations")
    func twoResumes() async throws {
        let (home, server, _) = try await detachedSignIn(approveAfter: 5)
        defer { try? FileManager.default.removeItem(at: home) }
        let first = try await pollingResume(home: home)
        let second = try await resume(home: home).finish()
        #expect(second.status == ExitCode.busy.rawValue)
        #expect(
            second.stderr.hasPrefix(
                "device-login: another device-login is already waiting for this sign-in (pid \(first.process.processIdentifier))\n"
            ))
        let result = try await first.finish()
        #expect(result.status == 0, "\(result.stderr)")
        try await expectNoViolations(stopping: server)
    }

    @Test("logout abandons a pending sign-in: the file gone, exit 0, and a later --resume finds nothing (77)")
    func logoutAbandonsAPendingSignIn() async throws {
        let (home, server, _) = try await detachedSignIn(approveAfter: 5)
        defer { try? FileManager.default.removeItem(at: home) }
        let environment = ["DEVICE_LOGIN_HOME": home.path]
        let pendingPath = home.appendingPathComponent("default.pending").path
        #expect(FileManager.default.fileExists(atPath: pendingPath))
        // No profile was saved yet: logout still has something to sign out.
        let logout = try await BinaryHarness.run(["logout"], environment: environment)
        #expect(logout.status == 0, "\(logout.stderr)")
        #expect(logout.stdout == "Signed out of profile 'default' (nothing was signed in yet).\n")
        #expect(logout.stderr == "Abandoned the pending sign-in of profile 'default'.\n")
        #expect(!FileManager.default.fileExists(atPath: pendingPath))
        let resumed = try await resume(home: home).finish()
        #expect(resumed.status == ExitCode.notSignedIn.rawValue, "\(resumed.stderr)")
        // Now there is nothing at all: 77, as before.
        let again = try await BinaryHarness.run(["logout"], environment: environment)
        #expect(again.status == ExitCode.notSignedIn.rawValue, "\(again.stderr)")
        try await expectNoViolations(stopping: server)
    }

    @Test("logout while a --resume polls the pending sign-in changes nothing and exits 75, naming the poller")
    func logoutWhileResuming() async throws {
        let (home, server, _) = try await detachedSignIn(approveAfter: 4)
        defer { try? FileManager.default.removeItem(at: home) }
        let environment = ["DEVICE_LOGIN_HOME": home.path]
        let first = try await pollingResume(home: home)
        let logout = try await BinaryHarness.run(["logout"], environment: environment)
        #expect(logout.status == ExitCode.busy.rawValue, "\(logout.stderr)")
        #expect(logout.stderr.contains("(pid \(first.process.processIdentifier))"), "\(logout.stderr)")
        #expect(FileManager.default.fileExists(atPath: home.appendingPathComponent("default.pending").path))
        let result = try await first.finish()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: home.appendingPathComponent("default.json").path))
        try await expectNoViolations(stopping: server)
    }

    @Test("a resume that gave up (--timeout) leaves the sign-in pending; the next never polls early; 0 violations")
    func resumeAfterTimeout() async throws {
        let (home, server, _) = try await detachedSignIn(approveAfter: 4)
        defer { try? FileManager.default.removeItem(at: home) }
        let gaveUp = try await resume(home: home, ["--timeout", "2s"]).finish()
        #expect(gaveUp.status == ExitCode.expired.rawValue)
        #expect(
            gaveUp.stderr.contains(
                "device-login: gave up: the sign-in was not approved within 2 s (--timeout)\n"
                    + "hint: the sign-in is still pending: `device-login login --resume` waits again\n"))
        let pendingPath = home.appendingPathComponent("default.pending").path
        let stored = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: pendingPath)))
        #expect((stored as? [String: Any])?["last_poll_at"] != nil)
        let resumed = try await resume(home: home, ["--json"]).finish()
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.stdout.contains("\"access_token\""))
        try await expectNoViolations(stopping: server)
    }

    @Test("--detach --dpop: the resumed polls are proven with the key the code was requested with; it is saved")
    func detachedDPoP() async throws {
        let home = try BinaryHarness.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let (server, issuer) = try await startServer(approveAfter: 2, ["--dpop"])
        let detached = try await BinaryHarness.run(
            ["login", "--detach", "--dpop", "--issuer", issuer, "--client-id", "test-client", "--qr", "never"],
            environment: ["DEVICE_LOGIN_HOME": home.path])
        #expect(detached.status == 0, "\(detached.stderr)")
        #expect(!FileManager.default.fileExists(atPath: home.appendingPathComponent("default.dpop.jwk").path))
        let resumed = try await resume(home: home).finish()
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.stdout.hasSuffix("; the tokens are bound to a DPoP key.\n"))
        #expect(FileManager.default.fileExists(atPath: home.appendingPathComponent("default.dpop.jwk").path))
        let summary = try await stop(server)
        #expect(violations(in: summary) == "0")
        // Every proof the server checked, the device authorization's and the polls', was made with one key.
        let thumbprints = summary.split(separator: "\n").compactMap { line -> Substring? in
            guard let range = line.range(of: "; jkt ") else { return nil }
            return line[range.upperBound...].prefix { $0 != ";" }
        }
        #expect(summary.contains("POST /device/code → 200; DPoP accepted"))
        #expect(summary.contains("→ 200; DPoP accepted"))
        #expect(thumbprints.count >= 3)
        #expect(Set(thumbprints).count == 1)
    }

    @Test(
        "--detach refuses --no-store, --timeout and --json; unless they come from the environment",
        arguments: [
            (["--no-store"], "--detach saves the pending sign-in with the profile; it cannot go with --no-store"),
            (["--timeout", "5m"], "--detach does not wait; give --timeout to --resume"),
            (["--json"], "--detach prints no result; give --json to --resume"),
        ])
    func detachRefusals(extra: [String], message: String) throws {
        let words = ["--detach", "--issuer", "https://a.example", "--client-id", "c"]
        let options = try ArgumentParser.parse(words + extra, options: LoginCommand.spec.options, command: "login")
        #expect(throws: UsageError(message, command: "login")) {
            try DetachedSignIn.checkDetach(options, command: "login")
        }
        let fromEnvironment = try ArgumentParser.parse(
            words, options: LoginCommand.spec.options, command: "login",
            environment: ["DEVICE_LOGIN_JSON": "1", "DEVICE_LOGIN_NO_STORE": "1"])
        try DetachedSignIn.checkDetach(fromEnvironment, command: "login")
    }

    @Test("--resume takes its own few options; a sign-in setting on the command line is a usage error (64)")
    func resumeRefusesSettings() async throws {
        let home = try BinaryHarness.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let refused = try await BinaryHarness.run(
            ["login", "--resume", "--scope", "email"], environment: ["DEVICE_LOGIN_HOME": home.path])
        #expect(refused.status == ExitCode.usage.rawValue)
        #expect(
            refused.stderr.hasPrefix(
                "device-login: --resume finishes the pending sign-in with the settings it was started with; --scope"
                    + " cannot be given with it\n"))
        // A client ID from the environment is no setting given to --resume: nothing pending is what it says.
        let nothing = try await BinaryHarness.run(
            ["login", "--resume", "--profile", "work"],
            environment: ["DEVICE_LOGIN_HOME": home.path, "DEVICE_LOGIN_CLIENT_ID": "c"])
        #expect(nothing.status == ExitCode.notSignedIn.rawValue)
        #expect(nothing.stderr.hasPrefix("device-login: there is no pending sign-in for profile 'work'\n"))
    }

    @Test("an expired pending sign-in is removed, and said so: exit 66, no request, the file gone")
    func expiredRemoved() async throws {
        let home = try BinaryHarness.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let endpoints = ServerEndpoints(
            deviceAuthorization: URL(string: "http://127.0.0.1:9/device"),
            token: try #require(URL(string: "http://127.0.0.1:9/token")))
        let response = DeviceAuthorizationResponse(
            deviceCode: "dc", userCode: "WDJB-MJHT", verificationURI: "http://127.0.0.1:9/device", expiresIn: 600)
        let receivedAt = Date(timeIntervalSince1970: 1_700_000_000)
        try await FileTokenStore(directory: home.path).savePending(
            try PendingAuthorization(
                profile: try Profile(name: "work", endpoints: endpoints, clientID: "c"),
                authorization: DeviceAuthorization(response: response, receivedAt: receivedAt)))
        let status = try await BinaryHarness.run(
            ["status", "--profile", "work"], environment: ["DEVICE_LOGIN_HOME": home.path])
        #expect(status.stdout.contains("Pending sign-in: code WDJB-MJHT expired at 2023-11-14T22:23:20Z; "))
        let expired = try await resume(home: home, ["--profile", "work"]).finish()
        #expect(expired.status == ExitCode.expired.rawValue)
        #expect(
            expired.stderr
                == "device-login: the pending sign-in of profile 'work' expired at 2023-11-14T22:23:20Z before it was"
                + " approved; it was removed\nhint: start a new one with `device-login login`\n")
        #expect(!FileManager.default.fileExists(atPath: home.appendingPathComponent("work.pending").path))
    }

    /// Rewrites the pending file of `home` with `change` applied to its JSON, as someone with access to it could.
    static func tamper(home: URL, profile: String = "default", _ change: (inout [String: Any]) -> Void) throws {
        let path = home.appendingPathComponent(profile + ".pending")
        var object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: path)) as? [String: Any])
        change(&object)
        try JSONSerialization.data(withJSONObject: object).write(to: path)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path.path)
    }

    @Test("a pending file whose token endpoint was changed to plain http off loopback: exit 78, nothing sent")
    func tamperedTokenEndpoint() async throws {
        let (home, server, _) = try await detachedSignIn(approveAfter: 1)
        defer { try? FileManager.default.removeItem(at: home) }
        try Self.tamper(home: home) { object in
            var profile = object["profile"] as? [String: Any] ?? [:]
            var endpoints = profile["endpoints"] as? [String: Any] ?? [:]
            endpoints["token_endpoint"] = "http://evil.example/token"
            profile["endpoints"] = endpoints
            object["profile"] = profile
        }
        let transport = StubTransport()
        let resumed = await CLIHarness.run(
            ["login", "--resume", "--client-secret", "s3cret", "--timeout", "20s"],
            environment: ["DEVICE_LOGIN_HOME": home.path],
            transport: transport)
        #expect(resumed.code == .configuration, "\(resumed.stderr)")
        #expect(transport.requests.isEmpty, "\(transport.requests.map(\.url))")
        let path = home.appendingPathComponent("default.pending").path
        #expect(
            resumed.stderr
                == "device-login: the pending sign-in file \(path) is refused: refusing plain HTTP to evil.example: use"
                + " https, or allow insecure HTTP explicitly\nhint: remove it (rm \(path)) and start the sign-in again"
                + " with `device-login login`\n")
        // The real binary too, in a network namespace of its own (no route out): the same refusal.
        let binary = try await BinaryHarness.run(
            ["-rn", BinaryHarness.binary.path, "login", "--resume"], environment: ["DEVICE_LOGIN_HOME": home.path],
            executable: URL(fileURLWithPath: "/usr/bin/unshare"))
        #expect(binary.status == ExitCode.configuration.rawValue, "\(binary.stderr)")
        #expect(binary.stderr.contains("is refused: refusing plain HTTP to evil.example"), "\(binary.stderr)")
        try await expectNoViolations(stopping: server)
    }

    /// `login --detach` in this process, against the loopback mock server at `issuer`.
    private func detachInProcess(
        issuer: String, home: URL
    ) async -> (code: ExitCode, stdout: String, stderr: String) {
        await CLIHarness.run(
            [
                "login", "--detach", "--issuer", issuer, "--client-id",
                MockAuthorizationServer.Configuration.defaultClientID, "--qr", "never",
            ], environment: ["DEVICE_LOGIN_HOME": home.path])
    }

    // Issue 17: a `javascript:` verification_uri the prompt refuses was stored by --detach, then shown by `status`
    // and `--resume`.
    @Test(
        "--detach against a server whose verification_uri the prompt refuses: exit 76, nothing stored, no code shown",
        arguments: ["javascript:alert(document.cookie)", "https://evil.example/\u{1B}[2Jdevice"])
    func detachRefusesAnUnsafeAddress(uri: String) async throws {
        let home = try BinaryHarness.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let model = MockAuthorizationServer(
            configuration: MockAuthorizationServer.Configuration(interval: 1, verificationURIOverride: uri))
        try await LoopbackServer.withRunning(model: model) { server in
            let detached = await detachInProcess(issuer: server.issuer, home: home)
            #expect(detached.code == .protocolError, "\(detached.stderr)")
            #expect(
                detached.stderr.hasPrefix(
                    "device-login: the server's sign-in address is refused (its verification_uri is not a plain"
                        + " http(s) link), so the sign-in is not kept for later\n"), "\(detached.stderr)")
            #expect(!detached.stderr.contains("javascript") && !detached.stderr.contains("\u{1B}"))
            #expect(!detached.stderr.contains("Code: "))
            #expect(!FileManager.default.fileExists(atPath: home.appendingPathComponent("default.pending").path))
        }
    }

    @Test("--detach against a server whose verification_uri_complete is javascript: stores the sign-in without it")
    func detachDropsAnUnsafeCompleteAddress() async throws {
        let home = try BinaryHarness.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let model = MockAuthorizationServer(
            configuration: MockAuthorizationServer.Configuration(
                interval: 1, verificationURICompleteOverride: "javascript:alert(1)"))
        try await LoopbackServer.withRunning(model: model) { server in
            let detached = await detachInProcess(issuer: server.issuer, home: home)
            #expect(detached.code == .success, "\(detached.stderr)")
            let stored = try String(contentsOf: home.appendingPathComponent("default.pending"), encoding: .utf8)
            #expect(!stored.contains("javascript"))
            #expect(!stored.contains("verification_uri_complete"))
            #expect(stored.contains("\"verification_uri\""))
        }
    }

    /// `status`, `status --json` and `login --resume` of the binary in `home`.
    private func showings(home: URL) async throws -> (status: String, json: String, resume: BinaryHarness.Run) {
        let environment = ["DEVICE_LOGIN_HOME": home.path]
        let status = try await BinaryHarness.run(["status"], environment: environment)
        let json = try await BinaryHarness.run(["status", "--json"], environment: environment)
        #expect(status.status == ExitCode.notSignedIn.rawValue && json.status == ExitCode.notSignedIn.rawValue)
        let resumed = try await resume(home: home, ["--timeout", "30s"]).finish()
        return (status.stdout + status.stderr, json.stdout + json.stderr, resumed)
    }

    @Test("a pending file tampered to hold a user code with escapes: status, status --json and --resume show none")
    func tamperedUserCode() async throws {
        let (home, server, _) = try await detachedSignIn(approveAfter: 1)
        defer { try? FileManager.default.removeItem(at: home) }
        try Self.tamper(home: home) { object in
            var response = object["response"] as? [String: Any] ?? [:]
            response["user_code"] = "AB\u{1B}[31mCD"
            object["response"] = response
        }
        let (status, json, resumed) = try await showings(home: home)
        #expect(status.contains("Pending sign-in: code ABCD at http://127.0.0.1:"), "\(status)")
        #expect(json.contains("\"user_code\":\"ABCD\""), "\(json)")
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.stderr.hasPrefix("Waiting for the sign-in with code ABCD to be approved at http://127.0.0.1:"))
        for text in [status, json, resumed.stdout, resumed.stderr] {
            #expect(!text.contains("\u{1B}") && !text.contains("\\u001b"), "\(text)")
        }
        try await expectNoViolations(stopping: server)
    }

    @Test(
        "a pending file tampered with an unsafe address: status says it cannot be read, --resume refuses it, no one shows it",
        arguments: [
            ("verification_uri", "javascript:alert(document.cookie)"),
            ("verification_uri", "http://127.0.0.1/\u{1B}]8;;javascript:alert(1)\u{7}device"),
            ("verification_uri_complete", "javascript:alert(document.cookie)"),
        ])
    func tamperedAddress(field: String, uri: String) async throws {
        let (home, server, _) = try await detachedSignIn(approveAfter: 5)
        defer { try? FileManager.default.removeItem(at: home) }
        try Self.tamper(home: home) { object in
            var response = object["response"] as? [String: Any] ?? [:]
            response[field] = uri
            object["response"] = response
        }
        let path = home.appendingPathComponent("default.pending").path
        let (status, json, resumed) = try await showings(home: home)
        let problem = "the pending sign-in file \(path) is corrupt: the sign-in address is refused: its \(field) is not"
        #expect(status.contains("Pending sign-in: cannot be read: " + problem), "\(status)")
        #expect(json.contains("\"pending_sign_in\":null"), "\(json)")
        #expect(json.contains("\"pending_sign_in_problem\":\"" + problem), "\(json)")
        #expect(resumed.status == ExitCode.ioError.rawValue, "\(resumed.stderr)")
        #expect(resumed.stderr.hasPrefix("device-login: " + problem), "\(resumed.stderr)")
        for text in [status, json, resumed.stdout, resumed.stderr] {
            #expect(!text.contains("\u{1B}") && !text.contains("javascript"), "\(text)")
        }
        try await expectNoViolations(stopping: server)
    }

    @Test("the command that resumes names the profile only when it is not the default, shell-quoted")
    func resumeCommand() {
        #expect(DetachedSignIn.resumeCommand(profile: "default") == "device-login login --resume")
        #expect(DetachedSignIn.resumeCommand(profile: "work") == "device-login login --resume --profile work")
    }

    /// The first line the process writes on stdout (or stderr), once it is there.
    private func firstLine(of running: BinaryHarness.Running, stderr: Bool = false) async -> String {
        let handle = (stderr ? running.err : running.out).fileHandleForReading
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var data = Data()
                while !data.contains(UInt8(ascii: "\n")) {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    data.append(chunk)
                }
                let text = String(decoding: data, as: UTF8.self)
                continuation.resume(returning: String(text.prefix { $0 != "\n" }))
            }
        }
    }

    @Test("--detach --events writes the authorization event alone; --resume --events the rest, ending in succeeded")
    func eventsAcrossProcesses() async throws {
        let home = try BinaryHarness.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let (server, issuer) = try await startServer(approveAfter: 2)
        let detached = try await BinaryHarness.run(
            ["login", "--detach", "--events", "--quiet", "--issuer", issuer, "--client-id", "test-client"],
            environment: ["DEVICE_LOGIN_HOME": home.path])
        #expect(detached.status == 0, "\(detached.stderr)")
        let detachedLines = detached.stdout.split(separator: "\n").map(String.init)
        #expect(detachedLines.count == 1, "\(detached.stdout)")
        let authorization = try #require(detachedLines.first)
        #expect(authorization.hasPrefix("{\"v\":1,\"event\":\"authorization\","))
        // --quiet: nothing for people on stderr, the code included.
        #expect(detached.stderr.isEmpty, "\(detached.stderr)")
        let pendingPath = home.appendingPathComponent("default.pending").path
        let stored = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: pendingPath)))
        let response = (stored as? [String: Any])?["response"] as? [String: Any]
        let deviceCode = try #require(response?["device_code"] as? String)
        let userCode = try #require(response?["user_code"] as? String)
        #expect(authorization.contains("\"user_code\":\"\(userCode)\""))

        try await Task.sleep(for: .seconds(3))
        let resumed = try await resume(home: home, ["--events", "--quiet"]).finish()
        #expect(resumed.status == 0, "\(resumed.stderr)")
        let events = resumed.stdout.split(separator: "\n").compactMap { line -> String? in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                return nil
            }
            return object["event"] as? String
        }
        #expect(events.first == "polling", "\(resumed.stdout)")
        #expect(events.last == "succeeded", "\(resumed.stdout)")
        #expect(!events.contains("authorization"))
        #expect(!resumed.stdout.contains(deviceCode) && !detached.stdout.contains(deviceCode))
        // --quiet: nothing for people on stderr, neither the waiting line nor where the tokens were saved.
        #expect(resumed.stderr.isEmpty, "\(resumed.stderr)")
        try await expectNoViolations(stopping: server)
    }
}
