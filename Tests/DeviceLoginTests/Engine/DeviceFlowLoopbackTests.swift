import DeviceLoginTesting
import Foundation
import Testing

@testable import DeviceLogin

/// The engine over the real libcurl transport against the testing kit's loopback listener: real sockets, virtual
/// time (the flow and the server share one manual clock, advanced whenever the flow sleeps).
@Suite("DeviceFlow over CurlTransport and a loopback listener")
struct DeviceFlowLoopbackTests {
    private struct Outcome {
        var result: Result<TokenResponse, any Error>
        var pollTimes: [Duration]
        var violations: Int
        /// The connections the loopback listener accepted.
        var connections: Int
    }

    private func run(
        _ script: MockAuthorizationServer.Script,
        options: TransportOptions = TransportOptions(),
        configure: (inout MockAuthorizationServer.Configuration) -> Void = { _ in }
    ) async throws -> Outcome {
        let clock = ManualClock()
        var configuration = MockAuthorizationServer.Configuration(defaultScript: script)
        configure(&configuration)
        let model = MockAuthorizationServer(configuration: configuration, clock: clock)
        return try await LoopbackServer.withRunning(model: model) { server in
            let transport = CurlTransport(options: options)
            let metadata = try await Discovery(transport: transport).metadata(issuer: server.issuer)
            let flow = DeviceFlow(
                endpoints: try ServerEndpoints(metadata: metadata),
                client: ClientConfiguration(clientID: MockAuthorizationServer.Configuration.defaultClientID),
                transport: transport, clock: clock
            )
            let result: Result<TokenResponse, any Error>
            do {
                result = .success(try await clock.withAutoAdvance { try await flow.run() })
            } catch {
                result = .failure(error)
            }
            let code = model.lastAuthorization?.deviceCode ?? ""
            return Outcome(
                result: result, pollTimes: model.pollTimes(deviceCode: code), violations: model.rfcViolations,
                connections: server.connectionsAccepted
            )
        }
    }

    @Test("discovery, the device code and every poll ride one kept-alive connection")
    func oneConnection() async throws {
        let outcome = try await run(.approve(afterPolls: 2))
        _ = try outcome.result.get()
        #expect(outcome.pollTimes.count == 3)
        // Before: 4 — the listener closed every connection after one answer, and the transport sent every POST on
        // a new connection (CURLOPT_FRESH_CONNECT).
        #expect(outcome.connections == 1)
    }

    private func errorCode(_ outcome: Outcome) -> DeviceLoginError.Code? {
        guard case .failure(let error) = outcome.result else { return nil }
        return (error as? DeviceLoginError)?.code
    }

    @Test("happy path: discovery, device code, two pending polls, token")
    func happyPath() async throws {
        let outcome = try await run(.approve(afterPolls: 2))
        let token = try outcome.result.get()
        #expect(token.isBearer)
        #expect(token.refreshToken != nil)
        #expect(outcome.pollTimes == [.seconds(5), .seconds(10), .seconds(15)])
        #expect(outcome.violations == 0)
    }

    @Test("slow_down over the wire")
    func slowDown() async throws {
        let outcome = try await run(MockAuthorizationServer.Script.approve(afterPolls: 2).with(.slowDown, atPoll: 1))
        _ = try outcome.result.get()
        #expect(outcome.pollTimes == [.seconds(5), .seconds(15), .seconds(25)])
        #expect(outcome.violations == 0)
    }

    @Test("a dropped connection is retried with backoff")
    func droppedConnection() async throws {
        let outcome = try await run(
            MockAuthorizationServer.Script.approve(afterPolls: 1)
                .with(.dropConnection, atPoll: 1))
        _ = try outcome.result.get()
        #expect(outcome.pollTimes == [.seconds(5), .seconds(15)])
    }

    @Test("503 with Retry-After over the wire")
    func serviceUnavailable() async throws {
        let outcome = try await run(
            MockAuthorizationServer.Script.approve(afterPolls: 1)
                .with(.httpError(status: 503, retryAfter: 20), atPoll: 1))
        _ = try outcome.result.get()
        #expect(outcome.pollTimes == [.seconds(5), .seconds(25)])
    }

    @Test("deny")
    func deny() async throws {
        let outcome = try await run(.deny(afterPolls: 1))
        #expect(errorCode(outcome) == .accessDenied)
        #expect(outcome.pollTimes.count == 2)
    }

    @Test("expiry: the local deadline")
    func expiry() async throws {
        let outcome = try await run(.pending) { $0.deviceCodeLifetime = 20 }
        #expect(errorCode(outcome) == .expired)
        #expect(outcome.pollTimes == [.seconds(5), .seconds(10), .seconds(15)])
    }

    @Test("a 10 MB body fails cleanly at the 1 MiB limit")
    func oversizedBody() async throws {
        let outcome = try await run(MockAuthorizationServer.Script.pending.with(.oversizedBody(), atPoll: 1))
        guard case .failure(let error as DeviceLoginError) = outcome.result else {
            Issue.record("expected a DeviceLoginError")
            return
        }
        #expect(error.code == .transport)
        #expect(error.transportError?.kind == .responseTooLarge)
        #expect(outcome.pollTimes.count == 1)
    }

    @Test("malformed JSON is a clear error")
    func malformedJSON() async throws {
        let outcome = try await run(MockAuthorizationServer.Script.pending.with(.malformedJSON, atPoll: 1))
        #expect(errorCode(outcome) == .invalidResponse)
    }

    @Test("cancellation mid-request: the transfer is aborted, CancellationError, no further request")
    func cancelMidRequest() async throws {
        let clock = ManualClock()
        let model = MockAuthorizationServer(
            configuration: MockAuthorizationServer.Configuration(
                defaultScript: MockAuthorizationServer.Script.pending.with(.delay(.seconds(30)), atPoll: 1)
            ),
            clock: clock
        )
        try await LoopbackServer.withRunning(model: model) { _ in
            let transport = CurlTransport()
            let flow = DeviceFlow(
                endpoints: try model.endpoints(),
                client: ClientConfiguration(clientID: MockAuthorizationServer.Configuration.defaultClientID),
                transport: transport, clock: clock
            )
            let task = Task { try await flow.run() }
            await clock.sleepers(atLeast: 1)
            clock.advance(by: .seconds(5))
            // The first poll is now in flight: the server holds it for 30 s on the manual clock.
            for _ in 0..<500 where model.pollTimes(deviceCode: model.lastAuthorization?.deviceCode ?? "").isEmpty {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(model.pollTimes(deviceCode: model.lastAuthorization?.deviceCode ?? "") == [.seconds(5)])
            task.cancel()
            await #expect(throws: CancellationError.self) { try await task.value }
            let requests = model.requests.count
            clock.advance(by: .seconds(60))
            try await Task.sleep(for: .milliseconds(50))
            #expect(model.requests.count == requests)
        }
    }
}
