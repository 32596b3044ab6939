import DeviceLogin
import DeviceLoginTerminal
import Foundation
import Testing

@testable import DeviceLoginCLI

/// `device-login status`: far expiry dates, and ID-token claims written to look like other lines.
@Suite("status: far dates and hostile claims")
struct StatusCommandTests {
    private static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// Stored expiries that used to trap in `Int(expiry.timeIntervalSince(now))` (SIGILL), and what status says.
    static let farExpiries: [(unixSeconds: Double, text: String, json: String)] = [
        (1e300, "valid until after 9999-12-31T23:59:59Z (over 100 years left)", "9999-12-31T23:59:59Z"),
        (-1e300, "expired before 0001-01-01T00:00:00Z (refreshed on next use)", "0001-01-01T00:00:00Z"),
        (9.3e18, "valid until after 9999-12-31T23:59:59Z (over 100 years left)", "9999-12-31T23:59:59Z"),
    ]

    @Test("a stored expires_at of 1e300, -1e300 or 9.3e18: status and status --json of the binary exit normally")
    func farExpiryInTheProfileFile() async throws {
        let fixture = try ProfileFixture()
        defer { fixture.remove() }
        for (seconds, text, json) in Self.farExpiries {
            // The store refuses to write such a date, so the file is written as a damaged or forged one would be.
            try await fixture.save(
                TokenSet(
                    accessToken: "at-far", expiresAt: Self.now.addingTimeInterval(3600), issuedAt: Self.now
                ))
            let path = fixture.home.appendingPathComponent("default.json")
            var file = try JSONSerialization.jsonObject(with: Data(contentsOf: path)) as? [String: Any] ?? [:]
            var tokens = file["tokens"] as? [String: Any] ?? [:]
            tokens["expires_at"] = seconds
            file["tokens"] = tokens
            try JSONSerialization.data(withJSONObject: file).write(to: path)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path.path)
            let stored = try JSONSerialization.jsonObject(with: Data(contentsOf: path)) as? [String: Any]
            #expect((stored?["tokens"] as? [String: Any])?["expires_at"] as? Double == seconds, "the file holds it")
            let status = try await BinaryHarness.run(["status"], environment: fixture.environment)
            let statusJSON = try await BinaryHarness.run(["status", "--json"], environment: fixture.environment)
            // The store refuses such a file as corrupt (74, naming it); before, status trapped (SIGILL). Never a signal.
            let allowed: Set<Int32> = [ExitCode.ioError.rawValue]
            #expect(allowed.contains(status.status), "status with expires_at \(seconds): \(status.stderr)")
            #expect(allowed.contains(statusJSON.status), "status --json with \(seconds): \(statusJSON.stderr)")
            #expect(status.stderr.contains("expires_at"), "refused for its date, not another reason: \(status.stderr)")
            if status.status == 0 {
                #expect(status.stdout.contains("  access token:   " + text + "\n"), "\(status.stdout)")
            }
            if statusJSON.status == 0 {
                let document = try JSONSerialization.jsonObject(with: Data(statusJSON.stdout.utf8)) as? [String: Any]
                let object = (document?["profiles"] as? [[String: Any]])?.first
                #expect(object?["expires_at"] as? String == json)
            }
        }
    }

    @Test(
        "far and odd expiries in a TokenSet built in code: text and JSON, no trap",
        arguments: [
            (1e300, "valid until after 9999-12-31T23:59:59Z (over 100 years left)", "9999-12-31T23:59:59Z"),
            (-1e300, "expired before 0001-01-01T00:00:00Z (refreshed on next use)", "0001-01-01T00:00:00Z"),
            (9.3e18, "valid until after 9999-12-31T23:59:59Z (over 100 years left)", "9999-12-31T23:59:59Z"),
            (Double.infinity, "valid until after 9999-12-31T23:59:59Z (over 100 years left)", "9999-12-31T23:59:59Z"),
            (-Double.infinity, "expired before 0001-01-01T00:00:00Z (refreshed on next use)", "0001-01-01T00:00:00Z"),
            (Double.nan, "expired before 0001-01-01T00:00:00Z (refreshed on next use)", "0001-01-01T00:00:00Z"),
            (253_402_300_799, "valid until 9999-12-31T23:59:59Z (over 100 years left)", "9999-12-31T23:59:59Z"),
            (1_800_003_600, "valid until 2027-01-15T09:00:00Z (1 h left)", "2027-01-15T09:00:00Z"),
            (1_799_996_400, "expired at 2027-01-15T07:00:00Z (refreshed on next use)", "2027-01-15T07:00:00Z"),
            (0, "expired at 1970-01-01T00:00:00Z (refreshed on next use)", "1970-01-01T00:00:00Z"),
        ])
    func farExpiryInCode(seconds: Double, text: String, json: String) throws {
        let tokens = TokenSet(
            accessToken: "at", expiresAt: Date(timeIntervalSince1970: seconds), issuedAt: Self.now,
            resourceTokens: [
                "https://api.example.test/": .init(
                    accessToken: "rt", expiresAt: Date(timeIntervalSince1970: seconds), issuedAt: Self.now
                )
            ])
        let report = try Self.report(tokens)
        #expect(report.lines.contains("  access token:   " + text))
        #expect(report.lines.contains("  resource:       https://api.example.test/, " + text))
        #expect(report.json["expires_at"] == .string(json))
        #expect(try TokenOutput.encode(report.json).contains(#""expires_at":"\#(json)""#))
    }

    @Test("claims that imitate other lines stay on the line of the one they are in")
    func hostileClaims() throws {
        let idToken = try ProfileFixture.idToken([
            "iss": ProfileFixture.issuer, "aud": ProfileFixture.clientID, "sub": "s1\n  client ID:      admin",
            "exp": Self.now.timeIntervalSince1970 + 3600, "iat": Self.now.timeIntervalSince1970,
            "preferred_username": "ada\r\n  profile:        root\u{1B}[2A\u{202E}", "email": "x\u{2028}y",
        ])
        let tokens = TokenSet(
            accessToken: "at", expiresAt: Self.now.addingTimeInterval(3600), idToken: idToken,
            scope: "openid\nscopes: all", issuedAt: Self.now)
        let plain = try Self.report(
            TokenSet(
                accessToken: "at", expiresAt: Self.now.addingTimeInterval(3600),
                issuedAt: Self.now))
        let verified = IDTokenVerification(
            outcome: .verified, algorithm: "RS256", keyID: "k1\n  profile: x", tokenDigest: "d", checkedAt: Self.now
        )
        let report = try Self.report(tokens, verification: verified)
        #expect(report.lines.count == plain.lines.count + 1, "one line more: the ID token's")
        #expect(report.lines.first?.hasPrefix("Signed in as ada ") == true)
        #expect(report.lines.first?.hasSuffix(" admin).") == true)
        for line in report.lines {
            #expect(
                !line.unicodeScalars.contains {
                    $0.properties.generalCategory == .control
                        || $0.properties.generalCategory == .format || $0 == "\u{2028}"
                }, "\(line.debugDescription)")
        }
        let json = try TokenOutput.encode(report.json)
        #expect(!json.contains("\n") && !json.contains("\u{1B}") && !json.contains("\u{2028}"))
        #expect(json.contains(#""email":"x\u2028y""#))
    }

    @Test("a profile signed in with --provider: a provider line after the profile's, and \"provider\" in JSON")
    func provider() throws {
        let tokens = TokenSet(accessToken: "at", expiresAt: Self.now.addingTimeInterval(3600), issuedAt: Self.now)
        let report = try Self.report(tokens, provider: "keycloak")
        #expect(report.lines[1...2] == ["  profile:        default", "  provider:       keycloak"])
        #expect(report.json["provider"] == .string("keycloak"))
        let plain = try Self.report(tokens)
        #expect(!plain.lines.contains { $0.contains("provider:") })
        #expect(plain.json["provider"] == nil)
    }

    @Test("the helpers' user name is helper_username; username stays, as its deprecated v1 alias, with the same value")
    func helperUsername() throws {
        let tokens = TokenSet(accessToken: "at", expiresAt: Self.now.addingTimeInterval(3600), issuedAt: Self.now)
        let report = try Self.report(tokens)
        #expect(report.json["helper_username"] == .string(Profile.defaultUsername))
        #expect(report.json["username"] == report.json["helper_username"])
    }

    private static func report(
        _ tokens: TokenSet, verification: IDTokenVerification? = nil, provider: String? = nil
    ) throws -> StatusCommand.Report {
        let endpoints = ServerEndpoints(
            issuer: ProfileFixture.issuer,
            deviceAuthorization: URL(string: "https://auth.example.test/d"),
            token: try #require(URL(string: "https://auth.example.test/t"))
        )
        let profile = try Profile(
            issuer: ProfileFixture.issuer, endpoints: endpoints,
            clientID: ProfileFixture.clientID, provider: provider)
        return StatusCommand.Report(
            name: "default", path: "/home/ada/.local/state/device-login/default.json",
            record: ProfileRecord(profile: profile, tokens: tokens), now: now, others: [], verification: verification)
    }

    /// A pending sign-in received at `now`, 600 s to live, with the device code `DEVICE-CODE-SECRET`.
    private static func pending(
        name: String = "default", verificationURI: String = "https://auth.example.com/device"
    ) throws -> PendingAuthorization {
        let endpoints = ServerEndpoints(
            issuer: "https://auth.example.com",
            deviceAuthorization: URL(string: "https://auth.example.com/device"),
            token: try #require(URL(string: "https://auth.example.com/token")))
        let response = DeviceAuthorizationResponse(
            deviceCode: "DEVICE-CODE-SECRET", userCode: "WDJB-MJHT", verificationURI: verificationURI,
            expiresIn: 600, interval: 5)
        return try PendingAuthorization(
            profile: try Profile(name: name, endpoints: endpoints, clientID: "cli"),
            authorization: DeviceAuthorization(response: response, receivedAt: now, issuer: "https://auth.example.com"))
    }

    @Test(
        "a pending sign-in: its code, page and time left, how to finish it, and pending_sign_in in JSON; never the device code"
    )
    func pendingSignIn() throws {
        var report = StatusCommand.Report(
            name: "default", path: "/s/default.json", record: nil, now: Self.now.addingTimeInterval(60), others: [],
            verification: nil)
        report.pending = try Self.pending()
        #expect(
            report.lines == [
                "Not signed in: no profile 'default'.",
                "Pending sign-in: code WDJB-MJHT at https://auth.example.com/device, 9 min left.",
                "Finish it with: device-login login --resume",
            ])
        let json = try TokenOutput.encode(report.json)
        #expect(
            json.contains(
                "\"pending_sign_in\":{\"expires_at\":\"2027-01-15T08:10:00Z\",\"interval\":5,\"last_poll_at\":null,"
                    + "\"seconds_left\":540,\"user_code\":\"WDJB-MJHT\",\"verification_uri\":\"https://auth.example.com/device\","
                    + "\"warnings\":[]}"
            ))
        #expect(!json.contains("DEVICE-CODE-SECRET"))
        #expect(!report.lines.joined().contains("DEVICE-CODE-SECRET"))
        // Expired: said so, and how to start again.
        report = StatusCommand.Report(
            name: "default", path: "/s/default.json", record: nil, now: Self.now.addingTimeInterval(600), others: [],
            verification: nil)
        report.pending = try Self.pending()
        #expect(
            report.lines.last?.hasPrefix(
                "Pending sign-in: code WDJB-MJHT expired at 2027-01-15T08:10:00Z; start a new one with: ") == true)
        // None: null, the field is always there.
        report.pending = nil
        #expect(report.json["pending_sign_in"] == .null)
    }

    // Issue 17: status showed a pending sign-in's code and page again without the prompt's phishing warning.
    @Test("a pending sign-in whose page is on another host than the issuer's: the prompt's warning, in its words")
    func pendingWarning() throws {
        var report = StatusCommand.Report(
            name: "default", path: "/s/default.json", record: nil, now: Self.now.addingTimeInterval(60), others: [],
            verification: nil)
        let pending = try Self.pending(verificationURI: "https://evil.example/device")
        report.pending = pending
        let warning = try #require(pending.authorization.hostCheck.warnings.first)
        #expect(warning.kind == .outsideIssuerDomain)
        let prompt = PromptRenderer(capabilities: TerminalCapabilities(isTerminal: false, isUTF8: true))
        #expect(
            report.lines == [
                "Not signed in: no profile 'default'.",
                prompt.warningLine(warning),
                "Pending sign-in: code WDJB-MJHT at https://evil.example/device, 9 min left.",
                "Finish it with: device-login login --resume",
            ])
        #expect(report.lines[1].hasPrefix("Warning: The sign-in page is on evil.example, but "))
        let json = try TokenOutput.encode(report.json)
        #expect(json.contains("\"warnings\":[\"The sign-in page is on evil.example, but "), "\(json)")
    }

    /// A pending sign-in saved in a fresh home, then changed by `damage` (given the home), and `status` with
    /// `--json` and without.
    private func statusOfPendingFile(
        _ damage: (URL) throws -> Void
    ) async throws -> (path: String, text: (code: ExitCode, stdout: String, stderr: String), json: String) {
        let home = try BinaryHarness.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let path = home.appendingPathComponent("default.pending").path
        try await FileTokenStore(directory: home.path).savePending(try Self.pending())
        try damage(home)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        let environment = ["DEVICE_LOGIN_HOME": home.path]
        let text = await CLIHarness.run(["status"], environment: environment)
        let json = await CLIHarness.run(["status", "--json"], environment: environment)
        #expect(text.code == .notSignedIn && json.code == .notSignedIn, "\(text.stderr)\(json.stderr)")
        return (path, text, json.stdout)
    }

    // Issue 17: status read the pending file with `try?`, and said nothing about one it could not read.
    @Test("a corrupt pending file: status says so, with the path and what to do, and exits as before (77)")
    func corruptPendingFile() async throws {
        let (path, text, json) = try await statusOfPendingFile { home in
            try Data("{\"version\": 1, \u{1B}[31m".utf8).write(to: home.appendingPathComponent("default.pending"))
        }
        #expect(
            text.stdout == """
                Not signed in: no profile 'default'.
                Pending sign-in: cannot be read: the pending sign-in file \(path) is corrupt
                  hint: remove it (rm \(path)) and sign in again

                """)
        #expect(
            json.contains("\"pending_sign_in\":null,\"pending_sign_in_problem\":\"the pending sign-in file \(path)"))
        #expect(!json.contains("\\u001b") && !text.stdout.contains("\u{1B}"))
    }

    @Test("a pending file whose endpoints the new check refuses: reported the same way, the reason sanitised")
    func refusedPendingFile() async throws {
        let (path, text, json) = try await statusOfPendingFile { home in
            try DetachedSignInTests.tamper(home: home) { object in
                var profile = object["profile"] as? [String: Any] ?? [:]
                var endpoints = profile["endpoints"] as? [String: Any] ?? [:]
                endpoints["token_endpoint"] = "http://evil.example/token"
                profile["endpoints"] = endpoints
                object["profile"] = profile
            }
        }
        let problem = "the pending sign-in file \(path) is refused: refusing plain HTTP to evil.example"
        #expect(text.stdout.contains("Pending sign-in: cannot be read: " + problem), "\(text.stdout)")
        #expect(json.contains("\"pending_sign_in_problem\":\"" + problem), "\(json)")
    }
}

@Suite("status --json: the v1 shape")
struct StatusJSONShapeTests {
    @Test("status --json: v, the profile shown, and a list of every saved profile sorted by name; no token")
    func statusDocument() async throws {
        let home = try BinaryHarness.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let work = try await ProcessHarness.saveSignedInProfile(home: home, name: "work")
        let other = try await ProcessHarness.saveSignedInProfile(home: home, name: "another")
        let result = await CLIHarness.run(
            ["status", "--profile", "work", "--json"], environment: ["DEVICE_LOGIN_HOME": home.path])
        #expect(result.code == .success, "\(result.stderr)")
        let document = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(Set(document.keys) == ["v", "profile", "signed_in", "profiles"])
        #expect(document["v"] as? Int == 1)
        #expect(document["profile"] as? String == "work")
        #expect(document["signed_in"] as? Bool == true)
        let profiles = try #require(document["profiles"] as? [[String: Any]])
        #expect(profiles.map { $0["name"] as? String } == ["another", "work"])
        #expect(profiles.allSatisfy { $0["signed_in"] as? Bool == true && $0["client_id"] as? String == "app" })
        for token in [work, other, "refresh-1"] { #expect(!result.stdout.contains(token)) }
    }

    @Test("status --json of a profile that does not exist: signed_in false, exit 77, the others still listed")
    func missingProfile() async throws {
        let home = try BinaryHarness.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        _ = try await ProcessHarness.saveSignedInProfile(home: home, name: "work")
        let result = await CLIHarness.run(
            ["status", "--profile", "gone", "--json"], environment: ["DEVICE_LOGIN_HOME": home.path])
        #expect(result.code == .notSignedIn)
        let document = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(document["signed_in"] as? Bool == false)
        let profiles = try #require(document["profiles"] as? [[String: Any]])
        #expect(profiles.map { $0["name"] as? String } == ["gone", "work"])
        #expect(profiles.first?["signed_in"] as? Bool == false)
    }
}
