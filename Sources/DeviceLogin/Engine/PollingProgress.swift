#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where the polling of a device authorization stands, in wall-clock time, so that another process can continue it
/// with the rules of RFC 8628 §3.4–3.5 intact: the interval in force (grown by `slow_down`), the failures in a row
/// (for the backoff), and when the next poll may be sent at the earliest.
///
/// Keep it up to date with every event of the flow (``record(_:at:)``), save it with the authorization, and give it
/// back to a flow in another process with ``DeviceFlow/resuming(_:progress:)``: the resumed flow's first poll waits
/// until ``notBefore`` and at least one interval after ``lastPollAt``.
///
/// ```swift
/// var progress = PollingProgress(authorization)
/// let token = try await flow.pollForToken(authorization) { event in
///     progress.record(event, at: SystemTime.now())  // and save it, if the process may end before the flow does
/// }
/// ```
public struct PollingProgress: Sendable, Hashable {
    /// The interval in force: the server's `interval` (RFC 8628 §3.2), plus 5 s for every `slow_down` (§3.5).
    public var interval: Duration
    /// Failures (transport, 5xx, 429) in a row since the last answer from the server.
    public var consecutiveFailures: Int
    /// Polls sent so far.
    public var attempts: Int
    /// When the last poll was sent; nil before the first.
    public var lastPollAt: Date?
    /// The earliest time the next poll may be sent.
    public var notBefore: Date

    /// Creates a progress value.
    /// - Parameters:
    ///   - interval: The interval in force.
    ///   - consecutiveFailures: Failures in a row since the last answer from the server.
    ///   - attempts: Polls sent so far.
    ///   - lastPollAt: When the last poll was sent; nil before the first.
    ///   - notBefore: The earliest time of the next poll.
    public init(
        interval: Duration, consecutiveFailures: Int = 0, attempts: Int = 0, lastPollAt: Date? = nil,
        notBefore: Date
    ) {
        self.interval = interval
        self.consecutiveFailures = max(0, consecutiveFailures)
        self.attempts = max(0, attempts)
        self.lastPollAt = lastPollAt
        self.notBefore = notBefore
    }

    /// The progress of an authorization that has not been polled yet: its first interval, and the first poll one
    /// interval after the response arrived (RFC 8628 §3.4: "no more often than" every `interval` seconds).
    /// - Parameter authorization: The authorization from ``DeviceFlow/requestAuthorization()``.
    public init(_ authorization: DeviceAuthorization) {
        let interval = authorization.initialInterval
        self.init(interval: interval, notBefore: authorization.receivedAt.addingTimeInterval(interval.timeInterval))
    }

    /// Takes in an event of the flow that happened at `now` (wall-clock time).
    ///
    /// A poll sets ``lastPollAt`` and puts ``notBefore`` one interval later, so that a process that ends while the
    /// request is in flight leaves a progress that keeps the next poll far enough. The answer then sets when the
    /// next poll comes, as the flow itself decided it: one interval after `authorization_pending`, the grown
    /// interval after `slow_down`, the backoff after a failure.
    /// - Parameters:
    ///   - event: The event, as the flow reported it.
    ///   - now: When it happened.
    public mutating func record(_ event: DeviceFlowEvent, at now: Date) {
        switch event {
        case .polling(let attempt, _):
            attempts = max(attempts, attempt)
            lastPollAt = now
            notBefore = now.addingTimeInterval(interval.timeInterval)
        case .pending:
            consecutiveFailures = 0
            notBefore = now.addingTimeInterval(interval.timeInterval)
        case .slowDown(_, let newInterval):
            consecutiveFailures = 0
            interval = newInterval
            notBefore = now.addingTimeInterval(newInterval.timeInterval)
        case .intervalChanged(_, let newInterval):
            interval = newInterval
        case .retrying(_, let delay, _):
            if consecutiveFailures < Int(Int32.max) { consecutiveFailures += 1 }
            notBefore = now.addingTimeInterval(max(delay, interval).timeInterval)
        case .authorizationReceived, .succeeded, .failed:
            break
        }
    }
}
