import DeviceLoginTesting
import Foundation
import Testing

@testable import DeviceLogin

/// Records the events a flow reports, in order.
final class FlowEventLog: Sendable {
    private let storage = Locked<[DeviceFlowEvent]>([])
    func append(_ event: DeviceFlowEvent) { storage.withLock { $0.append(event) } }
    var events: [DeviceFlowEvent] { storage.withLock { $0 } }
}

/// A mock server, a manual clock and a flow wired together, with helpers to run in virtual time.
struct FlowHarness {
    let clock = ManualClock()
    let server: MockAuthorizationServer
    let flow: DeviceFlow

    init(
        script: MockAuthorizationServer.Script = .approve(afterPolls: 2),
        configure: (inout MockAuthorizationServer.Configuration) -> Void = { _ in },
        client: ClientConfiguration = ClientConfiguration(
            clientID: MockAuthorizationServer.Configuration.defaultClientID
        )
    ) throws {
        var configuration = MockAuthorizationServer.Configuration(defaultScript: script)
        configure(&configuration)
        server = MockAuthorizationServer(configuration: configuration, clock: clock)
        flow = DeviceFlow(
            endpoints: try server.endpoints(), client: client, transport: InProcessTransport(server: server),
            clock: clock, now: { Date(timeIntervalSince1970: 1_800_000_000) }
        )
    }

    /// Runs the whole flow in virtual time; returns the result and the events.
    func run() async -> (result: Result<TokenResponse, any Error>, events: [DeviceFlowEvent]) {
        let log = FlowEventLog()
        let flow = self.flow
        do {
            let token = try await clock.withAutoAdvance { try await flow.run { log.append($0) } }
            return (.success(token), log.events)
        } catch {
            return (.failure(error), log.events)
        }
    }

    /// The poll times of the one device code issued.
    var pollTimes: [Duration] {
        guard let code = server.lastAuthorization?.deviceCode else { return [] }
        return server.pollTimes(deviceCode: code)
    }
}

private func code(of result: Result<TokenResponse, any Error>) -> DeviceLoginError.Code? {
    guard case .failure(let error) = result else { return nil }
    return (error as? DeviceLoginError)?.code
}

@Suite("DeviceFlow: RFC 8628 schedules in virtual time")
struct DeviceFlowTests {
    @Test("pending at 5 s, slow_down at 10 s, pending at 20 s, token at 30 s")
    func slowDownSchedule() async throws {
        let harness = try FlowHarness(script: .approve(afterPolls: 3).with(.slowDown, atPoll: 2))
        let (result, events) = await harness.run()
        _ = try result.get()
        #expect(harness.pollTimes == [.seconds(5), .seconds(10), .seconds(20), .seconds(30)])
        #expect(harness.server.rfcViolations == 0)
        #expect(harness.clock.elapsed == .seconds(30))
        let expected: [DeviceFlowEvent] = [
            .polling(attempt: 1, elapsed: .seconds(5)), .pending(attempt: 1),
            .polling(attempt: 2, elapsed: .seconds(10)), .slowDown(attempt: 2, newInterval: .seconds(10)),
            .intervalChanged(from: .seconds(5), to: .seconds(10)),
            .polling(attempt: 3, elapsed: .seconds(20)), .pending(attempt: 3),
            .polling(attempt: 4, elapsed: .seconds(30)), .succeeded,
        ]
        #expect(Array(events.dropFirst()) == expected)
        guard case .authorizationReceived(let authorization) = events.first else {
            Issue.record("the first event must be the authorization")
            return
        }
        #expect(authorization.receivedAtElapsed == .zero)
        #expect(authorization.expiresAt == Date(timeIntervalSince1970: 1_800_000_600))
    }

    @Test("two slow_downs: +5 s each time, for every later poll")
    func twoSlowDowns() async throws {
        let harness = try FlowHarness(
            script: .approve(afterPolls: 4).with(.slowDown, atPoll: 1).with(.slowDown, atPoll: 3)
        )
        _ = try await harness.run().result.get()
        #expect(harness.pollTimes == [.seconds(5), .seconds(15), .seconds(25), .seconds(40), .seconds(55)])
        #expect(harness.server.rfcViolations == 0)
    }

    @Test("a denial stops at once with access_denied")
    func denied() async throws {
        let harness = try FlowHarness(script: .deny(afterPolls: 1))
        let (result, events) = await harness.run()
        #expect(code(of: result) == .accessDenied)
        #expect(harness.pollTimes == [.seconds(5), .seconds(10)])
        #expect(events.last == .failed(DeviceLoginError(.accessDenied, "")))
    }

    @Test("the local deadline: no poll at or after expires_in; the error comes at the deadline")
    func localExpiry() async throws {
        let harness = try FlowHarness(script: .pending) { $0.deviceCodeLifetime = 30 }
        let (result, _) = await harness.run()
        #expect(code(of: result) == .expired)
        #expect(harness.pollTimes == [.seconds(5), .seconds(10), .seconds(15), .seconds(20), .seconds(25)])
        #expect(harness.clock.elapsed == .seconds(30))
    }

    @Test("expired_token from the server stops the flow")
    func serverExpiry() async throws {
        let harness = try FlowHarness(
            script: MockAuthorizationServer.Script.pending
                .with(.oauthError(.expiredToken), atPoll: 2))
        let (result, _) = await harness.run()
        #expect(code(of: result) == .expired)
        #expect(harness.pollTimes.count == 2)
    }

    @Test("another OAuth error is final and named")
    func otherOAuthError() async throws {
        let harness = try FlowHarness(
            script: MockAuthorizationServer.Script.pending
                .with(.oauthError(.invalidClient, status: 401), atPoll: 1))
        let (result, _) = await harness.run()
        guard case .failure(let error as DeviceLoginError) = result else {
            Issue.record("expected a DeviceLoginError")
            return
        }
        #expect(error.code == .oauth)
        #expect(error.oauthError?.code == .invalidClient)
        #expect(error.message.contains("invalid_client"))
    }

    // Issue 17: a server that repeated the device code or the client secret in its error had it printed.
    @Test(
        "a server that echoes the device code and the client secret in its error: neither survives into the error",
        arguments: [
            ClientAuthentication.clientSecretPost(secret: "post-secret-\(UUID().uuidString)"),
            .clientSecretBasic(secret: "basic-secret-\(UUID().uuidString)"),
        ])
    func echoedSecretsAreRedacted(authentication: ClientAuthentication) async throws {
        let client = ClientConfiguration(clientID: "confidential", authentication: authentication)
        let harness = try FlowHarness(
            script: MockAuthorizationServer.Script.pending.with(.echoingCredentials(.invalidClient), atPoll: 1),
            configure: { $0.clients = [.init(id: "confidential", authentication: authentication)] },
            client: client)
        let (result, _) = await harness.run()
        guard case .failure(let error as DeviceLoginError) = result, let oauthError = error.oauthError else {
            Issue.record("expected a DeviceLoginError with the server's error, got \(result)")
            return
        }
        let deviceCode = try #require(harness.server.lastAuthorization?.deviceCode)
        let secret = try #require(authentication.secret)
        let shown = [
            error.message, error.description, oauthError.summary, oauthError.uri ?? "", oauthError.body,
            "\(oauthError.additionalFields)",
        ]
        for text in shown {
            #expect(!text.contains(deviceCode) && !text.contains(secret), "\(text)")
        }
        #expect(oauthError.description?.contains("[redacted, \(deviceCode.count) chars]") == true)
        #expect(oauthError.description?.contains("[redacted, \(secret.count) chars]") == true)
        #expect(error.message.contains("[redacted, "))
        // The events' failed line too.
        let line = FlowEventEncoder().failedLine(error, context: FlowEventContext(at: Date(), exitCode: 76))
        #expect(!line.contains(deviceCode) && !line.contains(secret) && line.contains("[redacted, "), "\(line)")
    }

    @Test("503 with Retry-After: wait the longer of it and the backoff, then carry on")
    func retryAfter() async throws {
        let harness = try FlowHarness(
            script: MockAuthorizationServer.Script.approve(afterPolls: 2)
                .with(.httpError(status: 503, retryAfter: 30), atPoll: 2))
        let (result, events) = await harness.run()
        _ = try result.get()
        #expect(harness.pollTimes == [.seconds(5), .seconds(10), .seconds(40)])
        #expect(events.contains(.retrying(attempt: 2, delay: .seconds(30), reason: "the server answered HTTP 503")))
    }

    @Test("dropped connections back off exponentially from the interval, then reset")
    func droppedConnections() async throws {
        let harness = try FlowHarness(
            script: MockAuthorizationServer.Script.approve(afterPolls: 4)
                .with(.dropConnection, atPoll: 1).with(.dropConnection, atPoll: 2).with(.dropConnection, atPoll: 3))
        _ = try await harness.run().result.get()
        // 5; +10 (1 failure); +20 (2); +40 (3); then +5 after an answer... poll 4 is pending, poll 5 the token.
        #expect(harness.pollTimes == [.seconds(5), .seconds(15), .seconds(35), .seconds(75), .seconds(80)])
        #expect(harness.server.rfcViolations == 0)
    }

    @Test("429 is transient too")
    func tooManyRequests() async throws {
        let harness = try FlowHarness(
            script: MockAuthorizationServer.Script.approve(afterPolls: 1)
                .with(.httpError(status: 429), atPoll: 1))
        _ = try await harness.run().result.get()
        #expect(harness.pollTimes == [.seconds(5), .seconds(15)])
    }

    @Test("a malformed answer is final")
    func malformed() async throws {
        let harness = try FlowHarness(script: MockAuthorizationServer.Script.pending.with(.malformedJSON, atPoll: 1))
        #expect(code(of: await harness.run().result) == .invalidResponse)
    }

    @Test("interval missing or 0: 5 s (RFC 8628 §3.2)", arguments: [nil, 0] as [Int?])
    func defaultInterval(interval: Int?) async throws {
        let harness = try FlowHarness(script: .approve(afterPolls: 1)) { $0.interval = interval }
        _ = try await harness.run().result.get()
        #expect(harness.pollTimes == [.seconds(5), .seconds(10)])
        #expect(harness.server.rfcViolations == 0)
    }

    @Test(
        "provider dialects complete a sign-in",
        arguments: [
            MockAuthorizationServer.Dialect.standard, .github, .google, .microsoft,
        ])
    func dialects(dialect: MockAuthorizationServer.Dialect) async throws {
        let harness = try FlowHarness(
            script: MockAuthorizationServer.Script.approve(afterPolls: 2)
                .with(.slowDown, atPoll: 1)
        ) { $0.dialect = dialect }
        let token = try await harness.run().result.get()
        #expect(!token.accessToken.isEmpty)
        #expect(harness.server.rfcViolations == 0)
        #expect(harness.pollTimes.first == .seconds(5))
        #expect(harness.pollTimes.count == 3)
    }

    @Test("every request asks for JSON and carries the client ID")
    func requestShape() async throws {
        let harness = try FlowHarness(script: .approve(afterPolls: 0))
        _ = try await harness.run().result.get()
        for request in harness.server.requests
        where request.endpoint == .deviceAuthorization || request.endpoint == .token {
            #expect(request.headers.contains { $0.name.lowercased() == "accept" && $0.value == "application/json" })
            #expect(request.formValue("client_id") == MockAuthorizationServer.Configuration.defaultClientID)
        }
    }

    @Test("cancelling the task stops the flow at once: CancellationError and no further request")
    func cancellation() async throws {
        let harness = try FlowHarness(script: .pending)
        let flow = harness.flow
        let task = Task { try await flow.run() }
        await harness.clock.sleepers(atLeast: 1)
        harness.clock.advance(by: .seconds(5))
        await harness.clock.sleepers(atLeast: 1)
        let requestsBefore = harness.server.requests.count
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        harness.clock.advance(by: .seconds(600))
        #expect(harness.server.requests.count == requestsBefore)
        #expect(harness.pollTimes == [.seconds(5)])
    }

    @Test("the device authorization request: errors with advice, HTTPS enforced")
    func authorizationErrors() async throws {
        let harness = try FlowHarness(
            client: ClientConfiguration(clientID: "unknown-client")
        )
        await #expect(throws: DeviceLoginError(.oauth, "")) { try await harness.flow.requestAuthorization() }
        do {
            _ = try await harness.flow.requestAuthorization()
        } catch let error as DeviceLoginError {
            #expect(error.hint?.contains("client ID") == true)
        }
        let insecure = DeviceFlow(
            endpoints: ServerEndpoints(
                deviceAuthorization: URL(string: "http://auth.example.com/device"),
                token: try #require(URL(string: "http://auth.example.com/token"))
            ),
            client: ClientConfiguration(clientID: "c"), transport: InProcessTransport(server: harness.server)
        )
        await #expect(throws: DeviceLoginError(.insecureEndpoint, "")) { try await insecure.requestAuthorization() }
        #expect(harness.server.deviceAuthorizationRequestCount == 2)
    }

    @Test("scopes: the OpenID default for an OpenID provider, resources sent on both requests")
    func scopesAndResources() async throws {
        let harness = try FlowHarness(
            script: .approve(afterPolls: 0),
            client: ClientConfiguration(
                clientID: MockAuthorizationServer.Configuration.defaultClientID,
                resources: ["https://api.example.test/"]
            )
        )
        _ = try await harness.run().result.get()
        let device = try #require(harness.server.requests(to: .deviceAuthorization).first)
        #expect(device.formValue("scope") == "openid profile offline_access")
        #expect(device.formValue("resource") == "https://api.example.test/")
        let poll = try #require(harness.server.requests(to: .token).first)
        #expect(poll.formValue("resource") == "https://api.example.test/")
        #expect(poll.formValue("grant_type") == DeviceAccessTokenRequest.grantType)
    }

    @Test("a server whose scopes_supported leaves out offline_access is not asked for it, and signs in")
    func defaultScopesFollowTheServer() async throws {
        let harness = try FlowHarness(script: .approve(afterPolls: 0)) {
            $0.supportedScopes = ["openid", "profile", "email"]
        }
        _ = try await harness.run().result.get()
        let device = try #require(harness.server.requests(to: .deviceAuthorization).first)
        #expect(device.formValue("scope") == "openid profile")
    }

    @Test("invalid_scope: the error names the scopes asked for and those the server lists, sanitised")
    func scopeRefusalNamesTheScopes() async throws {
        let harness = try FlowHarness(
            configure: { $0.supportedScopes = ["openid", "profile", "email"] },
            client: ClientConfiguration(
                clientID: MockAuthorizationServer.Configuration.defaultClientID, scopes: ["openid", "launch-codes"])
        )
        let error = try await #require(throws: DeviceLoginError.self) {
            try await harness.flow.requestAuthorization()
        }
        #expect(error.oauthError?.code == .invalidScope)
        #expect(error.message.hasSuffix("; asked for openid launch-codes; the server lists openid profile email"))
    }

    @Test("the refused scopes' facts: bounded, sanitised, and said when the server lists none")
    func scopeRefusalFacts() {
        #expect(
            DeviceFlow.scopeRefusalFacts(asked: ["openid"], supported: nil)
                == "asked for openid; the server's metadata lists no scopes")
        #expect(DeviceFlow.scopeRefusalFacts(asked: [], supported: []) == "asked for no scope; the server lists none")
        #expect(
            DeviceFlow.scopeRefusalFacts(asked: ["a"], supported: ["x\u{1B}[31my", "\u{202E}z"])
                == "asked for a; the server lists xy z")
        let many = DeviceFlow.scopeRefusalFacts(asked: ["a"], supported: Array(repeating: "scope", count: 10_000))
        #expect(many.unicodeScalars.count <= "asked for a; the server lists ".count + DeviceFlow.maximumScopeListLength)
    }

    @Test("resumed by another flow after slow_down: the grown interval kept, no early poll, token at 25 s")
    func resumedAcrossFlows() async throws {
        let harness = try FlowHarness(script: .approve(afterPolls: 2).with(.slowDown, atPoll: 1))
        let clock = harness.clock
        let wall: @Sendable () -> Date = { Date(timeIntervalSince1970: 1_800_000_000 + clock.elapsed.timeInterval) }
        let endpoints = try harness.server.endpoints()
        let client = ClientConfiguration(clientID: MockAuthorizationServer.Configuration.defaultClientID)
        let first = DeviceFlow(
            endpoints: endpoints, client: client, transport: InProcessTransport(server: harness.server),
            clock: clock, now: wall)
        let authorization = try await first.requestAuthorization()
        let progress = Locked(PollingProgress(authorization))
        // The first process ends right after the slow_down: its task is cancelled from inside the event.
        await #expect(throws: CancellationError.self) {
            _ = try await clock.withAutoAdvance {
                try await first.pollForToken(authorization) { event in
                    progress.withLock { $0.record(event, at: wall()) }
                    if case .slowDown = event { withUnsafeCurrentTask { $0?.cancel() } }
                }
            }
        }
        let saved = progress.withLock { $0 }
        #expect(
            saved == PollingProgress(interval: .seconds(10), attempts: 1, lastPollAt: wall(), notBefore: wall() + 10))
        clock.advance(by: .seconds(2))
        // Another flow, as another process would make, 2 s later.
        let second = DeviceFlow(
            endpoints: endpoints, client: client, transport: InProcessTransport(server: harness.server),
            clock: clock, now: wall)
        let log = FlowEventLog()
        let resumed = second.resuming(authorization, progress: saved)
        #expect(resumed.deadlineElapsed == .seconds(593))
        _ = try await clock.withAutoAdvance { try await second.pollForToken(resumed) { log.append($0) } }
        #expect(harness.pollTimes == [.seconds(5), .seconds(15), .seconds(25)])
        #expect(harness.server.rfcViolations == 0)
        #expect(
            log.events == [
                .polling(attempt: 2, elapsed: .seconds(8)), .pending(attempt: 2),
                .polling(attempt: 3, elapsed: .seconds(18)), .succeeded,
            ])
    }

    @Test("resumed after its code expired: no poll, expired at once")
    func resumedAfterExpiry() async throws {
        let harness = try FlowHarness(script: .pending)
        let authorization = try await harness.flow.requestAuthorization()
        let resumed = harness.flow.resuming(
            authorization, progress: PollingProgress(interval: .seconds(5), notBefore: authorization.receivedAt))
        // The harness's wall clock stands still: move the authorization 10 minutes into the past instead.
        var moved = resumed
        moved.receivedAtElapsed -= .seconds(600)
        let old = moved
        await #expect(throws: DeviceLoginError(.expired, "")) {
            _ = try await harness.clock.withAutoAdvance { try await harness.flow.pollForToken(old) }
        }
        #expect(harness.pollTimes.isEmpty)
    }
}
