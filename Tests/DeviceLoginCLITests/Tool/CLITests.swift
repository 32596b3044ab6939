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
        #expect(result.stderr.contains("refusing plain HTTP to auth.example.com"))
        #expect(result.stdout.isEmpty)
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
}
