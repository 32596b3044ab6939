import DeviceLogin
import DeviceLoginTesting
import Foundation
import Testing

@Suite("MockAuthorizationServer: request records")
struct MockAuthorizationServerRecordTests {
    typealias Configuration = MockAuthorizationServer.Configuration

    let clock = ManualClock()

    func makeWire(_ configuration: Configuration = .init()) -> Wire {
        Wire(configuration, clock: clock)
    }

    @Test("a full record keeps the time, method, path, headers, form fields and answer")
    func fullRecord() async throws {
        let wire = makeWire()
        clock.advance(by: .seconds(2))
        let code = try await wire.authorize(scopes: ["openid"]).deviceCode
        clock.advance(by: .seconds(5))
        _ = try await wire.poll(code)

        let records = wire.server.requests
        #expect(records.count == 2)
        let authorization = records[0]
        #expect(authorization.time == .seconds(2))
        #expect(authorization.method == .post)
        #expect(authorization.path == "/device/code")
        #expect(authorization.endpoint == .deviceAuthorization)
        #expect(authorization.formFields.map(\.name) == ["scope", "client_id"])
        #expect(authorization.formValue("scope") == "openid")
        #expect(authorization.headers.contains(HTTPHeader("Content-Type", "application/x-www-form-urlencoded")))
        #expect(authorization.deviceCode == code)
        #expect(authorization.isPoll == false)
        #expect(authorization.answer == .success(status: 200))

        let poll = records[1]
        #expect(poll.time == .seconds(7))
        #expect(poll.grantType == DeviceAccessTokenRequest.grantType)
        #expect(poll.isPoll)
        #expect(poll.pollNumber == 1)
        #expect(poll.answer.errorCode == .authorizationPending)
        #expect(wire.server.requests(to: .token) == [poll])
        #expect(wire.server.requests(to: .revocation).isEmpty)
    }

    @Test("a summary record leaves out headers and form fields but keeps polls queryable")
    func summaryRecord() async throws {
        let wire = makeWire(.init(recording: .summary))
        let code = try await wire.authorize().deviceCode
        clock.advance(by: .seconds(5))
        _ = try await wire.poll(code)
        let poll = try #require(wire.server.requests.last)
        #expect(poll.headers.isEmpty)
        #expect(poll.formFields.isEmpty)
        #expect(poll.deviceCode == code)
        #expect(wire.server.pollTimes(deviceCode: code) == [.seconds(5)])
    }

    @Test("with recording off, counters and violations are still kept")
    func recordingOff() async throws {
        let wire = makeWire(.init(recording: .off))
        let token = try await wire.signIn()
        _ = try await wire.refresh(try #require(token.refreshToken))
        let code = try await wire.authorize().deviceCode
        _ = try await wire.poll(code)
        _ = try await wire.poll(code)
        #expect(wire.server.requests.isEmpty)
        #expect(wire.server.refreshRequestCount == 1)
        #expect(wire.server.deviceAuthorizationRequestCount == 2)
        #expect(wire.server.rfcViolations == 1)
    }

    @Test("records stop at the configured maximum and the rest are counted")
    func recordLimit() async throws {
        let wire = makeWire(.init(maximumRecords: 2))
        for _ in 0..<5 { _ = try await wire.get("/.well-known/openid-configuration") }
        #expect(wire.server.requests.count == 2)
        #expect(wire.server.droppedRecordCount == 3)
    }

    @Test("authorizations lists every issued code in order, as it stands")
    func authorizations() async throws {
        let wire = makeWire()
        let first = try await wire.authorize(scopes: ["openid"])
        let second = try await wire.authorize()
        wire.server.deny(deviceCode: second.deviceCode)
        let listed = wire.server.authorizations
        #expect(listed.map(\.deviceCode) == [first.deviceCode, second.deviceCode])
        #expect(listed.map(\.status) == [.pending, .denied])
        #expect(listed.first?.expiresAt == .seconds(600))
        #expect(wire.server.lastAuthorization?.userCode == second.userCode)
    }

    @Test("a violation describes itself without the device code")
    func violationDescription() async throws {
        let wire = makeWire()
        let authorization = try await wire.authorize()
        _ = try await wire.poll(authorization.deviceCode)
        clock.advance(by: .seconds(1))
        _ = try await wire.poll(authorization.deviceCode)
        let violation = try #require(wire.server.violations.first)
        #expect(
            violation.description
                == "poll 2 for \(authorization.userCode) at 1.0 seconds: polled 1.0 seconds after the previous poll "
                + "while the interval was 5.0 seconds")
        #expect(violation.description.contains(authorization.deviceCode) == false)
    }
}
