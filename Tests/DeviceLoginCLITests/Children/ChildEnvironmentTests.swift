import DeviceLogin
import DeviceLoginTesting
import Foundation
import Testing

@testable import DeviceLoginCLI

/// What a child process (`exec`'s command, the notify hook) inherits: device-login's environment without the
/// variables that carry its secrets. The pure rule by table; the real binary's `exec -- env` and a notify hook that
/// dumps `env`.
@Suite("ChildEnvironment: no secret of device-login's reaches a child", .serialized, .timeLimit(.minutes(3)))
struct ChildEnvironmentTests {
    /// A variable of each kind device-login reads a secret from, each value marked `hunter2`.
    static let secrets: [String: String] = [
        "DEVICE_LOGIN_CLIENT_SECRET": "cs-hunter2",
        "DEVICE_LOGIN_HEADER": "X-Api-Key:hdr-hunter2",
        "DEVICE_LOGIN_ACCESS_TOKEN": "stale-hunter2",
        "DEVICE_LOGIN_DPOP_PROOF": "proof-hunter2",
    ]

    @Test("the secret-bearing variables are removed; every other one, DEVICE_LOGIN_ ones included, is kept")
    func strips() {
        let kept = [
            "PATH": "/usr/bin:/bin", "HOME": "/home/ada", "DEVICE_LOGIN_PROFILE": "work",
            "DEVICE_LOGIN_CLIENT_ID": "app", "DEVICE_LOGIN_CLIENT_SECRET_FILE": "/etc/secret", "LANG": "C.UTF-8",
        ]
        let child = ChildEnvironment.forChild(kept.merging(Self.secrets) { $1 })
        #expect(child == kept)
    }

    @Test("the list: the client secret, --header, and the token and proof variables exec writes")
    func list() {
        #expect(
            Set(ChildEnvironment.secretVariables) == Set(Self.secrets.keys),
            "\(ChildEnvironment.secretVariables)")
    }

    @Test("every option whose value may be a secret, in any command's table, is on the list")
    func everySecretOption() {
        for command in CLI.commands {
            for option in command.options where ["SECRET", "NAME:VALUE", "TOKEN"].contains(option.valueName ?? "") {
                #expect(
                    ChildEnvironment.secretVariables.contains(OptionSpec.environmentVariable(option.name)),
                    "\(command.name) --\(option.name)")
            }
        }
    }

    @Test("exec -- env through the real binary: the token variable asked for, and no secret variable")
    func execEnv() async throws {
        let home = try BinaryHarness.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let token = try await ProcessHarness.saveSignedInProfile(home: home)
        var environment = Self.secrets
        environment["DEVICE_LOGIN_HOME"] = home.path
        environment["PATH"] = "/usr/bin:/bin"
        for arguments in [["exec", "--", "env"], ["exec", "--env", "MY_TOKEN", "--", "env"]] {
            let run = try await ProcessHarness.run(arguments, environment: environment)
            #expect(run.status == 0, "\(run.stderr)")
            let variable = arguments.count == 5 ? "MY_TOKEN" : "DEVICE_LOGIN_ACCESS_TOKEN"
            #expect(run.stdout.contains("\n\(variable)=\(token)\n") || run.stdout.hasPrefix("\(variable)=\(token)\n"))
            #expect(!run.stdout.contains("hunter2"), "\(run.stdout)")
            #expect(run.stdout.contains("DEVICE_LOGIN_HOME=\(home.path)"))
        }
    }

    @Test("a notify hook that dumps env through the real binary: no secret variable, the sign-in succeeds")
    func notifyHookEnv() async throws {
        let home = try BinaryHarness.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let dump = home.appendingPathComponent("hook-env")
        let secret = "cs-hunter2"
        let model = MockAuthorizationServer(
            configuration: MockAuthorizationServer.Configuration(
                clients: [.init(id: "app", authentication: .clientSecretBasic(secret: secret))],
                interval: 1, recording: .summary, defaultScript: .approve(afterPolls: 1)))
        var environment = Self.secrets
        environment["DEVICE_LOGIN_HOME"] = home.path
        environment["PATH"] = "/usr/bin:/bin"
        environment["NO_PROXY"] = "*"
        try await LoopbackServer.withRunning(model: model) { server in
            let run = try await ProcessHarness.run(
                [
                    "login", "--issuer", server.issuer, "--client-id", "app", "--client-auth", "basic", "--quiet",
                    "--no-store", "--notify-command", "env > '\(dump.path)'",
                ],
                environment: environment)
            #expect(run.status == 0, "\(run.stderr)")
        }
        let dumped = try String(contentsOf: dump, encoding: .utf8)
        #expect(dumped.contains("DEVICE_LOGIN_HOME=\(home.path)"), "\(dumped)")
        #expect(!dumped.contains("hunter2"), "\(dumped)")
    }
}
