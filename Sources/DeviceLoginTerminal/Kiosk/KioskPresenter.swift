import DeviceLogin

/// Shows a device flow full screen, for kiosks: the thin live driver around ``KioskScreen``.
///
/// ``run(updates:)`` switches to the alternate screen, draws a frame for each update and for every tick of its
/// ticker (the countdown), clears and draws again at the new size on ``KioskUpdate/resized(columns:rows:)``, and when
/// the updates end or its task is cancelled, leaves the alternate screen with the cursor shown and attributes reset
/// (``KioskScreen/leave``): the shell's screen comes back as it was. For an interrupt handler that ends the process
/// without unwinding, call ``restore()``.
///
/// ```swift
/// let presenter = KioskPresenter(
///     screen: KioskScreen(capabilities: terminal), columns: 80, rows: 24, clock: ContinuousClock())
/// let (updates, sink) = AsyncStream.makeStream(of: KioskUpdate.self)
/// async let shown: Void = presenter.run(updates: updates)
/// sink.yield(.show(authorization))
/// let token = try await flow.pollForToken(authorization) { sink.yield(.flow($0)) }
/// sink.finish()
/// await shown
/// ```
public struct KioskPresenter<C: Clock>: Sendable where C.Duration == Duration {
    /// The renderer of each frame.
    public let screen: KioskScreen
    /// How often the countdown is redrawn.
    public let tickInterval: Duration
    private let columns: Int
    private let rows: Int
    private let output: any TerminalOutput
    private let clock: C

    /// Creates a presenter.
    ///
    /// - Parameters:
    ///   - screen: The renderer.
    ///   - columns: The terminal's width when the presenter starts.
    ///   - rows: The terminal's height when the presenter starts.
    ///   - output: Where to write; standard error by default.
    ///   - clock: The clock the ticker sleeps on and the countdown reads.
    ///   - tickInterval: How often the countdown is redrawn; 1 s by default (it shows whole seconds). A frame that
    ///     did not change is not written again.
    public init(
        screen: KioskScreen, columns: Int, rows: Int, output: any TerminalOutput = StandardErrorOutput(), clock: C,
        tickInterval: Duration = .seconds(1)
    ) {
        self.screen = screen
        self.columns = columns
        self.rows = rows
        self.output = output
        self.clock = clock
        self.tickInterval = max(tickInterval, .milliseconds(10))
    }

    /// Presents `updates` full screen until they end or the calling task is cancelled, then restores the screen.
    ///
    /// - Parameter updates: What to show.
    public func run(updates: AsyncStream<KioskUpdate>) async {
        await output.writeOffPool(KioskScreen.enter)
        let start = clock.now
        var shown = KioskDisplay(columns: columns, rows: rows)
        let (inputs, sink) = AsyncStream.makeStream(of: Input.self)
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await update in updates { sink.yield(.update(update)) }
                sink.yield(.ended)
            }
            group.addTask { [clock, tickInterval] in
                await Ticker.run(every: tickInterval, on: clock) { sink.yield(.tick) }
            }
            // Ends when the updates end, or at once when this task is cancelled (the stream then yields nil).
            for await input in inputs {
                // One reading of the clock per input: read twice, a tick between the two would draw a new code's
                // first frame a second short.
                let now = start.duration(to: clock.now)
                guard case .update(let update) = input else {
                    if input == .ended { break }
                    await output.writeOffPool(shown.frame(screen, at: now))
                    continue
                }
                shown.apply(update, at: now)
                await output.writeOffPool(shown.frame(screen, at: now))
            }
            group.cancelAll()
            sink.finish()
        }
        await output.writeOffPool(KioskScreen.leave)
    }

    /// Puts the terminal back at once: attributes reset, cursor shown, alternate screen left.
    ///
    /// For an interrupt handler that ends the process while ``run(updates:)`` is still drawing.
    public func restore() {
        output.write(KioskScreen.leave)
    }

    /// What the presenter's loop reacts to.
    private enum Input: Sendable, Equatable {
        case update(KioskUpdate)
        case tick
        case ended
    }
}
