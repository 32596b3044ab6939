import Foundation
import Testing

@testable import DeviceLogin

@Suite("PollScheduler and PollOutcome: use_dpop_nonce on a poll (RFC 9449 §8)")
struct PollSchedulerDPoPNonceTests {
    private let nonceError = OAuthError(code: .useDPoPNonce)

    /// One step of a table: what the poll came to, when, and what must follow.
    struct Step: Sendable, CustomTestStringConvertible {
        var outcome: PollOutcome
        var at: Int
        var expected: PollScheduler.Decision
        var testDescription: String { "\(outcome) at \(at) s" }
    }

    private static let nonce = PollOutcome.useDPoPNonce(OAuthError(code: .useDPoPNonce))
    private static let failure = PollScheduler.Decision.fail(
        DeviceLoginError(.oauth, "the server refused the token request: use_dpop_nonce"))

    @Test(
        "retry now with the nonce, once in a row; the interval and slow_down's growth stay as they are",
        arguments: [
            // A nonce error, the retry at once, then the interval from the retry.
            [
                Step(outcome: nonce, at: 5, expected: .poll(after: .zero)),
                Step(outcome: .pending, at: 5, expected: .poll(after: .seconds(5))),
                Step(outcome: nonce, at: 10, expected: .poll(after: .zero)),
                Step(outcome: .pending, at: 10, expected: .poll(after: .seconds(5))),
            ],
            // Refused again right after the retry: the nonce did not help; stop.
            [
                Step(outcome: nonce, at: 5, expected: .poll(after: .zero)),
                Step(outcome: nonce, at: 5, expected: failure),
            ],
            // slow_down's +5 s holds across a nonce retry.
            [
                Step(outcome: .slowDown(serverInterval: nil), at: 5, expected: .poll(after: .seconds(10))),
                Step(outcome: nonce, at: 15, expected: .poll(after: .zero)),
                Step(outcome: .pending, at: 15, expected: .poll(after: .seconds(10))),
            ],
            // A transient failure, then a nonce error: retried at once, and backoff starts over after an answer.
            [
                Step(
                    outcome: .transient(reason: "x", retryAfterSeconds: nil), at: 5,
                    expected: .poll(after: .seconds(10))),
                Step(outcome: nonce, at: 15, expected: .poll(after: .zero)),
                Step(outcome: .pending, at: 15, expected: .poll(after: .seconds(5))),
            ],
            // At the deadline the retry is no poll either: the code has expired.
            [Step(outcome: nonce, at: 600, expected: .expire(after: .zero))],
            [Step(outcome: nonce, at: 599, expected: .poll(after: .zero))],
        ])
    func nonceRetries(steps: [Step]) {
        var state = PollScheduler.State(interval: .seconds(5), deadline: .seconds(600))
        for step in steps {
            let decision = PollScheduler.decide(&state, outcome: step.outcome, now: .seconds(step.at))
            #expect(decision == step.expected, "\(step.testDescription)")
            if case .fail(let error) = decision { #expect(error.oauthError?.code == .useDPoPNonce) }
        }
    }

    @Test("the flag: set by a nonce retry, cleared by any other outcome")
    func flag() {
        var state = PollScheduler.State(interval: .seconds(5), deadline: .seconds(600))
        _ = PollScheduler.decide(&state, outcome: Self.nonce, now: .seconds(5))
        #expect(state.retriedForNonce)
        #expect(state.interval == .seconds(5))
        _ = PollScheduler.decide(&state, outcome: .pending, now: .seconds(5))
        #expect(!state.retriedForNonce)
    }

    @Test("PollOutcome: use_dpop_nonce with a well-formed DPoP-Nonce is a retry; without one, a final error")
    func outcome() {
        func response(_ headers: [HTTPHeader]) -> HTTPResponse {
            HTTPResponse(
                status: 400, headers: [HTTPHeader("Content-Type", "application/json")] + headers,
                body: Data(
                    #"{"error":"use_dpop_nonce","error_description":"Authorization server requires nonce"}"#.utf8))
        }
        guard case .useDPoPNonce(let error) = PollOutcome(response([HTTPHeader("DPoP-Nonce", "eyJ7S_zG.eyJH0-Z")]))
        else {
            Issue.record("not a nonce retry")
            return
        }
        #expect(error.code == .useDPoPNonce)
        for headers in [[], [HTTPHeader("DPoP-Nonce", "with space")]] {
            guard case .oauthError(let final) = PollOutcome(response(headers)) else {
                Issue.record("a nonce error without a usable nonce is not final")
                continue
            }
            #expect(final.code == .useDPoPNonce)
        }
    }
}
