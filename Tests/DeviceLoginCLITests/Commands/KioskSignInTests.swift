import DeviceLogin
import DeviceLoginTerminal
import DeviceLoginTesting
import Foundation
import Testing

@testable import DeviceLoginCLI

/// `login --kiosk` in process, in virtual time, against the mock server: the screen entered and left, a new code on
/// a key press or by itself with `--renew`, resizes, and the refusals.
@Suite("KioskSignIn: login --kiosk")
struct KioskSignInTests {
    /// A UTF-8 colour terminal of 80 x 24 on stderr.
    private static let terminal = TerminalCapabilities(isTerminal: true, columns: 80, rows: 24, isUTF8: true)

    private struct Run {
        var code: ExitCode
        var stdout: String
        var stderr: String
    }

    /// Runs `login --kiosk --no-store` with `words` against `server` on `clock`, with `console`.
    private func login(
        _ words: [String], server: MockAuthorizationServer, clock: ManualClock, console: ScriptedKioskConsole,
        terminal: TerminalCapabilities = terminal
    ) async throws -> Run {
        var (context, out, err) = CLIHarness.context(transport: ApprovingSecondCode(server: server))
        context.clock = clock
        context.terminal = terminal
        context.kioskConsole = { console }
        let arguments =
            ["login", "--kiosk", "--client-id", "test-client", "--no-store", "--issuer", server.issuer] + words
        // Time moves only while both the flow (or the --renew pause) and the screen's ticker sleep: the ticker alone
        // would race virtual time ahead while the flow waits for the server.
        let code = try await clock.withAutoAdvance(whenSleeping: 2) { [context] in
            await CLI.run(arguments, context: context)
        }
        return Run(code: code, stdout: out(), stderr: err())
    }

    /// The server's transport, which makes the server approve every code from the second on as soon as the second
    /// is asked for: the first code expires, the one asked for next is approved at its first poll.
    private struct ApprovingSecondCode: HTTPTransport {
        let server: MockAuthorizationServer

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            if request.url.path.hasSuffix("/device/code"), server.deviceAuthorizationRequestCount == 1 {
                server.configure { $0.defaultScript = .approveImmediately }
            }
            return try await InProcessTransport(server: server).send(request)
        }
    }

    /// A server whose codes live `lifetime` seconds and are approved `approval` after they are issued.
    private func server(lifetime: Int, approval: Duration, clock: ManualClock) -> MockAuthorizationServer {
        MockAuthorizationServer(
            configuration: MockAuthorizationServer.Configuration(
                deviceCodeLifetime: lifetime, interval: 5, defaultScript: .approve(after: approval)),
            clock: clock)
    }

    /// The frames drawn: the text between each cursor-home and the next.
    private func frames(_ stderr: String) -> [String] {
        stderr.components(separatedBy: "\u{1B}[H").filter { $0.contains("\r\n") }
    }

    @Test("Approved: the alternate screen entered, the code drawn, then left before the result")
    func approved() async throws {
        let clock = ManualClock()
        let server = server(lifetime: 60, approval: .seconds(10), clock: clock)
        let console = ScriptedKioskConsole(hasKeyboard: true)
        let run = try await login([], server: server, clock: clock, console: console)
        #expect(run.code == .success, "\(run.stderr)")
        #expect(run.stdout.hasPrefix("Signed in to"))
        #expect(run.stderr.hasPrefix(KioskScreen.enter))
        let userCode = try #require(server.lastAuthorization?.userCode)
        #expect(frames(run.stderr).first?.contains("Code: \(userCode)") == true)
        #expect(frames(run.stderr).first?.contains("The code expires in 1:00.") == true)
        // Left once, and nothing drawn after it.
        #expect(run.stderr.components(separatedBy: KioskScreen.leave).count == 2)
        #expect(run.stderr.hasSuffix(KioskScreen.leave))
        #expect(console.recorded == .init(started: 1, stopped: 1, keyWaits: 0))
        #expect(server.rfcViolations == 0)
    }

    @Test("--verbose: no trace line while the screen is shown; the held ones once it is left, plain")
    func verboseWaitsForTheScreen() async throws {
        let clock = ManualClock()
        let server = server(lifetime: 60, approval: .seconds(10), clock: clock)
        let console = ScriptedKioskConsole(hasKeyboard: true)
        let run = try await login(["--verbose"], server: server, clock: clock, console: console)
        #expect(run.code == .success, "\(run.stderr)")
        let parts = run.stderr.components(separatedBy: KioskScreen.leave)
        try #require(parts.count == 2, "left once: \(run.stderr)")
        let screen = try #require(parts[0].range(of: KioskScreen.enter), "entered: \(run.stderr)")
        let (shown, after) = (parts[0][screen.upperBound...], parts[1])
        // The polls were traced while the screen was shown; their lines were all written after it.
        #expect(!shown.contains("device-login: "), "\(shown)")
        // The held lines come first, plain; what is traced after the screen (the ID token's keys) is written live,
        // erasing the line as on any terminal.
        let erase = "\r\u{1B}[2K"
        let lines = after.split(separator: "\n").map(String.init)
        let held = lines.prefix { !$0.hasPrefix(erase) }
        #expect(held.contains { $0.hasPrefix("device-login: http: > POST ") && $0.contains("/token") }, "\(after)")
        #expect(held.allSatisfy { $0.hasPrefix("device-login: http: ") && !$0.contains("\u{1B}") }, "\(after)")
        #expect(lines.dropFirst(held.count).allSatisfy { $0.hasPrefix(erase + "device-login: ") }, "\(after)")
        #expect(server.rfcViolations == 0)
    }

    @Test("Expired: the screen says so and waits for a key; the key asks for a new code, which is approved")
    func expiredThenKey() async throws {
        let clock = ManualClock()
        let server = server(lifetime: 20, approval: .seconds(30), clock: clock)
        let console = ScriptedKioskConsole(hasKeyboard: true)
        let run = try await login([], server: server, clock: clock, console: console)
        #expect(run.code == .success, "\(run.stderr)")
        #expect(console.recorded.keyWaits == 1)
        #expect(server.deviceAuthorizationRequestCount == 2)
        let drawn = frames(run.stderr)
        #expect(drawn.contains { $0.contains("Press any key for a new code, or Ctrl-C to quit.") })
        #expect(drawn.contains { $0.contains("Requesting a new code…") })
        let second = try #require(server.lastAuthorization?.userCode)
        #expect(drawn.last?.contains("Code: \(second)") == true)
        #expect(run.stderr.hasSuffix(KioskScreen.leave))
        #expect(server.rfcViolations == 0)
    }

    @Test("--renew: a new code by itself, not sooner than 30 s after the last one; no key is read")
    func renew() async throws {
        let clock = ManualClock()
        let server = server(lifetime: 20, approval: .seconds(30), clock: clock)
        let console = ScriptedKioskConsole(hasKeyboard: true)
        let run = try await login(["--renew"], server: server, clock: clock, console: console)
        #expect(run.code == .success, "\(run.stderr)")
        #expect(console.recorded.keyWaits == 0)
        let requests = server.requests(to: .deviceAuthorization).map(\.time)
        // The first code expires at 20 s; the second is asked for 30 s after the first, not at once.
        #expect(requests == [.zero, .seconds(30)])
        #expect(frames(run.stderr).contains { $0.contains("A new code will be requested…") })
        #expect(server.rfcViolations == 0)
    }

    @Test("Expired without a keyboard and without --renew: the sign-in ends as without --kiosk (exit 66), restored")
    func expiredNoKeyboard() async throws {
        let clock = ManualClock()
        let server = server(lifetime: 20, approval: .seconds(30), clock: clock)
        let console = ScriptedKioskConsole(hasKeyboard: false)
        let run = try await login([], server: server, clock: clock, console: console)
        #expect(run.code == .expired)
        #expect(server.deviceAuthorizationRequestCount == 1)
        let restored = try #require(run.stderr.range(of: KioskScreen.leave))
        #expect(run.stderr[restored.upperBound...].hasPrefix("device-login: "))
        #expect(console.recorded.stopped == 1)
    }

    @Test("A resize redraws the screen, cleared, at the new size")
    func resize() async throws {
        let clock = ManualClock()
        let server = server(lifetime: 20, approval: .seconds(30), clock: clock)
        // The terminal grows while the expired screen waits for the key.
        let console = ScriptedKioskConsole(hasKeyboard: true, sizeBeforeKey: KioskConsoleSize(columns: 120, rows: 40))
        let run = try await login([], server: server, clock: clock, console: console)
        #expect(run.code == .success, "\(run.stderr)")
        let drawn = frames(run.stderr)
        let rows = drawn.map { $0.components(separatedBy: "\r\n").count }
        #expect(rows.first == 24)
        #expect(rows.last == 40)
        // Once small, then once large: the size never goes back.
        #expect(rows.drop { $0 == 24 }.allSatisfy { $0 == 40 })
        // The screen is cleared on entry, for the first frame, and for the resize.
        let firstLarge = try #require(drawn.firstIndex { $0.components(separatedBy: "\r\n").count == 40 })
        #expect(drawn[firstLarge - 1].hasSuffix("\u{1B}[2J"))
    }

    @Test("Without a terminal on stderr, or on TERM=dumb: a usage error, no request sent")
    func noTerminal() async throws {
        for terminal in [
            TerminalCapabilities(isTerminal: false, isUTF8: true),
            TerminalCapabilities(isTerminal: true, columns: 80, rows: 24, isUTF8: true, term: "dumb"),
        ] {
            let clock = ManualClock()
            let server = server(lifetime: 60, approval: .zero, clock: clock)
            let console = ScriptedKioskConsole(hasKeyboard: true)
            let run = try await login([], server: server, clock: clock, console: console, terminal: terminal)
            #expect(run.code == .usage)
            #expect(run.stderr.hasPrefix("device-login: --kiosk needs a terminal on stderr"))
            #expect(server.requests.isEmpty)
            #expect(console.recorded.started == 0)
        }
    }

    @Test("--renew without --kiosk is a usage error")
    func renewAlone() async {
        let result = await CLIHarness.run([
            "login", "--client-id", "c", "--issuer", "https://auth.example.com", "--renew",
        ])
        #expect(result.code == .usage)
        #expect(result.stderr.hasPrefix("device-login: --renew needs --kiosk"))
    }

    @Test(
        "--kiosk draws the sign-in itself: with --detach, --events, --quiet or --notify-command it is a usage error",
        arguments: [["--detach"], ["--events"], ["--quiet"], ["--notify-command", "cat"]])
    func kioskClashes(_ other: [String]) async {
        let result = await CLIHarness.run(
            ["login", "--client-id", "c", "--issuer", "https://auth.example.com", "--kiosk"] + other)
        #expect(result.code == .usage)
        #expect(
            result.stderr.hasPrefix(
                "device-login: --kiosk draws the sign-in itself, full screen; it cannot go with \(other[0])"),
            "\(result.stderr)")
    }

    @Test(
        "The binary on a pseudo-terminal: Ctrl-C in kiosk mode leaves the alternate screen last and exits 130",
        .timeLimit(.minutes(2)))
    func ctrlCOnTerminal() async throws {
        let home = try BinaryHarness.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let terminal = try PseudoTerminal()
        let process = try await startKiosk(on: terminal, home: home)
        #expect(terminal.output.contains("\u{1B}[?1049h"))
        kill(process.processIdentifier, SIGINT)
        let ending = await terminal.finish(process, seconds: 10)
        let output = terminal.output
        #expect(ending == .exited(130), "\(output.suffix(500).debugDescription)")
        // Attributes reset, cursor shown, alternate screen left: then only the one line on the shell's screen.
        #expect(
            output.hasSuffix(KioskScreen.leave + "device-login: cancelled\r\n"),
            "\(output.suffix(300).debugDescription)")
        #expect(output.components(separatedBy: "\u{1B}[?1049l").count == 2)
    }

    @Test(
        "The binary on a pseudo-terminal: SIGWINCH redraws the screen at the size the terminal now has",
        .timeLimit(.minutes(2)))
    func resizeOnTerminal() async throws {
        let home = try BinaryHarness.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let terminal = try PseudoTerminal()
        try terminal.resize(columns: 100, rows: 40)
        let process = try await startKiosk(on: terminal, home: home)
        let before = terminal.output.utf8.count
        try terminal.resize(columns: 120, rows: 30)
        kill(process.processIdentifier, SIGWINCH)
        // The screen cleared, then a frame of 30 lines (29 line ends) drawn from the top.
        let redrawn = await terminal.wait(for: "\u{1B}[2J\u{1B}[H", after: before, seconds: 20)
        kill(process.processIdentifier, SIGINT)
        let ending = await terminal.finish(process, seconds: 10)
        #expect(ending == .exited(130))
        #expect(redrawn, "no redraw after SIGWINCH: \(terminal.output.suffix(500).debugDescription)")
        let output = terminal.output
        let after = String(decoding: output.utf8.dropFirst(before), as: UTF8.self)
        let frame = try #require(after.components(separatedBy: "\u{1B}[2J\u{1B}[H").dropFirst().first)
        // Up to the next frame, or the end of the screen.
        let drawn = frame.components(separatedBy: "\u{1B}[H")[0].components(separatedBy: KioskScreen.leave)[0]
        #expect(drawn.unicodeScalars.filter { $0 == "\n" }.count == 29, "\(drawn.debugDescription)")
        #expect(drawn.contains("Code: "))
    }

    @Test(
        "The binary on a pseudo-terminal: the script that started it killed, it restores the terminal and ends",
        .timeLimit(.minutes(3)))
    func parentKilledOnTerminal() async throws {
        let home = try BinaryHarness.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let terminal = try PseudoTerminal()
        let parent = try await startKiosk(on: terminal, home: home, underShell: true)
        let children = try String(
            contentsOfFile: "/proc/\(parent.processIdentifier)/task/\(parent.processIdentifier)/children",
            encoding: .utf8)
        let kiosk = try #require(children.split(separator: " ").first.flatMap { pid_t($0) })
        // The kiosk is no child of this process: should it outlive the failsafe, it is ended here.
        var ended = false
        defer { if !ended { kill(kiosk, SIGKILL) } }
        kill(parent.processIdentifier, SIGKILL)
        #expect(await terminal.finish(parent, seconds: 30) == .signalled(SIGKILL))
        // Every process on the terminal gone: the kiosk ended by itself, long before its code expires.
        ended = await terminal.waitUntilClosed(seconds: 90)
        let output = terminal.output
        #expect(ended, "still drawing: \(output.suffix(300).debugDescription)")
        // The screen left once, and nothing drawn after it.
        #expect(output.components(separatedBy: "\u{1B}[?1049l").count == 2, "\(output.suffix(300).debugDescription)")
        let after = try #require(output.components(separatedBy: KioskScreen.leave).last)
        #expect(after == "device-login: cancelled\r\n", "\(output.suffix(300).debugDescription)")
    }

    @Test(
        "The binary on a pseudo-terminal: the terminal closed (hung up), it ends at once with 129",
        .timeLimit(.minutes(3)))
    func terminalClosedOnTerminal() async throws {
        let home = try BinaryHarness.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let terminal = try PseudoTerminal()
        let process = try await startKiosk(on: terminal, home: home)
        terminal.hangUp()
        // A failsafe, far longer than the watch takes, far shorter than the code lives.
        #expect(await terminal.finish(process, seconds: 90) == .exited(129))
    }

    /// Starts `demo --kiosk` on `terminal` with `home` as its state folder — as the child of a shell that waits for
    /// it when `underShell` — and waits for its screen.
    /// - Returns: The process started: the kiosk, or the shell.
    private func startKiosk(on terminal: PseudoTerminal, home: URL, underShell: Bool = false) async throws -> Process {
        let words = ["demo", "--kiosk", "--interval", "1"]
        let environment = ["DEVICE_LOGIN_HOME": home.path]
        // `; true` keeps the shell from replacing itself with the kiosk.
        let process =
            underShell
            ? try terminal.start(
                URL(fileURLWithPath: "/bin/sh"),
                ["-c", "\"$0\" \(words.joined(separator: " ")); true", BinaryHarness.binary.path],
                environment: environment)
            : try terminal.start(BinaryHarness.binary, words, environment: environment)
        try #require(await terminal.wait(for: "Waiting for approval", seconds: 30), "\(terminal.output.suffix(2000))")
        return process
    }
}
