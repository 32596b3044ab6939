import DeviceLogin

/// A clock whose time moves only when a test says so: virtual time for deterministic tests.
///
/// Give it wherever a `Clock<Duration>` is injected (the device flow, the token store, the mock server). Code under
/// test that sleeps on it suspends until the test moves time past its deadline with ``advance(by:)`` or
/// ``advance(to:)``; nothing ever waits for real.
///
/// Advancing races with the code under test unless the test first waits for that code to be asleep. Wait with
/// ``sleepers(atLeast:)``, then advance:
///
/// ```swift
/// let clock = ManualClock()
/// async let token = flow.run()                 // sleeps 5 s on `clock` before each poll
/// await clock.sleepers(atLeast: 1)             // the flow is now asleep
/// clock.advance(by: .seconds(5))               // ...and wakes up for its first poll
/// ```
///
/// For a single sequential task, ``withAutoAdvance(whenSleeping:_:)`` does this loop for you: time jumps to each
/// deadline as soon as the task sleeps.
///
/// A cancelled sleeper throws `CancellationError` at once and is removed, as the system clocks' sleeps do.
public final class ManualClock: Clock, Sendable {
    /// A point in virtual time: an offset from the clock's zero.
    public struct Instant: InstantProtocol, Sendable, Hashable, CustomStringConvertible {
        /// The time since the clock's zero.
        public var offset: Duration

        /// The clock's zero.
        public static let zero = Instant(offset: .zero)

        /// Creates the instant `offset` after the clock's zero.
        /// - Parameter offset: The time since zero.
        public init(offset: Duration) {
            self.offset = offset
        }

        /// The instant `duration` later.
        public func advanced(by duration: Duration) -> Instant {
            Instant(offset: offset + duration)
        }

        /// The duration from this instant to `other` (negative when `other` is earlier).
        public func duration(to other: Instant) -> Duration {
            other.offset - offset
        }

        /// Whether `lhs` comes before `rhs`.
        public static func < (lhs: Instant, rhs: Instant) -> Bool {
            lhs.offset < rhs.offset
        }

        /// The instant `rhs` after `lhs`.
        public static func + (lhs: Instant, rhs: Duration) -> Instant {
            lhs.advanced(by: rhs)
        }

        /// The instant `rhs` before `lhs`.
        public static func - (lhs: Instant, rhs: Duration) -> Instant {
            lhs.advanced(by: .zero - rhs)
        }

        /// The duration from `rhs` to `lhs`.
        public static func - (lhs: Instant, rhs: Instant) -> Duration {
            rhs.duration(to: lhs)
        }

        /// Moves `lhs` later by `rhs`.
        public static func += (lhs: inout Instant, rhs: Duration) {
            lhs = lhs.advanced(by: rhs)
        }

        /// The offset from zero, e.g. `+5.0 seconds`.
        public var description: String { "+\(offset)" }
    }

    private struct Sleeper {
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct Watcher {
        var count: Int
        var continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var now: Instant
        var nextID: UInt64 = 0
        var sleepers: [UInt64: Sleeper] = [:]
        var watchers: [UInt64: Watcher] = [:]
        var requestedSleeps: [Duration] = []

        mutating func makeID() -> UInt64 {
            nextID += 1
            return nextID
        }

        /// Removes and returns the watchers whose sleeper count is reached.
        mutating func takeSatisfiedWatchers() -> [CheckedContinuation<Void, Never>] {
            let ready = watchers.filter { $0.value.count <= sleepers.count }
            for id in ready.keys { watchers[id] = nil }
            return ready.values.map(\.continuation)
        }
    }

    private let state: Locked<State>

    /// Creates a clock.
    /// - Parameter now: The starting instant; ``Instant/zero`` by default.
    public init(now: Instant = .zero) {
        state = Locked(State(now: now))
    }

    /// The current virtual time.
    public var now: Instant {
        state.withLock { $0.now }
    }

    /// The time since zero: `now.offset`.
    public var elapsed: Duration {
        now.offset
    }

    /// The smallest step the clock tells apart: none, time is exact.
    public var minimumResolution: Duration {
        .zero
    }

    /// How many tasks are asleep on this clock now.
    public var sleeperCount: Int {
        state.withLock { $0.sleepers.count }
    }

    /// The deadlines of the tasks asleep now, earliest first.
    public var pendingDeadlines: [Instant] {
        state.withLock { $0.sleepers.values.map(\.deadline) }.sorted()
    }

    /// How long each sleep asked of this clock was to last, in the order asked: its deadline less the time it was
    /// asked at (zero or less for a deadline already reached), whether it then slept, returned at once or was
    /// cancelled.
    ///
    /// Lets a test assert a schedule the code under test keeps to itself, such as a backoff:
    ///
    /// ```swift
    /// _ = try await clock.withAutoAdvance { try await store.withExclusiveAccess(profile: "default") { … } }
    /// #expect(clock.requestedSleeps.prefix(3) == [.milliseconds(2), .milliseconds(4), .milliseconds(8)])
    /// ```
    ///
    /// The list grows by one entry per sleep, for the life of the clock.
    public var requestedSleeps: [Duration] {
        state.withLock { $0.requestedSleeps }
    }

    /// Suspends until virtual time reaches `deadline`.
    ///
    /// Returns at once when `deadline` is not later than ``now``.
    /// - Parameters:
    ///   - deadline: When to wake up.
    ///   - tolerance: Ignored: virtual time is exact.
    /// - Throws: `CancellationError` when the task is cancelled, at once, whether asleep or not.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.withLock { state in
            state.requestedSleeps.append(state.now.duration(to: deadline))
            return state.makeID()
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Action {
                    case cancel, wake
                    case sleep([CheckedContinuation<Void, Never>])
                }
                let action: Action = state.withLock { state in
                    // Read under the lock: a cancellation handler that ran before this block has already set the
                    // flag; one that runs after it finds the sleeper registered.
                    if Task.isCancelled { return .cancel }
                    if deadline <= state.now { return .wake }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return .sleep(state.takeSatisfiedWatchers())
                }
                switch action {
                case .cancel: continuation.resume(throwing: CancellationError())
                case .wake: continuation.resume()
                case .sleep(let watchers): for watcher in watchers { watcher.resume() }
                }
            }
        } onCancel: {
            let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward by `duration` and wakes every sleeper whose deadline is reached, earliest first.
    ///
    /// The woken tasks run afterwards, concurrently with the caller; wait for them to sleep again with
    /// ``sleepers(atLeast:)`` before advancing further.
    /// - Parameter duration: How far to move; a negative duration does nothing (time never goes back).
    public func advance(by duration: Duration) {
        let target = state.withLock { $0.now.advanced(by: max(duration, .zero)) }
        advance(to: target)
    }

    /// Moves time forward to `instant` and wakes every sleeper whose deadline is reached, earliest first.
    /// - Parameter instant: The new time; an instant earlier than ``now`` does nothing (time never goes back).
    public func advance(to instant: Instant) {
        let woken: [Sleeper] = state.withLock { state in
            guard instant > state.now else { return [] }
            state.now = instant
            let due = state.sleepers.filter { $0.value.deadline <= instant }
                .sorted { ($0.value.deadline, $0.key) < ($1.value.deadline, $1.key) }
            for (id, _) in due { state.sleepers[id] = nil }
            return due.map(\.value)
        }
        for sleeper in woken {
            sleeper.continuation.resume()
        }
    }

    /// Moves time to the earliest pending deadline, if any task is asleep.
    /// - Returns: The new time, or nil when nobody sleeps (time does not move).
    @discardableResult
    public func advanceToNextDeadline() -> Instant? {
        guard let next = pendingDeadlines.first else { return nil }
        advance(to: next)
        return next
    }

    /// Waits until at least `count` tasks are asleep on this clock.
    ///
    /// Call it before ``advance(by:)`` so that the code under test has reached its sleep:
    ///
    /// ```swift
    /// await clock.sleepers(atLeast: 1)
    /// clock.advance(by: .seconds(5))
    /// ```
    ///
    /// Returns early, without waiting further, when the calling task is cancelled.
    /// - Parameter count: How many sleepers to wait for.
    public func sleepers(atLeast count: Int) async {
        let id = state.withLock { $0.makeID() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready: Bool = state.withLock { state in
                    if Task.isCancelled || state.sleepers.count >= count { return true }
                    state.watchers[id] = Watcher(count: count, continuation: continuation)
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            let watcher = state.withLock { $0.watchers.removeValue(forKey: id) }
            watcher?.continuation.resume()
        }
    }

    /// Runs `operation` while moving time to the earliest deadline each time a task sleeps on this clock.
    ///
    /// Suits one sequential task, such as a device flow polling an in-process server: every wait it makes passes
    /// at once, in order, and virtual time ends where the real flow would have ended.
    ///
    /// ```swift
    /// let clock = ManualClock()
    /// let token = try await clock.withAutoAdvance {
    ///     try await flow.run()
    /// }
    /// #expect(clock.now == .zero + .seconds(15))
    /// ```
    ///
    /// With several tasks sleeping at once, time jumps to the earliest deadline among those asleep at that moment;
    /// a task still running may then register a deadline that has already passed and wake at once.
    ///
    /// Code that keeps a ticker of its own beside the flow — a countdown redrawn every second — has a task asleep
    /// on the clock while the flow waits for the server, and with `sleeping` 1 the ticker alone would race time
    /// ahead. Pass the number of tasks that sleep together when all is quiet, 2 for the flow and its ticker: time
    /// then moves only once both are asleep.
    ///
    /// ```swift
    /// let code = try await clock.withAutoAdvance(whenSleeping: 2) {
    ///     try await kiosk.signIn()   // polls, and redraws its countdown every second
    /// }
    /// ```
    /// - Parameters:
    ///   - sleeping: How many tasks must be asleep on the clock before time moves; at least 1. Default 1.
    ///   - operation: The work to run.
    /// - Returns: What `operation` returns.
    /// - Throws: What `operation` throws; `CancellationError` when the caller is cancelled.
    public func withAutoAdvance<Result: Sendable>(
        whenSleeping sleeping: Int = 1,
        _ operation: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        let sleeping = max(sleeping, 1)
        return try await withThrowingTaskGroup(of: Result?.self) { group in
            group.addTask { try await operation() }
            group.addTask { [self] in
                while !Task.isCancelled {
                    await sleepers(atLeast: sleeping)
                    guard !Task.isCancelled else { break }
                    advanceToNextDeadline()
                    await Task.yield()
                }
                return nil
            }
            while let next = try await group.next() {
                if let result = next {
                    group.cancelAll()
                    return result
                }
            }
            throw CancellationError()
        }
    }
}
