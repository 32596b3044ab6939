import DeviceLogin
import DeviceLoginTerminal

/// `login --kiosk`: the sign-in drawn full screen (``KioskPresenter``), redrawn on resize, with a new code on a key
/// press when one expires, or by itself with `--renew`.
///
/// RFC 10027 (the cross-device security BCP) warns against issuing codes again and again without a person asking:
/// every new code is one more chance for an attacker to relay it. So a new code follows a key press by default; only
/// `--renew`, for unattended kiosks, requests one by itself, and never sooner than ``minimumRenewalGap`` after the
/// last one, however short the server's codes live. Without a keyboard and without `--renew`, an expired code ends
/// the sign-in as it does without `--kiosk`.
struct KioskSignIn: Sendable {
    /// The settings of the sign-in.
    let settings: LoginSettings
    /// The command's context.
    let context: CLIContext

    /// The shortest time between two codes `--renew` requests.
    static let minimumRenewalGap = Duration.seconds(30)
    /// How long the screen says the code expired before `--renew` requests a new one.
    static let renewalPause = Duration.seconds(5)

    /// Refuses `--kiosk` without a terminal to draw on.
    /// - Throws: ``UsageError`` (exit 64) when stderr is not a terminal that takes escapes.
    static func checkTerminal(_ context: CLIContext) throws {
        guard context.terminal.allowsEscapes else {
            throw UsageError(
                "--kiosk needs a terminal on stderr (not a pipe or a file, and TERM not dumb) to draw the screen on",
                command: "login")
        }
    }

    /// Shows `first` full screen and polls for it; when a code expires, asks for a new one on a key press (or by
    /// itself with `--renew`) and goes on with it. The screen is restored on every way out.
    /// - Returns: The token response.
    /// - Throws: As ``DeviceFlow/pollForToken(_:onEvent:)`` and ``DeviceFlow/requestAuthorization()``; the expiry
    ///   when no new code can be asked for.
    func poll(flow: DeviceFlow, first: DeviceAuthorization) async throws -> TokenResponse {
        try await poll(flow: flow, first: first, clock: context.clock)
    }

    private func poll<C: Clock>(
        flow: DeviceFlow, first: DeviceAuthorization, clock: C
    ) async throws -> TokenResponse where C.Duration == Duration {
        let console = context.kioskConsole()
        let terminal = context.terminal
        let presenter = KioskPresenter(
            screen: KioskScreen(capabilities: terminal, qrMode: settings.qr),
            columns: terminal.columns ?? 80, rows: terminal.rows ?? 24, output: context.stderr, clock: clock
        )
        let stderr = context.stderr
        console.start()
        defer { console.stop() }
        // --verbose lines would draw over the screen: they wait, and come once it is left (the defer below runs
        // after the task group, whose way out leaves the alternate screen).
        context.traceHold.hold()
        defer { context.traceHold.release(to: stderr) }
        // When the process must end at once (a second Ctrl-C): the shell's screen and keyboard back all the same.
        let hold = context.traceHold
        let restore: @Sendable () -> Void = {
            stderr.write(KioskScreen.leave)
            console.stop()
            hold.release(to: stderr)
        }
        // The screen follows every update; the terminal's resizes are updates too, while the codes are polled.
        var observers = SignInObservers<KioskUpdate>()
        observers.follow { await presenter.run(updates: $0) }
        observers.whilePolling { report in
            for await size in console.resizes() { report(.resized(columns: size.columns, rows: size.rows)) }
        }
        return try await InterruptHandler.restoring(with: restore) {
            // On every way out, the screen has drawn its last update and left the alternate screen when this returns.
            try await observers.run { report in
                try await renewing(flow: flow, first: first, console: console, clock: clock, show: report)
            }
        }
    }

    /// Polls for each code in turn until a token arrives or the sign-in ends.
    private func renewing<C: Clock>(
        flow: DeviceFlow, first: DeviceAuthorization, console: any KioskConsole, clock: C,
        show: @escaping @Sendable (KioskUpdate) -> Void
    ) async throws -> TokenResponse where C.Duration == Duration {
        var authorization = first
        while true {
            let received = clock.now
            show(.show(authorization))
            do {
                return try await flow.pollForToken(authorization) { show(.flow($0)) }
            } catch let error as DeviceLoginError where error.code == .expired {
                if settings.renew {
                    show(.state(.expired(next: .automatic)))
                    let age = received.duration(to: clock.now)
                    try await clock.sleep(for: max(Self.renewalPause, Self.minimumRenewalGap - age))
                } else if console.hasKeyboard {
                    show(.state(.expired(next: .pressKey)))
                    guard try await console.waitForKey() else { throw error }
                } else {
                    throw error
                }
                context.trace("kiosk", "the code expired; requesting a new one")
                show(.state(.requestingCode))
                authorization = try await flow.requestAuthorization()
            }
        }
    }
}
