import DeviceLogin
import DeviceLoginTesting
import Foundation
import Testing

@Suite("InProcessTransport")
struct InProcessTransportTests {
    typealias Script = MockAuthorizationServer.Script

    let clock = ManualClock()

    func makeTransport(_ configuration: MockAuthorizationServer.Configuration = .init()) -> InProcessTransport {
        InProcessTransport(server: MockAuthorizationServer(configuration: configuration, clock: clock))
    }

    func url(_ text: String) throws -> URL {
        try #require(URL(string: text))
    }

    func discoveryRequest() throws -> HTTPRequest {
        HTTPRequest(method: .get, url: try url("https://auth.example.test/.well-known/openid-configuration"))
    }

    @Test("the library's discovery finds the server's metadata through it")
    func discovery() async throws {
        let transport = makeTransport()
        let metadata = try await Discovery(transport: transport).metadata(issuer: "https://auth.example.test")
        let endpoints = try ServerEndpoints(metadata: metadata)
        #expect(endpoints == (try transport.server.endpoints()))
        #expect(endpoints.deviceAuthorization?.absoluteString == "https://auth.example.test/device/code")
    }

    @Test("a device code, a poll and a token through the transport")
    func deviceFlowRoundTrip() async throws {
        let transport = makeTransport(.init(defaultScript: .approve(afterPolls: 1)))
        let client = ClientConfiguration(clientID: "test-client", scopes: ["openid"])
        let endpoints = try transport.server.endpoints()
        let authorizationRequest = client.formRequest(
            to: try #require(endpoints.deviceAuthorization),
            parameters: DeviceAuthorizationRequest(scopes: ["openid"]).formParameters
        )
        guard case .success(let object) = ServerReply(try await transport.send(authorizationRequest)) else {
            throw UnexpectedAnswer("no device code")
        }
        let authorization = try DeviceAuthorizationResponse(jsonObject: object)
        let pollParameters = DeviceAccessTokenRequest(deviceCode: authorization.deviceCode).formParameters
        let poll = client.formRequest(to: endpoints.token, parameters: pollParameters)
        clock.advance(by: .seconds(5))
        #expect(errorCode(try await transport.send(poll)) == .authorizationPending)
        clock.advance(by: .seconds(5))
        let token = try token(from: try await transport.send(poll))
        #expect(token.scope == "openid")
        #expect(transport.server.pollTimes(deviceCode: authorization.deviceCode) == [.seconds(5), .seconds(10)])
    }

    @Test(
        "a request to another origin fails to connect",
        arguments: [
            "https://elsewhere.test/token", "http://auth.example.test/token", "https://auth.example.test:8443/token",
        ])
    func otherOrigins(address: String) async throws {
        let transport = makeTransport()
        let error = await #expect(throws: TransportError.self) {
            try await transport.send(HTTPRequest(method: .get, url: try url(address)))
        }
        #expect(error?.kind == .connectionFailed)
        #expect(transport.server.requests.isEmpty)
    }

    @Test("the default port may be written out")
    func explicitDefaultPort() async throws {
        let transport = makeTransport()
        let response = try await transport.send(
            HTTPRequest(
                method: .get, url: try url("https://AUTH.example.test:443/.well-known/openid-configuration")
            ))
        #expect(response.status == 200)
    }

    @Test("a dropped connection throws connectionFailed")
    func droppedConnection() async throws {
        let transport = makeTransport(.init(deviceAuthorizationFaults: [1: .dropConnection]))
        let request = ClientConfiguration(clientID: "test-client")
            .formRequest(to: try url("https://auth.example.test/device/code"), parameters: [])
        let error = await #expect(throws: TransportError.self) { try await transport.send(request) }
        #expect(error?.kind == .connectionFailed)
        #expect(error?.kind.isTransient == true)
        #expect(try await transport.send(request).status == 200)
    }

    @Test("a body over the limit throws responseTooLarge, as the real transports do")
    func oversizedBody() async throws {
        let transport = makeTransport(.init(deviceAuthorizationFaults: [1: .oversizedBody()]))
        let request = ClientConfiguration(clientID: "test-client")
            .formRequest(to: try url("https://auth.example.test/device/code"), parameters: [])
        let error = await #expect(throws: TransportError.self) { try await transport.send(request) }
        #expect(error?.kind == .responseTooLarge)

        let generous = InProcessTransport(server: transport.server, maximumResponseBytes: 20 << 20)
        transport.server.configure { $0.deviceAuthorizationFaults = [2: .oversizedBody()] }
        #expect(try await generous.send(request).body.count == 10 << 20)
    }

    @Test("a delay is served on the server's clock")
    func delay() async throws {
        let transport = makeTransport(.init(responseDelay: .seconds(3)))
        async let response = transport.send(try discoveryRequest())
        await clock.sleepers(atLeast: 1)
        #expect(clock.pendingDeadlines == [.zero + .seconds(3)])
        clock.advance(by: .seconds(3))
        #expect(try await response.status == 200)
    }

    @Test("cancelling the caller during a delay throws CancellationError at once")
    func cancellationDuringDelay() async throws {
        let transport = makeTransport(.init(responseDelay: .seconds(30)))
        let request = try discoveryRequest()
        let task = Task { try await transport.send(request) }
        await clock.sleepers(atLeast: 1)
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(clock.sleeperCount == 0)
        #expect(clock.now == .zero)
    }

    @Test("a cancelled caller sends nothing")
    func cancelledBeforeSending() async throws {
        let transport = makeTransport()
        let request = try discoveryRequest()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await transport.send(request)
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(transport.server.requests.isEmpty)
    }
}
