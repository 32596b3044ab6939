import DeviceLogin

/// Shows a device flow as it happens: the sign-in prompt, then a live status line or plain progress lines.
///
/// On a terminal that takes escapes, the prompt is followed by a status line with a spinner and the time left,
/// redrawn in place (`\r`, erase line) on every tick of a ticker driven by the injected clock; the cursor is
/// hidden while the line is shown. Elsewhere (a pipe, a file, `TERM=dumb`) each event worth telling becomes one
/// plain line: "Waiting for approval…", "Server asked to slow down: polling every 10 s", "Network problem, retrying
/// in 8 s: …", "Signed in.". Failures are left to the caller to report; the presenter only leaves the screen clean.
///
/// ``run(events:)`` returns when the flow succeeds or fails, when the event stream ends, or when its task is
/// cancelled; its ticker is a child task and stops with it. On every one of those paths the status line is erased,
/// attributes are reset and the cursor is shown again. For a Ctrl-C handler that ends the process without
/// unwinding, call ``restore()``.
///
/// ```swift
/// let presenter = LivePresenter(capabilities: .detect(), qrMode: .auto)
/// let (events, sink) = AsyncStream.makeStream(of: DeviceFlowEvent.self)
/// try await withThrowingTaskGroup(of: Void.self) { group in
///     group.addTask { await presenter.run(events: events) }
///     defer { sink.finish() }
///     let token = try await flow.pollForToken(authorization) { sink.yield($0) }
///     ...
/// }
/// ```
public struct LivePresenter<C: Clock>: Sendable where C.Duration == Duration {
    /// The terminal written to.
    public let capabilities: TerminalCapabilities
    /// When the prompt shows a QR code.
    public let qrMode: QRMode
    /// How often the status line is redrawn.
    public let tickInterval: Duration
    /// This machine's name, for the prompt's "Only continue if you started this sign-in on NAME just now".
    public let machineName: String?
    private let output: any TerminalOutput
    private let clock: C

    /// Creates a presenter.
    ///
    /// - Parameters:
    ///   - capabilities: The terminal written to, usually ``TerminalCapabilities/detect(fileDescriptor:environment:)``.
    ///   - qrMode: When the prompt shows a QR code; ``QRMode/auto`` by default.
    ///   - output: Where to write; standard error by default.
    ///   - clock: The clock the ticker sleeps on and the countdown reads.
    ///   - tickInterval: How often the status line is redrawn; 250 ms by default, which keeps a 9600-baud serial
    ///     console well below its bandwidth.
    ///   - machineName: This machine's name for the prompt; ``MachineName/current()`` by default.
    public init(
        capabilities: TerminalCapabilities,
        qrMode: QRMode = .auto,
        output: any TerminalOutput = StandardErrorOutput(),
        clock: C,
        tickInterval: Duration = .milliseconds(250),
        machineName: String? = MachineName.current()
    ) {
        self.capabilities = capabilities
        self.qrMode = qrMode
        self.output = output
        self.clock = clock
        self.tickInterval = max(tickInterval, .milliseconds(10))
        self.machineName = machineName
    }

    /// Presents `events` until the flow ends, the stream ends or the calling task is cancelled.
    ///
    /// - Parameter events: The flow's events, e.g. forwarded from `DeviceFlow`'s `onEvent` callback.
    public func run(events: AsyncStream<DeviceFlowEvent>) async {
        var status = LiveStatus(capabilities: capabilities, qrMode: qrMode, machineName: machineName)
        let start = clock.now
        guard status.isLive else {
            // No ticker, so the events are the only input: read straight from their stream, not forwarded into the
            // merged inputs below, which cost a second stream's hand-over and a task's wake-up for every event
            // (issue 19). Ends the same ways: the flow ends, the stream ends, or the task is cancelled.
            for await event in events {
                await write(status.handle(event, at: start.duration(to: clock.now)))
                if status.isFinished { break }
            }
            await write(status.finish())
            return
        }
        let (inputs, sink) = AsyncStream.makeStream(of: Input.self)
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await event in events { sink.yield(.event(event)) }
                sink.yield(.eventsEnded)
            }
            group.addTask { [clock, tickInterval] in
                await Ticker.run(every: tickInterval, on: clock) { sink.yield(.tick) }
            }
            var lastTick: Duration?
            // Ends when the flow ends, or at once when this task is cancelled (the stream then yields nil).
            for await input in inputs {
                let now = start.duration(to: clock.now)
                switch input {
                case .event(let event):
                    await write(status.handle(event, at: now))
                case .tick:
                    // Ticks that piled up while a write was blocked (output paused) are drawn once, not in a burst.
                    if let lastTick, now - lastTick < tickInterval / 2 { continue }
                    lastTick = now
                    await write(status.tick(at: now))
                case .eventsEnded:
                    break
                }
                if status.isFinished || input == .eventsEnded { break }
            }
            group.cancelAll()
            sink.finish()
        }
        await write(status.finish())
    }

    /// Whether `event` can change what the presenter shows. `.polling` and `.intervalChanged` never do: a caller
    /// that forwards the flow's events may leave them out and spare the presenter a wake-up on every poll.
    /// ``run(events:)`` takes every event either way.
    public func shows(_ event: DeviceFlowEvent) -> Bool {
        LiveStatus.shows(event)
    }

    /// Puts the terminal back in order: erases the current line, resets attributes and shows the cursor.
    ///
    /// For an interrupt handler that ends the process while ``run(events:)`` is still drawing. Writes nothing when
    /// the output takes no escapes.
    public func restore() {
        if capabilities.allowsEscapes { output.write(LiveStatus.restoreSequence) }
    }

    /// Writes off the cooperative pool (``TerminalOutput/writeOffPool(_:)``).
    private func write(_ text: String) async {
        await output.writeOffPool(text)
    }

    /// What the presenter's loop reacts to.
    private enum Input: Sendable, Equatable {
        case event(DeviceFlowEvent)
        case tick
        case eventsEnded
    }
}

extension LivePresenter where C == ContinuousClock {
    /// Creates a presenter that ticks on the continuous clock.
    ///
    /// - Parameters:
    ///   - capabilities: The terminal written to.
    ///   - qrMode: When the prompt shows a QR code; ``QRMode/auto`` by default.
    ///   - output: Where to write; standard error by default.
    ///   - tickInterval: How often the status line is redrawn; 250 ms by default.
    ///   - machineName: This machine's name for the prompt; ``MachineName/current()`` by default.
    public init(
        capabilities: TerminalCapabilities,
        qrMode: QRMode = .auto,
        output: any TerminalOutput = StandardErrorOutput(),
        tickInterval: Duration = .milliseconds(250),
        machineName: String? = MachineName.current()
    ) {
        self.init(
            capabilities: capabilities, qrMode: qrMode, output: output, clock: ContinuousClock(),
            tickInterval: tickInterval, machineName: machineName
        )
    }
}
