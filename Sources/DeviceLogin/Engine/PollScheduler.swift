/// The polling decision: a pure function from (state, outcome, time) to the next step.
///
/// The loop in ``DeviceFlow`` is a thin shell around it — sleep, send, await, decide — so every rule of RFC 8628
/// §3.4–3.5 lives here and is tested with tables.
public enum PollScheduler {
    /// Where a flow stands between polls. Times are durations on the flow's clock since the flow started.
    public struct State: Sendable, Hashable {
        // Frame size: the state lives in the polling task's frame for as long as it polls. The failure count is
        // kept in 32 bits so that the nonce flag fits beside it and the state stays 48 bytes; a 49-byte state costs
        // 0.2 kB per flow in device-login-bench.

        /// The interval in force (RFC 8628 §3.2 `interval`, grown by `slow_down`).
        public var interval: Duration
        private var failureCount: Int32
        /// Whether the last poll was the one retry of a poll the server refused with `use_dpop_nonce` (RFC 9449 §8).
        public var retriedForNonce: Bool
        /// Polls sent so far.
        public var attempts: Int
        /// When the device code expires: no poll at or after it.
        public var deadline: Duration

        /// Failures (transport, 5xx, 429) in a row since the last answer from the server (at most `Int32.max`).
        public var consecutiveFailures: Int {
            get { Int(failureCount) }
            set { failureCount = Int32(clamping: newValue) }
        }

        /// Creates a state.
        public init(
            interval: Duration, deadline: Duration, consecutiveFailures: Int = 0, attempts: Int = 0,
            retriedForNonce: Bool = false
        ) {
            self.interval = interval
            self.deadline = deadline
            self.failureCount = Int32(clamping: consecutiveFailures)
            self.attempts = attempts
            self.retriedForNonce = retriedForNonce
        }
    }

    /// The next step.
    public enum Decision: Sendable, Hashable {
        /// Wait `delay`, then poll.
        case poll(after: Duration)
        // `indirect`: the polling loop holds a decision across its awaits, so the largest payload (a
        // DeviceLoginError, 248 bytes) would take its size in the async frame of every waiting flow. Boxed, the
        // decision is 17 bytes, and the box is made only when a flow ends.
        /// Stop with the token.
        indirect case finish(TokenResponse)
        /// Stop with the error now.
        indirect case fail(DeviceLoginError)
        /// The next poll would fall at or after the deadline: wait until the deadline (`after`), then stop with
        /// ``DeviceLoginError/Code/expired``.
        case expire(after: Duration)
    }

    /// The first step after the device authorization response: wait one interval, then poll.
    ///
    /// RFC 8628 §3.4: the client polls "no more often than" every `interval` seconds — the first poll included.
    public static func start(_ state: State, now: Duration) -> Decision {
        schedule(state.interval, state: state, now: now)
    }

    /// The first step of a flow resumed from a saved ``PollingProgress``, perhaps in another process: wait until the
    /// next poll the saved flow had planned, and never less than one interval after its last poll.
    ///
    /// RFC 8628 §3.4: polls come "no more often than" every `interval` seconds, across processes too. A wall clock set
    /// back between the two processes (`now` before `lastContact`) does not stall the flow: the wait is at most what
    /// the saved flow had planned after its last poll.
    /// - Parameters:
    ///   - state: The state rebuilt from the progress: the interval in force, the failures in a row, the deadline.
    ///   - lastContact: When the last poll was sent, or the authorization arrived when there was no poll yet.
    ///   - notBefore: The earliest next poll the saved flow had decided (backoff and `Retry-After` included).
    ///   - now: The time on the flow's clock.
    /// - Returns: ``Decision/poll(after:)``, or ``Decision/expire(after:)`` when that poll would fall at or after the
    ///   deadline.
    public static func resume(_ state: State, lastContact: Duration, notBefore: Duration, now: Duration) -> Decision {
        let target = max(notBefore, lastContact + state.interval)
        let delay = min(max(.zero, target - now), target - lastContact)
        return schedule(delay, state: state, now: now)
    }

    /// Decides what follows a poll.
    /// - Parameters:
    ///   - state: The state before the poll; updated in place.
    ///   - outcome: What the poll came to.
    ///   - now: The time on the flow's clock when the outcome arrived.
    ///   - policy: Backoff caps.
    /// - Returns: The next step.
    public static func decide(
        _ state: inout State, outcome: PollOutcome, now: Duration, policy: PollingPolicy = PollingPolicy()
    ) -> Decision {
        if case .useDPoPNonce = outcome {} else { state.retriedForNonce = false }
        switch outcome {
        case .token(let token):
            return .finish(token)
        case .pending:
            state.consecutiveFailures = 0
            return schedule(state.interval, state: state, now: now)
        case .slowDown(let serverInterval):
            state.consecutiveFailures = 0
            // RFC 8628 §3.5: "the interval MUST be increased by 5 seconds for this and all subsequent requests."
            // GitHub sends a new `interval` with slow_down: take whichever is larger.
            var grown = state.interval + PollingPolicy.slowDownIncrement
            if let serverInterval, serverInterval > 0 {
                grown = max(grown, .seconds(min(serverInterval, DeviceAuthorizationResponse.maximumInterval)))
            }
            state.interval = grown
            return schedule(grown, state: state, now: now)
        case .denied(let error):
            return .fail(
                DeviceLoginError(
                    .accessDenied, "the sign-in request was denied",
                    hint: "run the command again if that was a mistake", oauthError: error
                ).advisingOnKnownRefusal())
        case .expired(let error):
            return .fail(DeviceLoginError.codeExpired(oauthError: error))
        case .useDPoPNonce(let error):
            // RFC 9449 §8: the server refused the proof for want of its nonce and sent one in DPoP-Nonce; the client
            // sends the request again with a new proof carrying it, here at once. The server refused the proof before it read the device
            // code, so the refused request was no poll and the retry does not shorten the interval: the next poll
            // waits the whole interval after the retry. Refused again, the nonce did not help: stop.
            guard !state.retriedForNonce else {
                return .fail(DeviceLoginError.server(error, while: "the token request, sent again with its DPoP nonce"))
            }
            state.retriedForNonce = true
            return schedule(.zero, state: state, now: now)
        case .oauthError(let error):
            return .fail(DeviceLoginError.server(error, while: "the token request").advisingOnKnownRefusal())
        case .fatal(let error):
            return .fail(error)
        case .transient(_, let retryAfterSeconds):
            state.consecutiveFailures += 1
            // RFC 8628 §3.5: on a connection timeout the client "MUST reduce its polling frequency before
            // resuming"; exponential backoff, never sooner than the interval, honouring Retry-After.
            var delay = backoff(interval: state.interval, failures: state.consecutiveFailures, policy: policy)
            if let retryAfterSeconds {
                delay = max(delay, min(.seconds(retryAfterSeconds), policy.maximumRetryAfter))
            }
            return schedule(delay, state: state, now: now)
        }
    }

    /// The wait after `failures` failures in a row: `interval × 2^failures`, capped at
    /// ``PollingPolicy/maximumBackoff``, and never less than `interval`.
    public static func backoff(interval: Duration, failures: Int, policy: PollingPolicy = PollingPolicy()) -> Duration {
        let exponent = min(max(failures, 0), 16)
        let grown = interval * (1 << exponent)
        return max(interval, min(grown, policy.maximumBackoff))
    }

    /// Polls after `delay` unless that is at or past the deadline.
    private static func schedule(_ delay: Duration, state: State, now: Duration) -> Decision {
        if now + delay >= state.deadline {
            return .expire(after: max(.zero, state.deadline - now))
        }
        return .poll(after: delay)
    }
}
