import DeviceLogin
import DeviceLoginTesting
import Foundation
import Testing

@Suite("MockAuthorizationServer: polling rules and scripts")
struct MockAuthorizationServerTests {
    let clock = ManualClock()

    func makeServer(
        _ configuration: MockAuthorizationServer.Configuration = .init()
    ) -> (MockAuthorizationServer, Wire) {
        let wire = Wire(configuration, clock: clock)
        return (wire.server, wire)
    }

    // MARK: - RFC 8628 enforcement

    @Test("a poll sooner than the interval gets slow_down and adds 5 s for that code, at exact virtual times")
    func slowDownOnEarlyPolls() async throws {
        let (server, wire) = makeServer()
        let code = try await wire.authorize().deviceCode
        let steps: [(advance: Int, answer: OAuthError.Code)] = [
            (5, .authorizationPending), // 5 s: first poll
            (3, .slowDown), // 8 s: 3 s after the last, interval 5 → 10
            (10, .authorizationPending), // 18 s: 10 s, as required
            (9, .slowDown), // 27 s: 9 s < 10 → 15
            (15, .authorizationPending), // 42 s
        ]
        for step in steps {
            clock.advance(by: .seconds(step.advance))
            #expect(try await wire.pollError(code) == step.answer)
        }
        #expect(server.pollTimes(deviceCode: code) == [5, 8, 18, 27, 42].map { Duration.seconds($0) })
        #expect(server.polls(deviceCode: code).map(\.pollNumber) == [1, 2, 3, 4, 5])
        #expect(server.authorization(deviceCode: code)?.interval == .seconds(15))
        #expect(
            server.violations.map(\.kind) == [
                .pollTooSoon(sincePrevious: .seconds(3), interval: .seconds(5)),
                .pollTooSoon(sincePrevious: .seconds(9), interval: .seconds(10)),
            ])
        #expect(server.rfcViolations == 2)
        #expect(server.violations.first?.description.contains("poll 2") == true)
    }

    @Test("the interval grows per device code, not for the whole server")
    func intervalIsPerCode() async throws {
        let (server, wire) = makeServer()
        let first = try await wire.authorize().deviceCode
        let second = try await wire.authorize().deviceCode
        clock.advance(by: .seconds(5))
        _ = try await wire.pollError(first)
        _ = try await wire.pollError(second)
        clock.advance(by: .seconds(1))
        #expect(try await wire.pollError(first) == .slowDown)
        #expect(server.authorization(deviceCode: first)?.interval == .seconds(10))
        #expect(server.authorization(deviceCode: second)?.interval == .seconds(5))
    }

    @Test("without an interval, or with 0, the RFC default of 5 s is enforced")
    func missingIntervalEnforcesFive() async throws {
        for interval in [nil, 0] as [Int?] {
            let (server, wire) = makeServer(.init(interval: interval))
            let authorization = try await wire.authorize()
            #expect(authorization.interval == interval)
            clock.advance(by: .seconds(5))
            #expect(try await wire.pollError(authorization.deviceCode) == .authorizationPending)
            clock.advance(by: .seconds(4))
            #expect(try await wire.pollError(authorization.deviceCode) == .slowDown)
            clock.advance(by: .seconds(10))
            #expect(try await wire.pollError(authorization.deviceCode) == .authorizationPending)
            #expect(server.rfcViolations == 1)
        }
    }

    @Test("after expires_in the code answers expired_token, and every poll from then on is a violation")
    func expiry() async throws {
        let (server, wire) = makeServer(.init(deviceCodeLifetime: 30))
        let code = try await wire.authorize().deviceCode
        clock.advance(by: .seconds(25))
        #expect(try await wire.pollError(code) == .authorizationPending)
        #expect(server.authorization(deviceCode: code)?.status == .pending)
        clock.advance(by: .seconds(5))
        #expect(try await wire.pollError(code) == .expiredToken)
        clock.advance(by: .seconds(5))
        #expect(try await wire.pollError(code) == .expiredToken)
        #expect(server.authorization(deviceCode: code)?.status == .expired)
        #expect(server.violations.map(\.kind) == [.pollAfterExpiry, .pollAfterExpiry])
        #expect(server.violations.map(\.time) == [.seconds(30), .seconds(35)])
        #expect(server.approve(deviceCode: code) == false)
    }

    @Test("expire(deviceCode:) ends a code at once; only polls after the expired_token answer are violations")
    func forcedExpiry() async throws {
        let (server, wire) = makeServer()
        let code = try await wire.authorize().deviceCode
        #expect(server.expire(deviceCode: code))
        #expect(server.expire(deviceCode: "no-such-code") == false)
        clock.advance(by: .seconds(5))
        #expect(try await wire.pollError(code) == .expiredToken)
        #expect(server.rfcViolations == 0)
        clock.advance(by: .seconds(5))
        #expect(try await wire.pollError(code) == .expiredToken)
        #expect(server.violations.map(\.kind) == [.pollAfterExpiry])
    }

    @Test("an unknown device code gets invalid_grant and is not counted as a poll")
    func unknownCode() async throws {
        let (server, wire) = makeServer()
        #expect(try await wire.pollError("not-a-code") == .invalidGrant)
        let record = try #require(server.requests.last)
        #expect(record.pollNumber == nil)
        #expect(record.answer == .oauthError(.invalidGrant, status: 400))
    }

    @Test("an approved code issues one token, then it is consumed and answers invalid_grant")
    func consumption() async throws {
        let (server, wire) = makeServer()
        let code = try await wire.authorize(scopes: ["openid"]).deviceCode
        #expect(server.approve(deviceCode: code))
        #expect(server.authorization(deviceCode: code)?.status == .approved)
        clock.advance(by: .seconds(5))
        let token = try await wire.pollToken(code)
        #expect(server.isValid(accessToken: token.accessToken))
        #expect(server.authorization(deviceCode: code)?.status == .consumed)
        clock.advance(by: .seconds(5))
        #expect(try await wire.pollError(code) == .invalidGrant)
        #expect(server.approve(deviceCode: code) == false)
    }

    @Test("a code issued to one client cannot be polled by another")
    func codeBelongsToItsClient() async throws {
        var configuration = MockAuthorizationServer.Configuration()
        configuration.clients.append(.init(id: "other-client"))
        let (server, wire) = makeServer(configuration)
        let code = try await wire.authorize().deviceCode
        server.approve(deviceCode: code)
        var other = wire
        other.client = ClientConfiguration(clientID: "other-client")
        #expect(try await other.pollError(code) == .invalidGrant)
        #expect(try await wire.pollToken(code).accessToken.isEmpty == false)
    }

    @Test("a poll while another poll for the same code awaits its answer is an overlapping poll")
    func overlappingPolls() async throws {
        let (server, wire) = makeServer(.init(defaultScript: Script.pending.with(.delay(.seconds(2)), atPoll: 1)))
        let code = try await wire.authorize().deviceCode
        clock.advance(by: .seconds(5))
        async let slow = wire.pollError(code)
        await clock.sleepers(atLeast: 1)
        #expect(try await wire.pollError(code) == .slowDown)
        clock.advance(by: .seconds(2))
        #expect(try await slow == .authorizationPending)
        #expect(
            server.violations.map(\.kind) == [
                .overlappingPoll, .pollTooSoon(sincePrevious: .zero, interval: .seconds(5)),
            ])
        #expect(server.polls(deviceCode: code).first?.delay == .seconds(2))
        // The delayed poll has been delivered: a later poll does not overlap.
        clock.advance(by: .seconds(10))
        _ = try await wire.pollError(code)
        #expect(server.rfcViolations == 2)
    }

    // MARK: - Scripts

    typealias Script = MockAuthorizationServer.Script

    @Test(
        "scripted decisions, polling every 5 s",
        arguments: [
            (Script.approve(afterPolls: 2), [.authorizationPending, .authorizationPending, nil]),
            (Script.approve(after: .seconds(12)), [.authorizationPending, .authorizationPending, nil]),
            (Script.deny(afterPolls: 1), [.authorizationPending, .accessDenied, .accessDenied]),
            (Script.approveImmediately, [nil, .invalidGrant, .invalidGrant]),
            (Script.pending, [.authorizationPending, .authorizationPending, .authorizationPending]),
        ] as [(Script, [OAuthError.Code?])])
    func scriptedDecisions(script: Script, expected: [OAuthError.Code?]) async throws {
        let (server, wire) = makeServer(.init(defaultScript: script))
        let code = try await wire.authorize().deviceCode
        var answers: [OAuthError.Code?] = []
        for _ in expected {
            clock.advance(by: .seconds(5))
            answers.append(try await wire.pollError(code))
        }
        #expect(answers == expected)
        #expect(server.pollTimes(deviceCode: code) == [.seconds(5), .seconds(10), .seconds(15)])
        #expect(server.rfcViolations == 0)
    }

    @Test("a script set for one code replaces the default; a new default applies to codes issued later")
    func perCodeScripts() async throws {
        let (server, wire) = makeServer()
        let first = try await wire.authorize().deviceCode
        server.script(deviceCode: first, .approveImmediately)
        server.configure { $0.defaultScript = .deny(afterPolls: 0) }
        let second = try await wire.authorize().deviceCode
        clock.advance(by: .seconds(5))
        #expect(try await wire.pollError(first) == nil)
        #expect(try await wire.pollError(second) == .accessDenied)
    }

    @Test("approve and deny by user code ignore case, dashes and spaces")
    func decideByUserCode() async throws {
        let (server, wire) = makeServer()
        let authorization = try await wire.authorize()
        let typed = authorization.userCode.lowercased().replacingOccurrences(of: "-", with: " ")
        #expect(server.authorization(userCode: typed)?.deviceCode == authorization.deviceCode)
        #expect(server.approve(userCode: typed))
        #expect(server.deny(userCode: authorization.userCode) == false)
        #expect(server.approve(userCode: "AAAA-AAAA") == false)
        let denied = try await wire.authorize()
        #expect(server.deny(userCode: denied.userCode))
        clock.advance(by: .seconds(5))
        #expect(try await wire.pollError(authorization.deviceCode) == nil)
        #expect(try await wire.pollError(denied.deviceCode) == .accessDenied)
    }

    @Test("faults replace the answer of their poll; a scripted slow_down adds 5 s without a violation")
    func pollFaults() async throws {
        let script = Script.approve(afterPolls: 5)
            .with(.httpError(status: 503, retryAfter: 10), atPoll: 1)
            .with(.httpError(status: 429), atPoll: 2)
            .with(.malformedJSON, atPoll: 3)
            .with(.slowDown, atPoll: 4)
            .with(.oversizedBody(bytes: 1000), atPoll: 5)
        let (server, wire) = makeServer(.init(defaultScript: script))
        let code = try await wire.authorize().deviceCode

        clock.advance(by: .seconds(5))
        let unavailable = try await wire.poll(code)
        #expect(unavailable.status == 503)
        #expect(unavailable.header("Retry-After") == "10")
        #expect(unavailable.retryAfterSeconds == 10)

        clock.advance(by: .seconds(5))
        let tooMany = try await wire.poll(code)
        #expect(tooMany.status == 429)
        #expect(tooMany.header("Retry-After") == nil)

        clock.advance(by: .seconds(5))
        let malformed = try await wire.poll(code)
        #expect(malformed.status == 200)
        #expect(malformed.mediaType == "application/json")
        #expect(throws: (any Error).self) { try JSONDecoder().decode(JSONObject.self, from: malformed.body) }

        clock.advance(by: .seconds(5))
        #expect(errorCode(try await wire.poll(code)) == .slowDown)
        #expect(server.authorization(deviceCode: code)?.interval == .seconds(10))

        clock.advance(by: .seconds(10))
        let oversized = try await wire.poll(code)
        #expect(oversized.body.count == 1000)
        #expect(try jsonObject(oversized)["padding"] != nil)

        clock.advance(by: .seconds(10))
        #expect(try await wire.pollError(code) == nil)
        #expect(
            server.polls(deviceCode: code).map(\.answer) == [
                .httpError(status: 503), .httpError(status: 429), .malformedBody,
                .oauthError(.slowDown, status: 400), .oversizedBody(bytes: 1000), .success(status: 200),
            ])
        #expect(server.rfcViolations == 0)
    }

    @Test("the default oversized body is 10 MiB")
    func tenMegabyteBody() async throws {
        let (_, wire) = makeServer(.init(defaultScript: Script.pending.with(.oversizedBody(), atPoll: 1)))
        let code = try await wire.authorize().deviceCode
        clock.advance(by: .seconds(5))
        #expect(try await wire.poll(code).body.count == 10 << 20)
    }

    @Test("a dropped connection is a directive, not a response")
    func droppedConnection() async throws {
        let (server, wire) = makeServer(.init(defaultScript: Script.pending.with(.dropConnection, atPoll: 1)))
        let code = try await wire.authorize().deviceCode
        clock.advance(by: .seconds(5))
        let request = wire.client.formRequest(
            to: try wire.url("/token"), parameters: DeviceAccessTokenRequest(deviceCode: code).formParameters
        )
        #expect(await server.handle(request) == .dropConnection)
        #expect(server.polls(deviceCode: code).map(\.answer) == [.droppedConnection])
        clock.advance(by: .seconds(5))
        #expect(try await wire.pollError(code) == .authorizationPending)
    }

    @Test("a configured response delay holds every answer back on the server's clock")
    func responseDelay() async throws {
        let (server, wire) = makeServer(.init(responseDelay: .seconds(1)))
        async let metadata = wire.get("/.well-known/openid-configuration")
        await clock.sleepers(atLeast: 1)
        #expect(server.requests.first?.delay == .seconds(1))
        clock.advance(by: .seconds(1))
        #expect(try await metadata.status == 200)
    }
}
