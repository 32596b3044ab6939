/// The tunable parts of polling. A `Sendable` value with documented defaults; the RFC-mandated parts are not
/// tunable.
public struct PollingPolicy: Sendable, Hashable {
    /// The longest wait between polls after transport or server failures: 60 s by default.
    public var maximumBackoff: Duration
    /// The most that a server's `Retry-After` may delay the next poll: ``defaultMaximumRetryAfter`` by default.
    public var maximumRetryAfter: Duration

    /// Creates a policy.
    /// - Parameters:
    ///   - maximumBackoff: The cap on exponential backoff after failures.
    ///   - maximumRetryAfter: The cap on a server's `Retry-After`.
    public init(
        maximumBackoff: Duration = .seconds(60), maximumRetryAfter: Duration = PollingPolicy.defaultMaximumRetryAfter
    ) {
        self.maximumBackoff = maximumBackoff
        self.maximumRetryAfter = maximumRetryAfter
    }

    /// The longest a server's `Retry-After` holds back the next request to the token endpoint: 300 s (5 minutes).
    ///
    /// Polling uses it unless its policy says otherwise; a refresh always does (``TokenState/maximumRetryAfter``).
    public static let defaultMaximumRetryAfter: Duration = .seconds(300)

    /// RFC 8628 §3.5: "the interval MUST be increased by 5 seconds for this and all subsequent requests."
    public static let slowDownIncrement: Duration = .seconds(5)
}
