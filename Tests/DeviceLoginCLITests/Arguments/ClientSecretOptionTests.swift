import DeviceLogin
import Foundation
import Testing

@testable import DeviceLoginCLI

@Suite("ClientSecretOption: --client-secret, --client-secret -, --client-secret-file")
struct ClientSecretOptionTests {
    private func parse(_ words: [String], environment: [String: String] = [:]) throws -> ParsedOptions {
        try ArgumentParser.parse(words, options: LoginSettings.options, command: "login", environment: environment)
    }

    @Test(
        "where the secret comes from; the command line wins over the environment",
        arguments: [
            ([String](), [String: String](), nil as ClientSecretOption.Source?),
            (["--client-secret", "s"], [:], .argument("s")),
            ([], ["DEVICE_LOGIN_CLIENT_SECRET": "s"], .environment("s")),
            (["--client-secret", "-"], [:], .standardInput),
            ([], ["DEVICE_LOGIN_CLIENT_SECRET": "-"], .standardInput),
            (["--client-secret-file", "/run/secrets/app"], [:], .file("/run/secrets/app")),
            ([], ["DEVICE_LOGIN_CLIENT_SECRET_FILE": "/run/secrets/app"], .file("/run/secrets/app")),
            (["--client-secret", "s"], ["DEVICE_LOGIN_CLIENT_SECRET_FILE": "/f"], .argument("s")),
            (["--client-secret-file", "/f"], ["DEVICE_LOGIN_CLIENT_SECRET": "s"], .file("/f")),
        ])
    func source(words: [String], environment: [String: String], expected: ClientSecretOption.Source?) throws {
        #expect(try ClientSecretOption.source(parse(words, environment: environment), command: "login") == expected)
    }

    @Test(
        "both options on the same footing: a usage error",
        arguments: [
            (["--client-secret", "s", "--client-secret-file", "/f"], [String: String]()),
            ([], ["DEVICE_LOGIN_CLIENT_SECRET": "s", "DEVICE_LOGIN_CLIENT_SECRET_FILE": "/f"]),
        ])
    func both(words: [String], environment: [String: String]) throws {
        let options = try parse(words, environment: environment)
        #expect(throws: UsageError("give --client-secret or --client-secret-file, not both", command: "login")) {
            try ClientSecretOption.source(options, command: "login")
        }
    }

    @Test(
        "one trailing newline is dropped; printable ASCII is kept as it is",
        arguments: [
            ("s3cret", "s3cret"), ("s3cret\n", "s3cret"), ("s3cret\r\n", "s3cret"), ("with space ~!", "with space ~!"),
            (String(repeating: "x", count: 4096), String(repeating: "x", count: 4096)),
            (String(repeating: "x", count: 4096) + "\n", nil),
        ])
    func trimmed(text: String, expected: String?) throws {
        if let expected {
            #expect(try ClientSecretOption.secret(Array(text.utf8), from: "f") == expected)
        } else {
            #expect(throws: DeviceLoginError.self) { try ClientSecretOption.secret(Array(text.utf8), from: "f") }
        }
    }

    @Test(
        "refused: empty, too long, a second line, a tab, a byte order mark, non-ASCII; the secret never quoted",
        arguments: [
            ("", "is empty"), ("\n", "is empty"), ("\r\n", "is empty"),
            (String(repeating: "x", count: 4097), "is longer than 4096 bytes"),
            ("s3cret\n\n", "not printable ASCII"), ("line1\nline2", "not printable ASCII"),
            ("s3\tcret", "not printable ASCII"), ("\u{FEFF}s3cret", "not printable ASCII"),
            ("sécret", "not printable ASCII"), ("s3cret\0", "not printable ASCII"),
        ])
    func refused(text: String, problem: String) {
        do {
            _ = try ClientSecretOption.secret(Array(text.utf8), from: "/run/secrets/app")
            Issue.record("accepted")
        } catch let error as DeviceLoginError {
            #expect(error.code == .configuration)
            #expect(error.message.hasPrefix("the client secret from /run/secrets/app "))
            #expect(error.message.hasSuffix(problem) || error.message.contains(problem), "\(error.message)")
            if text.count > 2 { #expect(!error.message.contains(text.trimmingCharacters(in: .whitespacesAndNewlines))) }
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("an argument earns a warning (ps shows it); the environment, a file and stdin do not")
    func argumentWarning() {
        #expect(
            ClientSecretOption.warning(for: .argument("s")) == "--client-secret on the command line is visible to "
                + "other users in ps; use --client-secret-file or --client-secret - (stdin)")
        #expect(ClientSecretOption.warning(for: .environment("s")) == nil)
        #expect(ClientSecretOption.warning(for: .standardInput) == nil)
        #expect(ClientSecretOption.warning(for: .file("/f")) == nil)
    }

    @Test(
        "a secret file others can read is used, with a warning",
        arguments: [
            (UInt32(0o100600), false), (0o100400, false), (0o100640, true), (0o100644, true), (0o100444, true),
            (0o010600, false),
        ])
    func fileModes(mode: UInt32, warns: Bool) {
        let warning = ClientSecretOption.warning(forMode: mode, path: "/run/secrets/app")
        #expect((warning != nil) == warns)
        if warns {
            #expect(
                warning == "other users can read the client secret file /run/secrets/app (mode "
                    + String(mode & 0o777, radix: 8) + "): chmod 600 it")
        }
    }

    @Test("the real file system: read with its mode, bounded, and a missing file named")
    func realFiles() async throws {
        let directory = try BinaryHarness.temporaryHome()
        defer { try? FileManager.default.removeItem(at: directory) }
        func write(_ name: String, _ text: String, mode: Int) throws -> String {
            let path = directory.appendingPathComponent(name).path
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
            return path
        }
        func read(_ path: String) async throws -> ClientSecretOption.Secret? {
            try await ClientSecretOption.read(try parse(["--client-secret-file", path]), command: "login")
        }
        let good = try write("good", "file-secret\n", mode: 0o600)
        #expect(try await read(good) == ClientSecretOption.Secret(value: "file-secret", warnings: []))
        let loose = try write("loose", "file-secret", mode: 0o644)
        #expect(
            try await read(loose)?.warnings
                == ["other users can read the client secret file \(loose) (mode 644): chmod 600 it"])
        let big = try write("big", String(repeating: "x", count: 5000), mode: 0o600)
        await #expect(throws: DeviceLoginError.self) { try await read(big) }
        let empty = try write("empty", "", mode: 0o600)
        await #expect(throws: DeviceLoginError.self) { try await read(empty) }
        do {
            _ = try await read(directory.appendingPathComponent("missing").path)
            Issue.record("a missing file was read")
        } catch let error as DeviceLoginError {
            #expect(error.message.hasPrefix("cannot open the client secret file \(directory.path)/missing: "))
        }
        await #expect(throws: DeviceLoginError.self) { try await read(directory.path) }
    }
}

@Suite("--client-secret - on a terminal", .timeLimit(.minutes(1)))
struct ClientSecretTerminalTests {
    @Test("standard input that is a terminal is refused: what is typed there would be shown")
    func terminal() async throws {
        let home = try BinaryHarness.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let terminal = try PseudoTerminal()
        let process = try terminal.start(
            BinaryHarness.binary, ["token", "--client-secret", "-"],
            environment: ["DEVICE_LOGIN_HOME": home.path])
        #expect(await terminal.finish(process, seconds: 20) == .exited(78))
        #expect(
            terminal.output.hasPrefix(
                "device-login: --client-secret - reads the secret from standard input, "
                    + "which is a terminal here\r\nhint: pipe it in"))
    }
}
