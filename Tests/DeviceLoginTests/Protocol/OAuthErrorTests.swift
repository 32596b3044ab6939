import Foundation
import Testing

@testable import DeviceLogin

@Suite("OAuthError (RFC 6749 §5.2, RFC 8628 §3.5)")
struct OAuthErrorTests {
    private static func error(_ json: String) throws -> OAuthError? {
        let data = Data(json.utf8)
        return OAuthError(jsonObject: try JSONValue.decodeObject(from: data), httpStatus: 400, body: data)
    }

    // Issue 17: an interval sent with slow_down above 10^15 was unreadable, so the flow added only 5 s.
    @Test(
        "slow_down's interval is read as the polling interval is: above the cap is the cap, fractions round up",
        arguments: [
            ("10", 10), ("2.5", 3), ("3600.5", 3600), ("1e15", 3600), (#""1e300""#, 3600), (#""soon""#, nil),
        ] as [(String, Int?)])
    func slowDownInterval(interval: String, expected: Int?) throws {
        let error = try Self.error(#"{"error":"slow_down","interval":"# + interval + "}")
        #expect(error?.interval == expected)
    }
}
