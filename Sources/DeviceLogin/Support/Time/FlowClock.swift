/// A type-erased `Clock<Duration>` measured from a fixed origin, so the engine can keep deadlines as plain
/// durations and sleep until absolute points (no drift from repeated relative sleeps).
///
/// The one adapter from an injected clock to "time since I started": the device flow, the token state and the
/// testing kit's mock server all measure with it. `ContinuousClock` (the default) is read directly and slept on in
/// ``SleepQueue``, with no closure in between: every async frame a waiting flow holds is multiplied by the number of
/// flows (device-login-bench).
package struct FlowClock: Sendable {
    private enum Source: Sendable {
        case continuous(origin: ContinuousClock.Instant)
        case injected(elapsed: @Sendable () -> Duration, sleepUntil: @Sendable (Duration) async throws -> Void)
    }

    private let source: Source

    /// Starts measuring on `clock`: its current instant is the origin.
    package init<C: Clock>(_ clock: C) where C.Duration == Duration {
        if let continuous = clock as? ContinuousClock {
            source = .continuous(origin: continuous.now)
            return
        }
        let origin = clock.now
        source = .injected(
            elapsed: { origin.duration(to: clock.now) },
            sleepUntil: { target in try await clock.sleep(until: origin.advanced(by: target), tolerance: nil) }
        )
    }

    /// Time since the origin.
    package func elapsed() -> Duration {
        switch source {
        case .continuous(let origin): return origin.duration(to: .now)
        case .injected(let elapsed, _): return elapsed()
        }
    }

    /// Sleeps until the given time since the origin; throws `CancellationError` when cancelled.
    ///
    /// Out of line, as ``sleep(for:)``: inlined, the sleep's own frame joins the polling loop's.
    @inline(never)
    package func sleepUntil(_ target: Duration) async throws {
        switch source {
        case .continuous(let origin): try await SleepQueue.shared.sleep(until: origin.advanced(by: target))
        case .injected(_, let sleepUntil): try await sleepUntil(target)
        }
    }

    /// Sleeps for `delay` from now; throws `CancellationError` when cancelled.
    @inline(never)
    package func sleep(for delay: Duration) async throws {
        try await sleepUntil(elapsed() + delay)
    }
}
