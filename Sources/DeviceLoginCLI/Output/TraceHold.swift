import DeviceLogin

/// Where `--verbose` lines go while a full-screen view owns the terminal behind stderr: held back, then written
/// once the view has left its alternate screen, so that the trace neither draws over the view nor is lost.
///
/// At most ``maximumLines`` lines are held; later ones are counted, and the count is written in their place.
/// Lines are held only between ``hold()`` and ``release(to:)``; otherwise ``route(_:to:)`` writes at once.
final class TraceHold: Sendable {
    /// The most lines held (each is bounded already, ``TerminalText/maximumTraceLength``).
    static let maximumLines = 1_000

    private struct State {
        var holding = false
        var lines: [String] = []
        var dropped = 0
    }
    private let state = Locked(State())

    /// Holds the lines from now on.
    func hold() {
        state.withLock { $0.holding = true }
    }

    /// Writes `line` to `stderr` now, or keeps it while holding (the erasing prefix is for a live terminal: a line
    /// written later goes without it, `plain`).
    func route(_ line: (live: String, plain: String), to stderr: TextSink) {
        let written = state.withLock { state -> Bool in
            guard state.holding else { return false }
            if state.lines.count < Self.maximumLines {
                state.lines.append(line.plain)
            } else {
                state.dropped += 1
            }
            return true
        }
        if !written { stderr.line(line.live) }
    }

    /// Stops holding and writes what was held, oldest first, then how many lines were left out, if any.
    func release(to stderr: TextSink) {
        let (lines, dropped) = state.withLock { state in
            defer { state = State() }
            return (state.lines, state.dropped)
        }
        for line in lines { stderr.line(line) }
        if dropped > 0 { stderr.line("device-login: trace: \(dropped) more lines left out while the screen was shown") }
    }
}
