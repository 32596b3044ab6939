import DeviceLogin
import Foundation
import Testing

@testable import DeviceLoginCLI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `device-login exec` run in-process: the command's status, its environment, its refusals. (The command's own
/// standard streams are the test runner's, so what it reports it writes to a file named by `OUT`.)
@Suite("exec: the command, its environment and its exit status", .timeLimit(.minutes(2)))
struct ExecCommandTests {
    /// A signed-in default profile (a token valid for an hour: no request) in a fresh home, and a scratch folder.
    private struct Setup {
        let fixture: ProfileFixture
        let token: String
        let scratch: URL

        init(token: String = "at-" + UUID().uuidString) async throws {
            fixture = try ProfileFixture()
            self.token = token
            try await fixture.save(
                TokenSet(accessToken: token, expiresAt: Date().addingTimeInterval(3600), issuedAt: Date()))
            scratch = fixture.home.appendingPathComponent("scratch")
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        }

        /// The environment for the CLI: the home, a PATH, and `OUT` for the command's report.
        var environment: [String: String] {
            fixture.environment.merging(["PATH": "/usr/bin:/bin", "OUT": out.path]) { $1 }
        }

        var out: URL { scratch.appendingPathComponent("out") }

        func report() -> String? { try? String(contentsOf: out, encoding: .utf8) }

        func run(_ arguments: [String], environment extra: [String: String] = [:]) async
            -> (code: ExitCode, stdout: String, stderr: String)
        {
            await CLIHarness.run(arguments, environment: environment.merging(extra) { $1 })
        }

        func remove() { fixture.remove() }
    }

    @Test(
        "the command's exit status is device-login's; a signal's is 128 + N",
        arguments: [
            ("exit 0", Int32(0)), ("exit 3", 3), ("exit 77", 77), ("exit 255", 255), ("kill -TERM $$", 143),
            ("kill -USR1 $$", 128 + SIGUSR1), ("kill -KILL $$", 137),
        ])
    func status(script: String, expected: Int32) async throws {
        let setup = try await Setup()
        defer { setup.remove() }
        let result = await setup.run(["exec", "--", "/bin/sh", "-c", script])
        #expect(result.code.rawValue == expected, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.isEmpty)
    }

    @Test("the token is in DEVICE_LOGIN_ACCESS_TOKEN, the rest of the environment as it was")
    func environment() async throws {
        let setup = try await Setup()
        defer { setup.remove() }
        let result = await setup.run(
            [
                "exec", "--", "/bin/sh", "-c",
                #"printf '%s|%s|%s' "$DEVICE_LOGIN_ACCESS_TOKEN" "$KEEP" "$OTHER" > "$OUT""#,
            ],
            environment: ["KEEP": "kept value", "DEVICE_LOGIN_ACCESS_TOKEN": "stale"])
        #expect(result.code == .success, "\(result.stderr)")
        #expect(setup.report() == "\(setup.token)|kept value|")
    }

    @Test("--env NAME (and DEVICE_LOGIN_ENV) names another variable; the default one is then not set")
    func otherVariable() async throws {
        let setup = try await Setup()
        defer { setup.remove() }
        let script = #"printf '%s|%s' "$GITLAB_TOKEN" "${DEVICE_LOGIN_ACCESS_TOKEN-unset}" > "$OUT""#
        let given = await setup.run(["exec", "--env", "GITLAB_TOKEN", "--", "/bin/sh", "-c", script])
        #expect(given.code == .success, "\(given.stderr)")
        #expect(setup.report() == "\(setup.token)|unset")
        let fromEnvironment = await setup.run(
            ["exec", "--", "/bin/sh", "-c", script], environment: ["DEVICE_LOGIN_ENV": "GITLAB_TOKEN"])
        #expect(fromEnvironment.code == .success, "\(fromEnvironment.stderr)")
        #expect(setup.report() == "\(setup.token)|unset")
    }

    @Test("words after -- are the command's, even --help and -h and another --")
    func afterSeparator() async throws {
        let setup = try await Setup()
        defer { setup.remove() }
        let result = await setup.run(
            [
                "exec", "--", "/bin/sh", "-c", #"printf '%s ' "$@" > "$OUT"; exit 5"#, "sh", "--help", "-h", "--",
                "--env",
            ])
        #expect(result.code.rawValue == 5, "\(result.stderr)")
        #expect(result.stdout.isEmpty, "exec's help was printed")
        #expect(setup.report() == "--help -h -- --env ")
    }

    @Test(
        "not found: 127; found but not runnable: 126; one line on stderr, nothing on stdout",
        arguments: [
            ("device-login-test-no-such-command", Int32(127), "command not found"),
            ("/nonexistent/tool", 127, "no such file"),
            ("{scratch}/plain-file", 126, "Permission denied"),
            ("{scratch}", 126, "Permission denied"),
            ("{scratch}/no-interpreter", 126, "its interpreter (#!) was not found"),
        ])
    func notStarted(command: String, expected: Int32, message: String) async throws {
        let setup = try await Setup()
        defer { setup.remove() }
        let plain = setup.scratch.appendingPathComponent("plain-file")
        try Data("echo hi\n".utf8).write(to: plain)
        let script = setup.scratch.appendingPathComponent("no-interpreter")
        try Data("#!/nonexistent/interpreter\n".utf8).write(to: script)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        let path = command.replacingOccurrences(of: "{scratch}", with: setup.scratch.path)
        let result = await setup.run(["exec", "--", path, "argument"])
        #expect(result.code.rawValue == expected, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].hasPrefix("device-login: exec: "), "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(!result.stderr.contains(setup.token))
    }

    @Test("without a sign-in: exit 77 at once, one line, and the command is not run")
    func notSignedIn() async throws {
        let setup = try await Setup()
        defer { setup.remove() }
        for profile in ["nobody", "signed-out"] {
            if profile == "signed-out" { try await setup.fixture.save(nil, name: profile) }
            let result = await setup.run(["exec", "--profile", profile, "--", "/bin/sh", "-c", #"touch "$OUT""#])
            #expect(result.code == .notSignedIn, "\(result.stderr)")
            #expect(result.stdout.isEmpty)
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
            #expect(result.stderr.contains("sign in with: device-login login --profile \(profile)"))
            #expect(setup.report() == nil, "the command ran")
        }
    }

    @Test("a token that is not printable ASCII is not handed on: exit 76, the command not run, the token not shown")
    func unsafeToken() async throws {
        let setup = try await Setup(token: "secret\npart")
        defer { setup.remove() }
        let result = await setup.run(["exec", "--", "/bin/sh", "-c", #"touch "$OUT""#])
        #expect(result.code == .protocolError, "\(result.stderr)")
        #expect(setup.report() == nil)
        #expect(!result.stderr.contains("secret"))
    }

    @Test(
        "usage errors: exit 64, nothing run, nothing on stdout",
        arguments: [
            (["exec"], "exec needs a command"),
            (["exec", "--"], "exec needs a command"),
            (["exec", "/bin/true"], "put -- before the command"),
            (["exec", "/bin/sh", "--", "-c", "true"], "put -- before the command"),
            (["exec", "--env", "", "--", "/bin/true"], "--env must name an environment variable"),
            (["exec", "--env", "1ABC", "--", "/bin/true"], "--env must name an environment variable"),
            (["exec", "--env", "A-B", "--", "/bin/true"], "--env must name an environment variable"),
            (["exec", "--env", "A=B", "--", "/bin/true"], "--env must name an environment variable"),
            (["exec", "--env", "A B", "--", "/bin/true"], "--env must name an environment variable"),
            (["exec", "--env", "TÖKEN", "--", "/bin/true"], "--env must name an environment variable"),
            (["exec", "--env", String(repeating: "A", count: 256), "--", "/bin/true"], "--env must name"),
            (["exec", "--env", "A", "--env", "B", "--", "/bin/true"], "given more than once"),
            (["exec", "--bogus", "--", "/bin/true"], "unknown option '--bogus'"),
        ])
    func usage(arguments: [String], message: String) async throws {
        let setup = try await Setup()
        defer { setup.remove() }
        let result = await setup.run(arguments)
        #expect(result.code == .usage, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stderr.contains("usage: device-login exec [options] -- COMMAND [ARG...]"), "\(result.stderr)")
    }

    @Test("DEVICE_LOGIN_ENV that names no variable is a usage error too")
    func badVariableFromEnvironment() async throws {
        let setup = try await Setup()
        defer { setup.remove() }
        let result = await setup.run(
            ["exec", "--", "/bin/sh", "-c", #"touch "$OUT""#],
            environment: ["DEVICE_LOGIN_ENV": "NOT-A-NAME"])
        #expect(result.code == .usage, "\(result.stderr)")
        #expect(result.stderr.contains("--env must name an environment variable"))
        #expect(!result.stderr.contains("NOT-A-NAME"))
        #expect(setup.report() == nil)
    }

    @Test(
        "variable names: POSIX names only",
        arguments: [
            ("A", true), ("_", true), ("TOKEN_2", true), ("gitlab_token", true), ("_9", true), ("9A", false),
            ("", false), ("A-B", false), ("A.B", false), ("A=B", false), ("A\u{0}B", false), ("Ä", false),
            (String(repeating: "X", count: 255), true), (String(repeating: "X", count: 256), false),
        ])
    func names(name: String, valid: Bool) {
        #expect((try? ExecCommand.variableName(name)) == (valid ? name : nil))
    }

    @Test(
        "names the dynamic loader or a shell reads are refused, by name; others of their look are not",
        arguments: [
            ("PATH", false), ("LD_PRELOAD", false), ("LD_LIBRARY_PATH", false), ("LD_AUDIT", false),
            ("LD_DEBUG_OUTPUT", false), ("IFS", false), ("BASH_ENV", false), ("ENV", false), ("SHELLOPTS", false),
            ("BASHOPTS", false), ("PS4", false), ("PROMPT_COMMAND", false), ("CDPATH", false), ("GLOBIGNORE", false),
            ("HOME", false), ("GCONV_PATH", false), ("LOCPATH", false), ("NLSPATH", false), ("MALLOC_TRACE", false),
            ("MALLOC_ARENA_MAX", false), ("GLIBC_TUNABLES", false), ("TMPDIR", false), ("HOSTALIASES", false),
            ("RES_OPTIONS", false), ("LOCALDOMAIN", false), ("TZDIR", false), ("LANG", false), ("LC_ALL", false),
            ("ZDOTDIR", false), ("BASH_FUNC_x", false), ("DYLD_INSERT_LIBRARIES", false),
            ("path", true), ("MY_PATH", true), ("LD", true), ("LDAP_TOKEN", true), ("HOMEBREW_TOKEN", true),
            ("ENVIRONMENT_TOKEN", true), ("GITLAB_TOKEN", true),
        ])
    func interpretedNames(name: String, accepted: Bool) throws {
        guard accepted else {
            let error = try #require(throws: UsageError.self) { try ExecCommand.variableName(name) }
            #expect(error.message.contains("--env cannot be \(name)"), "\(error.message)")
            return
        }
        #expect(try ExecCommand.variableName(name) == name)
    }

    @Test("--env LD_PRELOAD: exit 64, one line naming it, the command not run")
    func interpretedNameRefused() async throws {
        let setup = try await Setup()
        defer { setup.remove() }
        for words in [["--env", "LD_PRELOAD"], ["--env", "PATH"]] {
            let result = await setup.run(["exec"] + words + ["--", "/bin/sh", "-c", #"touch "$OUT""#])
            #expect(result.code == .usage, "\(result.stderr)")
            #expect(result.stderr.contains("--env cannot be \(words[1])"), "\(result.stderr)")
            #expect(!result.stderr.contains(setup.token))
            #expect(setup.report() == nil)
        }
    }

    @Test("an --env that names no variable is refused without being repeated (it may be a value pasted by mistake)")
    func invalidNameNotQuoted() throws {
        for given in ["TOKEN=hunter2", "hunter2 x", "9hunter2"] {
            let error = try #require(throws: UsageError.self) { try ExecCommand.variableName(given) }
            #expect(!error.message.contains("hunter2"), "\(error.message)")
        }
    }

    @Test("no --env: DEVICE_LOGIN_ACCESS_TOKEN")
    func defaultName() throws {
        #expect(try ExecCommand.variableName(nil) == "DEVICE_LOGIN_ACCESS_TOKEN")
    }

    @Test("--verbose traces the command and its end, never the token")
    func verbose() async throws {
        let setup = try await Setup()
        defer { setup.remove() }
        let result = await setup.run(["exec", "--verbose", "--", "/bin/sh", "-c", "exit 4"])
        #expect(result.code.rawValue == 4)
        #expect(result.stderr.contains("device-login: exec: running /bin/sh with the access token in"))
        #expect(result.stderr.contains("device-login: exec: /bin/sh ended: exit code 4"))
        #expect(!result.stderr.contains(setup.token))
    }

    @Test("cancelling the task sends the command SIGTERM and waits for it")
    func cancellation() async throws {
        let setup = try await Setup()
        defer { setup.remove() }
        let started = setup.scratch.appendingPathComponent("started")
        let environment = setup.environment.merging(["STARTED": started.path]) { $1 }
        let task = Task {
            await CLIHarness.run(
                [
                    "exec", "--", "/bin/sh", "-c",
                    #"trap 'echo term > "$OUT"; exit 9' TERM; touch "$STARTED"; i=0; "#
                        + "while [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done; exit 99",
                ],
                environment: environment)
        }
        while !FileManager.default.fileExists(atPath: started.path) { try await Task.sleep(for: .milliseconds(20)) }
        task.cancel()
        let result = await task.value
        #expect(result.code.rawValue == 9, "\(result.stderr)")
        #expect(setup.report() == "term\n")
    }
}
