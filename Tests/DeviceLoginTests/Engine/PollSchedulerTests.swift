import Testing

@testable import DeviceLogin

@Suite("PollScheduler: the pure polling decision (RFC 8628 §3.4-3.5)")
struct PollSchedulerTests {
    private let token = TokenResponse(accessToken: "at", tokenType: "Bearer", expiresIn: 3600)

    private func state(interval: Int = 5, deadline: Int = 600, failures: Int = 0) -> PollScheduler.State {
        PollScheduler.State(interval: .seconds(interval), deadline: .seconds(deadline), consecutiveFailures: failures)
    }

    @Test("the first poll waits one interval")
    func firstPollWaitsInterval() {
        #expect(PollScheduler.start(state(interval: 5), now: .zero) == .poll(after: .seconds(5)))
        #expect(PollScheduler.start(state(interval: 7), now: .seconds(1)) == .poll(after: .seconds(7)))
    }

    @Test("pending keeps the interval", arguments: [1, 5, 30])
    func pendingKeepsInterval(interval: Int) {
        var current = state(interval: interval)
        let decision = PollScheduler.decide(&current, outcome: .pending, now: .seconds(10))
        #expect(decision == .poll(after: .seconds(interval)))
        #expect(current.interval == .seconds(interval))
    }

    @Test("slow_down adds exactly 5 s for this and every later poll")
    func slowDownAddsFive() {
        var current = state(interval: 5)
        #expect(
            PollScheduler.decide(&current, outcome: .slowDown(serverInterval: nil), now: .seconds(5))
                == .poll(after: .seconds(10)))
        #expect(current.interval == .seconds(10))
        #expect(PollScheduler.decide(&current, outcome: .pending, now: .seconds(15)) == .poll(after: .seconds(10)))
        #expect(
            PollScheduler.decide(&current, outcome: .slowDown(serverInterval: nil), now: .seconds(25))
                == .poll(after: .seconds(15)))
    }

    @Test(
        "slow_down with a server interval takes the larger of it and +5 s (GitHub)",
        arguments: [(5, 7, 10), (5, 10, 10), (5, 15, 15), (5, 0, 10), (10, 3, 15)]
    )
    func slowDownWithServerInterval(current: Int, server: Int, expected: Int) {
        var value = state(interval: current)
        let decision = PollScheduler.decide(&value, outcome: .slowDown(serverInterval: server), now: .zero)
        #expect(decision == .poll(after: .seconds(expected)))
        #expect(value.interval == .seconds(expected))
    }

    @Test(
        "a server interval sent with slow_down is capped at DeviceAuthorizationResponse.maximumInterval (3600 s)",
        arguments: [(3599, 3599), (3600, 3600), (3601, 3600), (1_000_000, 3600)]
    )
    func slowDownServerIntervalCap(server: Int, expected: Int) {
        #expect(DeviceAuthorizationResponse.maximumInterval == 3600)
        var value = state(interval: 5, deadline: 100_000)
        let decision = PollScheduler.decide(&value, outcome: .slowDown(serverInterval: server), now: .zero)
        #expect(decision == .poll(after: .seconds(expected)))
        #expect(value.interval == .seconds(expected))
    }

    @Test("one Retry-After cap, 300 s, for polling and refreshing")
    func retryAfterCapIsShared() {
        #expect(PollingPolicy.defaultMaximumRetryAfter == .seconds(300))
        #expect(PollingPolicy().maximumRetryAfter == PollingPolicy.defaultMaximumRetryAfter)
        #expect(TokenState.maximumRetryAfter == PollingPolicy.defaultMaximumRetryAfter)
    }

    @Test("a token finishes")
    func tokenFinishes() {
        var current = state()
        #expect(PollScheduler.decide(&current, outcome: .token(token), now: .seconds(5)) == .finish(token))
    }

    @Test("denied, expired and other OAuth errors fail with the matching code")
    func finalErrors() {
        let cases: [(PollOutcome, DeviceLoginError.Code)] = [
            (.denied(OAuthError(code: .accessDenied)), .accessDenied),
            (.expired(OAuthError(code: .expiredToken)), .expired),
            (.oauthError(OAuthError(code: .invalidGrant)), .oauth),
            (.oauthError(OAuthError(code: "something_new")), .oauth),
            (.fatal(DeviceLoginError(.invalidResponse, "x")), .invalidResponse),
        ]
        for (outcome, code) in cases {
            var current = state()
            guard case .fail(let error) = PollScheduler.decide(&current, outcome: outcome, now: .seconds(5)) else {
                Issue.record("expected a failure for \(outcome)")
                continue
            }
            #expect(error.code == code)
            #expect(!error.message.isEmpty)
        }
    }

    @Test(
        "transient failures back off exponentially from the interval, capped at 60 s",
        arguments: [(1, 10), (2, 20), (3, 40), (4, 60), (5, 60), (12, 60)]
    )
    func backoffTable(failures: Int, expected: Int) {
        var current = state(interval: 5, failures: failures - 1)
        let decision = PollScheduler.decide(
            &current, outcome: .transient(reason: "reset", retryAfterSeconds: nil), now: .seconds(10)
        )
        #expect(decision == .poll(after: .seconds(expected)))
        #expect(current.consecutiveFailures == failures)
        #expect(current.interval == .seconds(5), "a transient failure does not change the interval in force")
    }

    @Test("backoff is never sooner than the interval, even above the cap")
    func backoffNeverBelowInterval() {
        #expect(PollScheduler.backoff(interval: .seconds(90), failures: 3) == .seconds(90))
        #expect(PollScheduler.backoff(interval: .seconds(5), failures: 0) == .seconds(5))
        #expect(PollScheduler.backoff(interval: .seconds(5), failures: 1000) == .seconds(60))
    }

    @Test(
        "Retry-After is honoured when longer than the backoff, capped at 300 s",
        arguments: [(3, 10), (10, 10), (30, 30), (1000, 300)])
    func retryAfter(retryAfter: Int, expected: Int) {
        var current = state(interval: 5)
        let decision = PollScheduler.decide(
            &current, outcome: .transient(reason: "503", retryAfterSeconds: retryAfter), now: .zero
        )
        #expect(decision == .poll(after: .seconds(expected)))
    }

    @Test("an answer from the server resets the failure count")
    func answerResetsFailures() {
        var current = state(interval: 5, failures: 3)
        _ = PollScheduler.decide(&current, outcome: .pending, now: .seconds(10))
        #expect(current.consecutiveFailures == 0)
        #expect(
            PollScheduler.decide(
                &current, outcome: .transient(reason: "x", retryAfterSeconds: nil),
                now: .seconds(20)) == .poll(after: .seconds(10)))
    }

    @Test(
        "no poll at or after the deadline: boundaries",
        arguments: [
            (594, Duration.seconds(5), PollScheduler.Decision.poll(after: .seconds(5))),
            (595, Duration.seconds(5), PollScheduler.Decision.expire(after: .seconds(5))),
            (596, Duration.seconds(5), PollScheduler.Decision.expire(after: .seconds(4))),
            (600, Duration.seconds(5), PollScheduler.Decision.expire(after: .zero)),
            (700, Duration.seconds(5), PollScheduler.Decision.expire(after: .zero)),
        ])
    func deadlineBoundaries(now: Int, interval: Duration, expected: PollScheduler.Decision) {
        var current = PollScheduler.State(interval: interval, deadline: .seconds(600))
        #expect(PollScheduler.decide(&current, outcome: .pending, now: .seconds(now)) == expected)
    }

    @Test("a slow_down that pushes the next poll past the deadline expires instead")
    func slowDownPastDeadline() {
        var current = state(interval: 5, deadline: 30)
        #expect(
            PollScheduler.decide(&current, outcome: .slowDown(serverInterval: nil), now: .seconds(20))
                == .expire(after: .seconds(10)))
    }

    // MARK: - Resuming a saved flow

    @Test(
        "a resumed flow waits until the planned poll, never sooner than one interval after the last",
        arguments: [
            // (interval, last contact, not before, now) → wait
            (5, 0, 5, 0, Duration.seconds(5)), // nothing polled yet, resumed at once: one interval
            (5, 0, 5, 3, Duration.seconds(2)), // resumed 3 s later: the rest of the interval
            (5, 0, 5, 5, Duration.zero), // exactly at the interval: at once
            (5, 0, 5, 60, Duration.zero), // long after: at once
            (10, 5, 15, 7, Duration.seconds(8)), // after a slow_down at 5 s: the grown interval is kept
            (10, 5, 5, 7, Duration.seconds(8)), // a planned poll sooner than the interval is not honoured
            (5, 10, 50, 12, Duration.seconds(38)), // a backoff planned to 50 s is kept
            (5, 10, 50, 60, Duration.zero), // ...and over
            (5, 10, 15, 2, Duration.seconds(5)), // the clock went back before the last poll: at most the plan
        ])
    func resumeWaits(interval: Int, last: Int, notBefore: Int, now: Int, expected: Duration) {
        let current = state(interval: interval, deadline: 600)
        let decision = PollScheduler.resume(
            current, lastContact: .seconds(last), notBefore: .seconds(notBefore), now: .seconds(now))
        #expect(decision == .poll(after: expected))
    }

    @Test(
        "a resumed flow whose next poll falls at or after the deadline expires, at once when it has passed",
        arguments: [
            // (not before, now) with the last poll at 590 s, interval 5 s, deadline 600 s
            (595, 594, PollScheduler.Decision.poll(after: .seconds(1))),
            (600, 594, PollScheduler.Decision.expire(after: .seconds(6))),
            (605, 598, PollScheduler.Decision.expire(after: .seconds(2))),
            (595, 600, PollScheduler.Decision.expire(after: .zero)),
            (595, 900, PollScheduler.Decision.expire(after: .zero)),
        ])
    func resumeDeadline(notBefore: Int, now: Int, expected: PollScheduler.Decision) {
        let current = state(interval: 5, deadline: 600)
        let decision = PollScheduler.resume(
            current, lastContact: .seconds(590), notBefore: .seconds(notBefore), now: .seconds(now))
        #expect(decision == expected)
    }

    @Test("the interval kept after slow_down stays for every poll after the resume")
    func resumeKeepsSlowDown() {
        var current = state(interval: 10)
        #expect(
            PollScheduler.resume(current, lastContact: .seconds(5), notBefore: .seconds(15), now: .seconds(5))
                == .poll(after: .seconds(10)))
        #expect(PollScheduler.decide(&current, outcome: .pending, now: .seconds(15)) == .poll(after: .seconds(10)))
        #expect(
            PollScheduler.decide(&current, outcome: .slowDown(serverInterval: nil), now: .seconds(25))
                == .poll(after: .seconds(15)))
    }
}
