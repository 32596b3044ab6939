/// A type-erased `Clock<Duration>` measured from a fixed origin, so the engine can keep deadlines as plain
/// durations and sleep until absolute points (no drift from repeated relative sleeps).
///
/// The one adapter from an injected clock to "time since I started": the device flow, the token state and the
/// testing kit's mock server all measure with it.
package struct FlowClock: Sendable {
    /// Time since the origin.
    package let elapsed: @Sendable () -> Duration
    /// Sleeps until the given time since the origin; throws `CancellationError` when cancelled.
    package let sleepUntil: @Sendable (Duration) async throws -> Void

    /// Starts measuring on `clock`: its current instant is the origin.
    package init<C: Clock>(_ clock: C) where C.Duration == Duration {
        let origin = clock.now
        elapsed = { origin.duration(to: clock.now) }
        sleepUntil = { target in try await clock.sleep(until: origin.advanced(by: target), tolerance: nil) }
    }

    /// Sleeps for `delay` from now; throws `CancellationError` when cancelled.
    package func sleep(for delay: Duration) async throws {
        try await sleepUntil(elapsed() + delay)
    }
}
