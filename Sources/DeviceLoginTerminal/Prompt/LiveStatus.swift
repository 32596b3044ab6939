import DeviceLogin

/// The state behind ``LivePresenter``: from events and ticks to the exact text to write, with no I/O and no clock.
///
/// Times are durations since the presenter started, read from its clock by the caller. In live mode (a terminal
/// that takes escapes) the prompt is followed by a status line that is redrawn in place: `\r`, erase line, text.
/// Otherwise every event worth telling becomes one plain line.
struct LiveStatus {
    /// What the status line says besides the countdown.
    private enum Notice: Equatable {
        case waiting
        case slowDown(interval: Duration)
        case network(retryAt: Duration, reason: String)
    }

    private let capabilities: TerminalCapabilities
    private let prompt: PromptRenderer
    private var expiresAt: Duration?
    private var notice = Notice.waiting
    private var frame = 0
    /// Whether a status line is on screen and the cursor hidden.
    private var lineShown = false
    /// Whether the flow ended: nothing more is written.
    private(set) var isFinished = false

    init(capabilities: TerminalCapabilities, qrMode: QRMode, machineName: String?) {
        self.capabilities = capabilities
        self.prompt = PromptRenderer(capabilities: capabilities, qrMode: qrMode, machineName: machineName)
    }

    /// Whether the status line is drawn in place (a terminal that takes escapes) rather than as plain lines.
    var isLive: Bool { capabilities.allowsEscapes }

    /// Whether `event` can change what is shown: `.polling` and `.intervalChanged` never do (the status line tells
    /// the wait and the server's answers, not each request), so ``handle(_:at:)`` writes nothing for them and keeps
    /// its state.
    static func shows(_ event: DeviceFlowEvent) -> Bool {
        switch event {
        case .polling, .intervalChanged: false
        case .authorizationReceived, .pending, .slowDown, .retrying, .succeeded, .failed: true
        }
    }

    /// The text to write for `event`, received at `now`.
    mutating func handle(_ event: DeviceFlowEvent, at now: Duration) -> String {
        guard !isFinished, Self.shows(event) else { return "" }
        switch event {
        case .authorizationReceived(let authorization):
            let lifetime = authorization.response.expiresIn
            expiresAt = now + .seconds(lifetime)
            notice = .waiting
            let text = prompt.render(authorization, secondsLeft: lifetime)
            guard isLive else { return text + message(at: now) + "\n" }
            let clear = lineShown ? ANSI.clearLine : ""
            lineShown = true
            return clear + text + ANSI.hideCursor + ANSI.clearLine + statusLine(at: now)
        case .pending:
            return update(.waiting, at: now, tell: false)
        case .slowDown(_, let interval):
            return update(.slowDown(interval: interval), at: now, tell: true)
        case .retrying(_, let delay, let reason):
            let reason = Sanitizer.sanitize(reason, maxLength: 160, asciiOnly: !capabilities.isUTF8)
            return update(.network(retryAt: now + delay, reason: reason), at: now, tell: true)
        case .polling, .intervalChanged:
            // Not shown (`shows`): returned above.
            return ""
        case .succeeded:
            isFinished = true
            let check = capabilities.allowsColor ? ANSI.green + "✓" + ANSI.reset + " " : "✓ "
            guard lineShown else { return "Signed in.\n" }
            lineShown = false
            return ANSI.clearLine + (capabilities.isUTF8 ? check : "") + "Signed in.\n" + ANSI.showCursor
        case .failed:
            // The caller reports the error; here the screen is only left clean.
            return finish()
        }
    }

    /// The redraw for a tick of the ticker at `now`: the next spinner frame and the countdown.
    mutating func tick(at now: Duration) -> String {
        guard lineShown, !isFinished else { return "" }
        frame += 1
        return ANSI.clearLine + statusLine(at: now)
    }

    /// Ends the presentation: clears the status line, resets attributes and shows the cursor when a line is shown.
    mutating func finish() -> String {
        isFinished = true
        guard lineShown else { return "" }
        lineShown = false
        return Self.restoreSequence
    }

    /// What puts a terminal back in order after a status line: erase the line, reset attributes, show the cursor.
    static let restoreSequence = ANSI.clearLine + ANSI.reset + ANSI.showCursor

    /// Takes a new notice: in live mode redraws the status line; in plain mode writes a line if `tell` is set.
    private mutating func update(_ new: Notice, at now: Duration, tell: Bool) -> String {
        guard expiresAt != nil else { return "" }
        notice = new
        if isLive { return lineShown ? ANSI.clearLine + statusLine(at: now) : "" }
        return tell ? message(at: now) + "\n" : ""
    }

    private var ellipsis: String { capabilities.isUTF8 ? "…" : "..." }

    /// The notice in words, e.g. "Network problem, retrying in 8 s: connection refused".
    private func message(at now: Duration) -> String {
        switch notice {
        case .waiting:
            return "Waiting for approval" + ellipsis
        case .slowDown(let interval):
            return "Server asked to slow down: polling every \(TimeText.seconds(roundingUp: interval)) s"
        case .network(let retryAt, let reason):
            let wait = TimeText.seconds(roundingUp: retryAt - now)
            return (wait > 0 ? "Network problem, retrying in \(wait) s" : "Network problem, retrying now")
                + (reason.isEmpty ? "" : ": " + reason)
        }
    }

    private static let brailleSpinner = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]
    private static let asciiSpinner = ["-", "\\", "|", "/"]

    /// The live line: spinner, notice, countdown, cut to fit the terminal's width so it never wraps (a wrapped
    /// line cannot be redrawn with `\r`).
    private func statusLine(at now: Duration) -> String {
        let spinner = capabilities.isUTF8 ? Self.brailleSpinner : Self.asciiSpinner
        let secondsLeft = expiresAt.map { TimeText.seconds(roundingUp: $0 - now) } ?? 0
        let head = spinner[frame % spinner.count] + " "
        let text = secondsLeft > 0 ? message(at: now) : "The code has expired."
        let tail = secondsLeft > 0 ? " (\(TimeText.clock(seconds: secondsLeft)) left)" : ""
        let room = max(1, (capabilities.columns ?? 80) - 1 - head.count - tail.count)
        return head + Sanitizer.sanitize(text, maxLength: room, asciiOnly: !capabilities.isUTF8) + tail
    }
}
