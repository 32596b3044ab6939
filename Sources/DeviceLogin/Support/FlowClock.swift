/// A type-erased `Clock<Duration>` measured from a fixed origin, so the engine can keep deadlines as plain
/// durations and sleep until absolute points (no drift from repeated relative sleeps).
struct FlowClock: Sendable {
    /// Time since the origin.
    let elapsed: @Sendable () -> Duration
    /// Sleeps until the given time since the origin; throws `CancellationError` when cancelled.
    let sleepUntil: @Sendable (Duration) async throws -> Void

    init<C: Clock>(_ clock: C) where C.Duration == Duration {
        let origin = clock.now
        elapsed = { origin.duration(to: clock.now) }
        sleepUntil = { target in try await clock.sleep(until: origin.advanced(by: target), tolerance: nil) }
    }
}
