import DeviceLogin
import DeviceLoginTesting
import Testing

/// The example of the core's DocC article "Testing with the kit", run as written, so the article cannot rot.
@Suite struct DocumentationExampleTests {
    @Test func slowDownAddsFiveSeconds() async throws {
        let clock = ManualClock()
        let server = MockAuthorizationServer(
            configuration: .init(defaultScript: .approve(afterPolls: 2).with(.slowDown, atPoll: 1)), clock: clock)
        let flow = DeviceFlow(
            endpoints: try server.endpoints(),
            client: ClientConfiguration(clientID: MockAuthorizationServer.Configuration.defaultClientID),
            transport: InProcessTransport(server: server), clock: clock)

        _ = try await clock.withAutoAdvance { try await flow.run() }

        let code = try #require(server.lastAuthorization).deviceCode
        #expect(server.pollTimes(deviceCode: code) == [.seconds(5), .seconds(15), .seconds(25)])
        #expect(server.rfcViolations == 0)
    }
}
