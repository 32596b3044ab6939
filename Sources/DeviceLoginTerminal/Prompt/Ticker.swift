import DeviceLogin

/// The ticker of the live presenters: the prompt's status line and the kiosk's countdown.
enum Ticker {
    /// Calls `tick` every `interval` on `clock` until the calling task is cancelled.
    ///
    /// `ContinuousClock` is slept on in the process's sleep queue (through `FlowClock`), not in libdispatch's timers:
    /// at four ticks a second, each tick woke a timer thread and a worker besides the executor (issue 19).
    static func run<C: Clock>(every interval: Duration, on clock: C, _ tick: () -> Void) async
    where C.Duration == Duration {
        let ticks = FlowClock(clock)
        while (try? await ticks.sleep(for: interval)) != nil { tick() }
    }
}
