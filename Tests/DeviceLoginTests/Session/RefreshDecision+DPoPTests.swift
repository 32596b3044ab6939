import Foundation
import Testing

@testable import DeviceLogin

@Suite("RefreshDecision+DPoP: the token type of a refresh, and proof errors that leave the session")
struct RefreshDecisionDPoPTests {
    static let grant = RefreshDecisionTests.grant
    static let received = RefreshDecisionTests.received

    /// The decision for a refresh answered with `body` (HTTP `status`), with RFC 9449's rules applied.
    static func decide(
        _ body: String, status: Int = 200, resource: String? = nil, proven: Bool
    ) -> RefreshDecision {
        let response = HTTPResponse(
            status: status, headers: [HTTPHeader("Content-Type", "application/json")], body: Data(body.utf8))
        let decision = RefreshDecision.decide(
            reply: ServerReply(response), current: RefreshDecisionTests.current, resource: resource, grant: grant,
            receivedAt: received)
        return RefreshDecision.requiringDPoP(decision, resource: resource, provenWithDPoP: proven)
    }

    @Test(
        "new tokens must be DPoP after a proven refresh, and may not be DPoP after one without a proof",
        arguments: [
            ("DPoP", nil as String?, true, RefreshDecisionTests.Kind.store),
            ("Bearer", nil, true, .reject),
            ("DPoP", nil, false, .reject),
            ("Bearer", nil, false, .store),
            ("DPoP", Fixtures.api, true, .store),
            ("Bearer", Fixtures.api, true, .reject),
        ])
    func tokenType(type: String, resource: String?, proven: Bool, expected: RefreshDecisionTests.Kind) {
        let body = #"{"access_token":"AT-2","token_type":"\#(type)","expires_in":3600}"#
        let decision = Self.decide(body, resource: resource, proven: proven)
        #expect(RefreshDecisionTests.kind(decision) == expected)
        if expected == .reject { #expect(RefreshDecisionTests.error(decision)?.code == .invalidResponse) }
    }

    @Test(
        "invalid_dpop_proof and use_dpop_nonce refuse the proof, not the grant: the session goes on",
        arguments: [
            ("invalid_dpop_proof", RefreshDecisionTests.Kind.refuse), ("use_dpop_nonce", .refuse),
            ("invalid_grant", .endSession),
        ])
    func proofErrors(code: String, expected: RefreshDecisionTests.Kind) {
        for proven in [true, false] {
            let decision = Self.decide(#"{"error":"\#(code)"}"#, status: 400, proven: proven)
            #expect(RefreshDecisionTests.kind(decision) == expected, "\(code), proven: \(proven)")
            #expect(RefreshDecisionTests.error(decision)?.oauthError?.code.rawValue == code)
        }
    }
}
