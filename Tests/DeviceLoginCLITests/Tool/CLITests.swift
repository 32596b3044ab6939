import DeviceLogin
import DeviceLoginTerminal
import Foundation
import Testing

@testable import DeviceLoginCLI

/// Runs the CLI in-process with captured streams.
struct CLIHarness {
    static func run(
        _ arguments: [String], environment: [String: String] = [:],
        transport: (any HTTPTransport)? = nil, stdout failing: ResultSink? = nil, stdin: StandardInput = .empty
    )
        async -> (code: ExitCode, stdout: String, stderr: String)
    {
        var (context, stdout, stderr) = context(environment: environment, transport: transport)
        if let failing { context.stdout = failing }
        context.stdin = stdin
        let code = await CLI.run(arguments, context: context)
        return (code, stdout(), stderr())
    }

    /// A context over buffers (not a terminal), with what was written to each.
    static func context(environment: [String: String] = [:], transport: (any HTTPTransport)? = nil)
        -> (context: CLIContext, stdout: @Sendable () -> String, stderr: @Sendable () -> String)
    {
        let out = ResultSink.buffer()
        let err = TextSink.buffer()
        let context = CLIContext(
            environment: environment, stdout: out.sink, stderr: err.sink,
            terminal: TerminalCapabilities(
                isTerminal: false, columns: nil, rows: nil, isUTF8: true, noColor: true,
                term: nil),
            makeTransport: { options in transport ?? DefaultTransport.make(options: options) },
            clock: ContinuousClock(), now: Date.init
        )
        return (context, out.contents, err.contents)
    }
}

@Suite("CLI dispatch: help, version, usage errors")
struct CLITests {
    @Test("--help and help go to stdout and exit 0")
    func help() async {
        for words in [["--help"], ["-h"], ["help"]] {
            let result = await CLIHarness.run(words)
            #expect(result.code == .success)
            #expect(result.stdout.contains("USAGE: device-login <command>"))
            #expect(result.stderr.isEmpty)
        }
        let login = await CLIHarness.run(["help", "login"])
        #expect(login.stdout.hasPrefix("Sign in with the OAuth 2.0 device flow"))
        let command = await CLIHarness.run(["token", "--help"])
        #expect(command.stdout.contains("USAGE: device-login token [options]"))
    }

    @Test("help, the version and usage errors are answered by start, before the process starts its threads")
    func answeredAtStart() {
        let answered: [([String], ExitCode)] = [
            (["--help"], .success), (["help", "login"], .success), (["token", "--help"], .success),
            (["exec", "-h", "--", "true"], .success), (["--version"], .success), ([], .usage), (["nope"], .usage),
        ]
        for (words, expected) in answered {
            let (context, stdout, stderr) = CLIHarness.context()
            guard case .answered(let code) = CLI.start(words, context: context, commands: CLI.commands) else {
                Issue.record("\(words) was not answered at start")
                continue
            }
            #expect(code == expected, "\(words)")
            #expect(!(stdout() + stderr()).isEmpty, "\(words) wrote nothing")
        }
        // A command runs later, with its words; `--help` after `--` is the child's.
        let (context, stdout, _) = CLIHarness.context()
        guard
            case .command(let command, let rest) = CLI.start(
                ["exec", "--", "grep", "--help"], context: context, commands: CLI.commands)
        else {
            Issue.record("exec -- grep --help was answered at start")
            return
        }
        #expect(command.name == "exec")
        #expect(rest == ["--", "grep", "--help"])
        #expect(stdout().isEmpty)
    }

    @Test("--version")
    func version() async {
        let result = await CLIHarness.run(["--version"])
        #expect(result.stdout == "device-login \(DeviceLoginVersion.string)\n")
    }

    @Test(
        "no command, an unknown command or option: one line, a usage hint, exit 64",
        arguments: [
            ([], ""),
            (["frobnicate"], "device-login: unknown command 'frobnicate'\n"),
            (["logn"], "device-login: unknown command 'logn'; did you mean 'login'?\n"),
            (["dpop-prof"], "device-login: unknown command 'dpop-prof'; did you mean 'dpop-proof'?\n"),
            (["--verison"], "device-login: unknown option '--verison'; did you mean '--version'?\n"),
            (["help", "toekn"], "device-login: unknown command 'toekn'; did you mean 'token'?\n"),
            (
                ["login", "--isuer", "https://a.example"],
                "device-login: unknown option '--isuer'; did you mean '--issuer'?\n"
                    + "usage: device-login login [options]  (see: device-login login --help)\n"
            ),
            (
                ["token", "--min-ttl", "9999999999"],
                "device-login: --min-ttl must be a whole number of seconds from 0 to 31536000 (a year), not"
                    + " '9999999999'\n"
            ),
            (["completion"], "device-login: completion needs a shell: bash, zsh, fish\n"),
            (
                ["completion", "bsh"],
                "device-login: no completion for 'bsh': give bash, zsh, fish; did you mean 'bash'?\n"
            ),
            (["--frobnicate"], "device-login: unknown option '--frobnicate'\n"),
            (
                ["login", "--bogus"],
                "device-login: unknown option '--bogus'\n"
                    + "usage: device-login login [options]  (see: device-login login --help)\n"
            ),
            (
                ["login", "--issuer"],
                "device-login: option '--issuer' needs a value (URL)\n"
                    + "usage: device-login login [options]  (see: device-login login --help)\n"
            ),
        ])
    func usage(words: [String], stderr: String) async {
        let result = await CLIHarness.run(words)
        #expect(result.code == .usage)
        #expect(result.stdout.isEmpty)
        if !stderr.isEmpty { #expect(result.stderr.hasPrefix(stderr)) }
    }

    @Test("plain HTTP to a remote issuer is a configuration error (78) before any request")
    func insecureIssuer() async {
        let result = await CLIHarness.run([
            "login", "--issuer", "http://auth.example.com", "--client-id", "c",
            "--no-store",
        ])
        #expect(result.code == .configuration)
        #expect(
            result.stderr
                == "device-login: --issuer is plain http:// to auth.example.com, which is not a loopback host: tokens"
                + " and codes would cross the network unencrypted\n"
                + "hint: use https://, or give --allow-insecure-http if this is really meant (unsafe)\n")
        #expect(result.stdout.isEmpty)
        // Past the check (loopback, or allowed), --timeout 0 stops the command before any request.
        for issuer in ["http://127.0.0.1:9", "http://auth.example.com --allow-insecure-http"] {
            let words = issuer.split(separator: " ").map(String.init)
            let result = await CLIHarness.run(
                ["login", "--issuer"] + words + ["--client-id", "c", "--no-store", "--timeout", "0"])
            #expect(result.code == .usage, "\(issuer): \(result.stderr)")
            #expect(result.stderr.hasPrefix("device-login: --timeout must be"))
        }
    }

    @Test("status with no profile: not signed in (77), where it would be stored")
    func statusEmpty() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("dl-status-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let result = await CLIHarness.run(["status"], environment: ["DEVICE_LOGIN_HOME": home.path])
        #expect(result.code == .notSignedIn)
        #expect(result.stdout.contains("Not signed in: no profile 'default'."))
        let token = await CLIHarness.run(["token"], environment: ["DEVICE_LOGIN_HOME": home.path])
        #expect(token.code == .notSignedIn)
        #expect(token.stdout.isEmpty)
        #expect(token.stderr.contains("not signed in: there is no profile 'default'"))
    }

    @Test("help wraps to the terminal behind stdout, and to 80 columns without one")
    func helpWidth() async {
        func longest(_ columns: Int?) async -> Int {
            var (context, stdout, _) = CLIHarness.context()
            context.stdoutColumns = columns
            #expect(await CLI.run(["status", "--help"], context: context) == .success)
            return stdout().split(separator: "\n").filter { $0.split(separator: " ").count > 1 }.map(\.count).max() ?? 0
        }
        let plain = await longest(nil)
        #expect(plain <= 80 && plain > 70)
        let narrow = await longest(50)
        #expect(narrow <= 50 && narrow > 40)
        #expect(await longest(1000) <= 100)
    }

    @Test("completion and help --man write only the script or page on stdout and exit 0")
    func completionAndManPage() async {
        for shell in CompletionScript.Shell.allCases {
            let result = await CLIHarness.run(["completion", shell.rawValue])
            #expect(result.code == .success)
            #expect(result.stdout == CompletionScript.render(shell, commands: CLI.commands))
            #expect(result.stderr.isEmpty)
        }
        let man = await CLIHarness.run(["help", "--man"])
        #expect(man.code == .success)
        #expect(man.stdout == ManPage.render(CLI.commands))
        #expect(man.stderr.isEmpty)
    }

    @Test("completion and help --man fail loudly (74) when stdout cannot be written")
    func unwritable() async {
        for words in [["completion", "bash"], ["help", "--man"]] {
            let result = await CLIHarness.run(words, stdout: .failing(ENOSPC))
            #expect(result.code == .ioError)
            #expect(result.stderr.hasPrefix("device-login: could not write the result to standard output"))
        }
    }

    @Test("logout with no such profile: nothing to sign out (77), not how to sign in")
    func logoutNothing() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("dl-logout-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let result = await CLIHarness.run(
            ["logout", "--profile", "work"], environment: ["DEVICE_LOGIN_HOME": home.path])
        #expect(result.code == .notSignedIn)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "device-login: nothing to sign out: there is no profile 'work'\n")
    }
}
