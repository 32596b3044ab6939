import DeviceLogin
import Foundation
import Testing

@testable import DeviceLoginCLI

@Suite("PAMDecision and pam-helper's lines: who a verified ID token lets in")
struct PAMDecisionTests {
    private static func claims(_ extra: JSONObject) throws -> IDTokenClaims {
        var object: JSONObject = [
            "iss": .string("https://id.example.com"), "sub": .string("u-1"), "aud": .string("ssh-box"),
            "iat": .number(1_800_000_000), "exp": .number(1_800_003_600),
        ]
        object.merge(extra) { _, new in new }
        return try IDTokenClaims(jsonObject: object)
    }

    private static func configuration(_ lines: String = "") throws -> PAMConfiguration {
        try PAMConfiguration.parse("issuer = https://id.example.com\nclient_id = ssh-box\n" + lines)
    }

    @Test(
        "the configured claim must be the user, exactly",
        arguments: [
            ("", ["preferred_username": JSONValue.string("alice")], "alice", PAMDecision.Verdict.allow),
            ("", ["preferred_username": .string("alice")], "bob", .deny),
            ("", ["preferred_username": .string("Alice")], "alice", .deny),
            ("", ["preferred_username": .string("alice ")], "alice", .deny),
            ("", [:], "alice", .deny),
            ("username_claim = sub\n", ["preferred_username": .string("alice")], "u-1", .allow),
            ("username_claim = sub\n", ["preferred_username": .string("alice")], "alice", .deny),
            ("username_claim = email\n", ["email": .string("a@x"), "email_verified": .bool(true)], "a@x", .allow),
            ("username_claim = email\n", ["email": .string("a@x"), "email_verified": .bool(false)], "a@x", .deny),
            ("username_claim = email\n", ["email": .string("a@x")], "a@x", .deny),
        ])
    func username(lines: String, extra: JSONObject, user: String, verdict: PAMDecision.Verdict) throws {
        let decision = PAMDecision.decide(
            claims: try Self.claims(extra), user: user, configuration: try Self.configuration(lines))
        #expect(decision.verdict == verdict, "\(decision.reason)")
    }

    @Test(
        "a required group: one of the allowed values in the groups claim (an array or a space-separated string)",
        arguments: [
            (JSONValue.array([.string("dev"), .string("ops")]), PAMDecision.Verdict.allow),
            (.string("dev ops"), .allow),
            (.array([.string("dev")]), .deny),
            (.array([]), .deny),
            (.number(1), .deny),
            (.string("opsx"), .deny),
        ])
    func groups(groups: JSONValue, verdict: PAMDecision.Verdict) throws {
        let claims = try Self.claims(["preferred_username": .string("alice"), "roles": groups])
        let configuration = try Self.configuration("allowed_groups = admins ops\ngroups_claim = roles\n")
        #expect(PAMDecision.decide(claims: claims, user: "alice", configuration: configuration).verdict == verdict)
    }

    @Test("a hostile claim is quoted sanitised and bounded in the reason")
    func hostileReason() throws {
        let hostile = "root\u{1B}]0;owned\u{07}\u{202E}" + String(repeating: "x", count: 500)
        let decision = PAMDecision.decide(
            claims: try Self.claims(["preferred_username": .string(hostile)]), user: "alice",
            configuration: try Self.configuration())
        #expect(decision.verdict == .deny)
        #expect(!decision.reason.unicodeScalars.contains { $0.value < 0x20 || $0 == "\u{202E}" })
        #expect(decision.reason.count < 200)
    }

    @Test(
        "a failed sign-in: the server's trouble is unavailable, a refusal deny",
        arguments: [
            (DeviceLoginError.Code.transport, PAMDecision.Verdict.unavailable),
            (.discovery, .unavailable),
            (.invalidResponse, .unavailable),
            (.accessDenied, .deny),
            (.expired, .deny),
            (.invalidIDToken, .deny),
        ])
    func failures(code: DeviceLoginError.Code, verdict: PAMDecision.Verdict) {
        #expect(PAMHelperCommand.decision(for: DeviceLoginError(code, "x")).verdict == verdict)
    }

    @Test("the prompt line carries login's words, sanitised, and never the device code")
    func promptLine() throws {
        let response = DeviceAuthorizationResponse(
            deviceCode: "DEVICE-CODE-SECRET", userCode: "WDJB-MJHT\u{1B}[31m",
            verificationURI: "https://id.example.com/device", expiresIn: 600)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let authorization = DeviceAuthorization(response: response, receivedAt: now, issuer: "https://id.example.com")
        var context = CLIHarness.context().context
        context.now = { now }
        let line = PAMHelperCommand.promptLine(
            authorization, configuration: try Self.configuration(), context: context, machineName: "bastion")
        let object = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["event"] as? String == "pam_prompt")
        let text = try #require(object["text"] as? String)
        #expect(text.contains("https://id.example.com/device"))
        #expect(text.contains("Only continue if you started this sign-in on bastion just now."))
        #expect(text.contains("Code: WDJB-MJHT"))
        #expect(!text.unicodeScalars.contains { $0.value == 0x1B })
        #expect(!line.contains("DEVICE-CODE-SECRET"))
    }

    @Test("qr = on puts a QR code of the link in the prompt's text; qr = off none")
    func promptQR() throws {
        let response = DeviceAuthorizationResponse(
            deviceCode: "d", userCode: "WDJB-MJHT", verificationURI: "https://id.example.com/device",
            verificationURIComplete: "https://id.example.com/device?user_code=WDJB-MJHT", expiresIn: 600)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let authorization = DeviceAuthorization(response: response, receivedAt: now, issuer: "https://id.example.com")
        var context = CLIHarness.context().context
        context.now = { now }
        func text(_ lines: String, terminal: PAMClientTerminal? = nil) throws -> String {
            let line = PAMHelperCommand.promptLine(
                authorization, configuration: try Self.configuration(lines), terminal: terminal, context: context,
                machineName: "b")
            let object = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return try #require(object["text"] as? String)
        }
        let blocks: Set<Character> = ["\u{2580}", "\u{2584}", "\u{2588}"]
        #expect(try text("qr = on\n").contains(where: blocks.contains))
        #expect(try !text("qr = off\n").contains(where: blocks.contains))
        // auto: a local terminal gets one; sshd's conversation (PAM_TTY ssh, a remote host) none.
        let console = PAMClientTerminal(tty: "/dev/tty1", isRemote: false, term: "linux")
        let sshd = PAMClientTerminal(tty: "ssh", isRemote: true, term: nil)
        #expect(try text("qr = auto\n", terminal: console).contains(where: blocks.contains))
        #expect(try !text("qr = auto\n", terminal: sshd).contains(where: blocks.contains))
        #expect(try !text("", terminal: sshd).contains(where: blocks.contains))
        #expect(try !text("qr = off\n", terminal: console).contains(where: blocks.contains))
        #expect(try text("qr = on\n", terminal: sshd).contains(where: blocks.contains))
    }

    @Test(
        "qr = auto: a QR code only for a terminal on this machine with a TERM that is not dumb",
        arguments: [
            ("/dev/tty1", false, "linux", true), ("tty2", false, "xterm-256color", true),
            ("pts/3", false, "xterm", true), ("/dev/pts/0", false, "screen", true),
            ("ssh", true, nil, false), ("ssh", false, "xterm", false), ("/dev/pts/0", true, "xterm", false),
            ("/dev/tty1", false, "dumb", false), ("/dev/tty1", false, "", false), ("/dev/tty1", false, nil, false),
            (nil, false, "xterm", false), (":0", false, "xterm", false),
            ("/dev/" + String(repeating: "x", count: 80), false, "xterm", false),
        ] as [(String?, Bool, String?, Bool)])
    func qrAutoRule(tty: String?, remote: Bool, term: String?, shows: Bool) {
        let terminal = PAMClientTerminal(tty: tty, isRemote: remote, term: term)
        #expect(terminal.canShowQRCode == shows)
        #expect(terminal.showsQRCode(.auto) == shows)
        #expect(terminal.showsQRCode(.on) && !terminal.showsQRCode(.off))
    }

    @Test("the decision line: verdict, sanitised reason, and the person's message only where there is one")
    func decisionLine() throws {
        func line(_ decision: PAMDecision) throws -> [String: Any] {
            let (context, stdout, _) = CLIHarness.context()
            try PAMHelperCommand.report(decision, context: context)
            return try #require(JSONSerialization.jsonObject(with: Data(stdout().utf8)) as? [String: Any])
        }
        let deadline = try line(.deadlinePassed(seconds: 90))
        #expect(deadline["event"] as? String == "pam_decision")
        #expect(deadline["decision"] as? String == "deny")
        #expect(deadline["message"] as? String == "The sign-in was not approved within 90 seconds.")
        let hostile = try line(.deny("no\u{1B}[31m match"))
        #expect(hostile["message"] == nil)
        #expect(hostile["reason"] as? String == "no match") // the escape sequence is gone, whole
    }

    @Test("pam-helper runs but is not listed; pam-check is, and refuses a loose file with exit 78")
    func commands() async throws {
        let help = await CLIHarness.run(["--help"])
        #expect(help.stdout.contains("pam-check"))
        #expect(!help.stdout.contains("pam-helper"))
        let helper = await CLIHarness.run(["pam-helper", "--user", "alice"])
        #expect(helper.code == .usage)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pam-\(UUID().uuidString).conf").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try "issuer = https://id.example.com\nclient_id = ssh-box\n".write(
            toFile: path, atomically: false, encoding: .utf8)
        chmod(path, 0o600)
        let check = await CLIHarness.run(["pam-check", path])
        #expect(check.code == .success, "\(check.stderr)")
        #expect(check.stdout.contains("its preferred_username claim is the user's name"))
        chmod(path, 0o666)
        let loose = await CLIHarness.run(["pam-check", path])
        #expect(loose.code == .configuration)
        #expect(loose.stderr.contains("writable by others than its owner"))
    }
}
