import DeviceLogin
import Foundation
import Testing

@testable import DeviceLoginCLI

@Suite("PAMConfiguration: the PAM module's config file, parsed and checked")
struct PAMConfigurationTests {
    private let minimal = "issuer = https://id.example.com\nclient_id = ssh-box\n"

    @Test("a minimal file takes the documented defaults")
    func defaults() throws {
        let configuration = try PAMConfiguration.parse(minimal)
        #expect(configuration.issuer == "https://id.example.com")
        #expect(configuration.clientID == "ssh-box")
        #expect(configuration.clientSecretFile == nil)
        #expect(configuration.scopes == ["openid"])
        #expect(configuration.usernameClaim == .preferredUsername)
        #expect(configuration.allowedGroups.isEmpty)
        #expect(configuration.groupsClaim == "groups")
        #expect(configuration.deadline == PAMConfiguration.defaultDeadline)
        #expect(configuration.qr == .auto)
    }

    @Test("every key, with comments, blank lines, tabs and CR LF")
    func everyKey() throws {
        let text = """
            # the box's sign-in\r
            issuer = https://id.example.com/realms/ops\r

            \tclient_id=ssh-box
            client_secret_file = /etc/device-login/secret
            scope = profile email
            username_claim = email
            allowed_groups = admins, ops  sre
            groups_claim = roles
            deadline = 90
            qr = on
            """
        let configuration = try PAMConfiguration.parse(text)
        #expect(configuration.issuer == "https://id.example.com/realms/ops")
        #expect(configuration.clientSecretFile == "/etc/device-login/secret")
        #expect(configuration.scopes == ["openid", "profile", "email"])
        #expect(configuration.usernameClaim == .email)
        #expect(configuration.allowedGroups == ["admins", "ops", "sre"])
        #expect(configuration.groupsClaim == "roles")
        #expect(configuration.deadline == 90)
        #expect(configuration.qr == .on)
    }

    @Test(
        "refused, with the line and the reason",
        arguments: [
            ("client_id = a\n", 0, "'issuer' (or 'provider') is missing"),
            ("provider = keycloak\nhost = https://kc.example\nissuer = https://a\nclient_id = a\n", 3, "not both"),
            ("provider = nosuch\nclient_id = a\n", 1, "unknown provider"),
            ("provider = keycloak\nclient_id = a\n", 1, "needs"),
            ("provider = github\nclient_id = a\n", 1, "gives no OpenID Connect issuer"),
            ("issuer = https://a\nrealm = ops\nclient_id = a\n", 2, "'realm' is only used with 'provider'"),
            ("provider = okta\ndomain = dev-1.okta.com\nrealm = ops\nclient_id = a\n", 1, "takes no realm"),
            ("issuer = https://a\n", 0, "'client_id' is missing"),
            ("issuer = https://a\nclient_id = a\nissuer = https://b\n", 3, "'issuer' is given twice (first on line 1)"),
            ("issuer = https://a\nclient_id = a\npassword = x\n", 3, "unknown key 'password'"),
            ("issuer = https://a\nclient_id = a\nno equals sign\n", 3, "expected `key = value`"),
            ("issuer = https://a\nclient_id =\n", 2, "'client_id' has no value"),
            ("issuer = ftp://a\nclient_id = a\n", 1, "'issuer' must be an http(s) URL"),
            ("issuer = https://a\nclient_id = a b\n", 2, "'client_id' may not hold spaces"),
            ("issuer = https://a\nclient_id = a\nclient_secret_file = secret\n", 3, "must be an absolute path"),
            ("issuer = https://a\nclient_id = a\nusername_claim = name\n", 3, "'username_claim' must be one of"),
            ("issuer = https://a\nclient_id = a\ndeadline = 9\n", 3, "'deadline' must be whole seconds, 10 to 600"),
            ("issuer = https://a\nclient_id = a\ndeadline = 601\n", 3, "'deadline' must be whole seconds"),
            ("issuer = https://a\nclient_id = a\ndeadline = 1e2\n", 3, "'deadline' must be whole seconds"),
            ("issuer = https://a\nclient_id = a\nqr = yes\n", 3, "'qr' must be on, off or auto"),
            ("issuer = https://a\nclient_id = a\ngroups_claim = roles\n", 3, "without 'allowed_groups'"),
            ("issuer = https://a\nclient_id = a\u{1B}[2J\n", 2, "control or invisible character"),
            ("issuer = https://a\nclient_id = a\u{202E}\n", 2, "control or invisible character"),
        ])
    func refused(text: String, line: Int, reason: String) {
        #expect {
            try PAMConfiguration.parse(text)
        } throws: { error in
            guard let problem = error as? PAMConfiguration.Problem else { return false }
            return problem.line == line && problem.reason.contains(reason)
        }
    }

    @Test("a provider preset and its settings give the issuer, as login --provider does")
    func provider() throws {
        let keycloak = try PAMConfiguration.parse(
            "provider = keycloak\nhost = https://kc.example.com\nrealm = ops\nclient_id = ssh-box\n")
        #expect(keycloak.issuer == "https://kc.example.com/realms/ops")
        #expect(keycloak.provider == "keycloak")
        let okta = try PAMConfiguration.parse("provider = okta\ndomain = dev-1.okta.com\nclient_id = ssh-box\n")
        #expect(okta.issuer == "https://dev-1.okta.com/oauth2/default")
    }

    @Test("deadline bounds are inclusive", arguments: [(10, true), (600, true), (11, true), (0, false), (-5, false)])
    func deadlineBounds(seconds: Int, accepted: Bool) {
        let parsed = try? PAMConfiguration.parse(minimal + "deadline = \(seconds)\n")
        #expect((parsed?.deadline == seconds) == accepted)
    }

    @Test("sizes are bounded: the file and each line")
    func bounds() {
        let long = minimal + "scope = " + String(repeating: "s", count: PAMConfiguration.maximumLineBytes) + "\n"
        #expect(throws: PAMConfiguration.Problem(line: 3, reason: "the line is longer than 1024 bytes")) {
            try PAMConfiguration.parse(long)
        }
        let big = minimal + String(repeating: "# padding\n", count: PAMConfiguration.maximumFileBytes / 10)
        #expect(throws: PAMConfiguration.Problem(line: 0, reason: "the file is larger than 16384 bytes")) {
            try PAMConfiguration.parse(big)
        }
        let groups = (0...PAMConfiguration.maximumGroups).map { "g\($0)" }.joined(separator: " ")
        #expect(throws: PAMConfiguration.Problem.self) {
            try PAMConfiguration.parse(minimal + "allowed_groups = \(groups)")
        }
    }

    @Test(
        "a file anyone but root or its owner can write is refused; so is one of another ordinary user",
        arguments: [
            (UInt32(0), UInt32(0o100600), UInt32(0), true),
            (0, 0o100644, 1000, true),
            (1000, 0o100600, 1000, true),
            (0, 0o100664, 0, false),
            (0, 0o100646, 0, false),
            (0, 0o100666, 1000, false),
            (1000, 0o100600, 0, false),
            (1001, 0o100600, 1000, false),
        ])
    func permissions(owner: UInt32, mode: UInt32, user: UInt32, trusted: Bool) {
        let file = PAMConfiguration.FileRead(bytes: [], owner: owner, mode: mode)
        #expect((PAMConfiguration.permissionProblem(of: file, path: "/p", user: user) == nil) == trusted)
    }

    @Test("load reads a real file and refuses a loose one; the client secret file must be private")
    func load() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pam-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let secret = folder.appendingPathComponent("secret").path
        try "s3cret\n".write(toFile: secret, atomically: false, encoding: .utf8)
        let path = folder.appendingPathComponent("pam.conf").path
        try (minimal + "client_secret_file = \(secret)\n").write(toFile: path, atomically: false, encoding: .utf8)
        chmod(path, 0o600)
        chmod(secret, 0o600)
        let configuration = try PAMConfiguration.load(path: path)
        #expect(try configuration.clientSecret() == "s3cret")
        chmod(secret, 0o644)
        #expect(throws: PAMConfiguration.Problem.self) { try configuration.clientSecret() }
        chmod(path, 0o620)
        #expect(throws: PAMConfiguration.Problem.self) { try PAMConfiguration.load(path: path) }
        #expect(throws: PAMConfiguration.Problem.self) { try PAMConfiguration.load(path: folder.path) }
    }
}
