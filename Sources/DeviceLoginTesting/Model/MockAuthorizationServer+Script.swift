import DeviceLogin

extension MockAuthorizationServer {
    /// What the user does with one device code, and what goes wrong on which poll.
    ///
    /// Polls are numbered from 1 for each device code, every token request with that code counting, whatever it
    /// was answered. A fault replaces the normal answer of its poll (a ``Fault/delay(_:)`` only delays it).
    ///
    /// ```swift
    /// // Pending twice, a slow_down on poll 2, a 503 on poll 3, then the token on poll 4.
    /// let script = MockAuthorizationServer.Script.approve(afterPolls: 3)
    ///     .with(.slowDown, atPoll: 2)
    ///     .with(.httpError(status: 503, retryAfter: 10), atPoll: 3)
    /// ```
    public struct Script: Sendable, Hashable {
        /// When the user acts.
        public enum Trigger: Sendable, Hashable {
            /// Before the first poll.
            case immediately
            /// After this many polls: poll `n + 1` is the first to see the decision.
            case afterPolls(Int)
            /// Once this much time has passed since the code was issued.
            case after(Duration)
        }

        /// What the user does.
        public enum Decision: Sendable, Hashable {
            /// Nothing: pending until ``MockAuthorizationServer/approve(deviceCode:)``,
            /// ``MockAuthorizationServer/deny(deviceCode:)``, the approval page, or expiry.
            case pending
            /// Approves when the trigger fires.
            case approve(Trigger)
            /// Denies when the trigger fires.
            case deny(Trigger)
        }

        /// What the user does.
        public var decision: Decision
        /// Faults by poll number.
        public var faults: [Int: Fault]

        /// Creates a script.
        /// - Parameters:
        ///   - decision: What the user does; default nothing.
        ///   - faults: Faults by poll number.
        public init(decision: Decision = .pending, faults: [Int: Fault] = [:]) {
            self.decision = decision
            self.faults = faults
        }

        /// Pending until told otherwise.
        public static let pending = Script()
        /// Approved before the first poll: the first poll gets the token.
        public static let approveImmediately = Script(decision: .approve(.immediately))

        /// Pending for `polls` polls, then approved.
        public static func approve(afterPolls polls: Int) -> Script {
            Script(decision: .approve(.afterPolls(polls)))
        }

        /// Pending until `delay` after issue, then approved.
        public static func approve(after delay: Duration) -> Script {
            Script(decision: .approve(.after(delay)))
        }

        /// Pending for `polls` polls, then denied.
        public static func deny(afterPolls polls: Int) -> Script {
            Script(decision: .deny(.afterPolls(polls)))
        }

        /// The same script with `fault` on poll `poll`.
        /// - Parameters:
        ///   - fault: What goes wrong.
        ///   - poll: The poll number, from 1.
        public func with(_ fault: Fault, atPoll poll: Int) -> Script {
            var copy = self
            copy.faults[poll] = fault
            return copy
        }

        /// Whether the decision is due for a poll numbered `poll` at `elapsed` since issue.
        func decisionIsDue(poll: Int, sinceIssue elapsed: Duration) -> Bool {
            switch decision {
            case .pending: return false
            case .approve(let trigger), .deny(let trigger): return trigger.hasFired(poll: poll, sinceIssue: elapsed)
            }
        }
    }

    /// Something that goes wrong with one answer.
    public enum Fault: Sendable, Hashable {
        /// The largest body ``oversizedBody(bytes:)`` sends by default: 10 MiB.
        public static let defaultOversizedBytes = 10 << 20

        /// `slow_down`, and 5 seconds more interval for this device code (on a refresh: only the error).
        case slowDown
        /// This OAuth error, with this status (as the dialect would send it): `.oauthError(.invalidGrant)` ends a
        /// refresh session.
        case oauthError(OAuthError.Code, status: Int = 400)
        /// This OAuth error, with an `error_description`, an `error_uri` and an `echo` member that repeat every
        /// credential the request carried (the client secret, in the form or HTTP Basic; the device code; the refresh
        /// token): a careless or hostile server, to show that a client never prints what it sent.
        case echoingCredentials(OAuthError.Code, status: Int = 400)
        /// A plain HTTP failure such as 503 or 429, with `Retry-After` in seconds when given.
        case httpError(status: Int, retryAfter: Int? = nil)
        /// No answer: the in-process transport throws `TransportError` `connectionFailed`; the listener closes
        /// the socket.
        case dropConnection
        /// HTTP 200 with `Content-Type: application/json` and a body that is not JSON.
        case malformedJSON
        /// HTTP 200 with a JSON body of `bytes` bytes (10 MiB by default).
        case oversizedBody(bytes: Int = Fault.defaultOversizedBytes)
        /// The normal answer, `delay` later (on the server's clock).
        case delay(Duration)
    }
}

extension MockAuthorizationServer.Script.Trigger {
    func hasFired(poll: Int, sinceIssue elapsed: Duration) -> Bool {
        switch self {
        case .immediately: return true
        case .afterPolls(let count): return poll > count
        case .after(let delay): return elapsed >= delay
        }
    }
}
