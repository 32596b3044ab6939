/// What happens during a device flow, for a presenter (the terminal prompt) or a library user.
public enum DeviceFlowEvent: Sendable, Hashable {
    /// The device authorization response arrived: show the code.
    case authorizationReceived(DeviceAuthorization)
    /// A poll is about to be sent (1-based), at `elapsed` on the flow's clock.
    case polling(attempt: Int, elapsed: Duration)
    /// The server said `authorization_pending`.
    case pending(attempt: Int)
    /// The server said `slow_down`; the interval is now `newInterval`.
    case slowDown(attempt: Int, newInterval: Duration)
    /// The interval in force changed.
    case intervalChanged(from: Duration, to: Duration)
    /// A poll failed in a way that may pass (network, 5xx, 429); the next poll waits `delay`.
    case retrying(attempt: Int, delay: Duration, reason: String)
    /// The flow finished with a token.
    case succeeded
    // `indirect`: a DeviceLoginError is several times larger than any other payload, and each event the polling
    // loop makes takes a slot of the largest case's size in its async frame. Without it, device-login-bench
    // measures +2.4 MB peak RSS, +0.2 kB per flow.
    /// The flow stopped with an error.
    indirect case failed(DeviceLoginError)
}
