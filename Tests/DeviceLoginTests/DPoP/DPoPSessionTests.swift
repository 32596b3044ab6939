import DeviceLoginTesting
import Foundation
import Testing

@testable import DeviceLogin

/// A mock server that demands DPoP, a client with a key, and the time both see: in process, in virtual time.
struct DPoPBench {
    let clock = ManualClock()
    let wall = WallClock()
    let server: MockAuthorizationServer
    let prover: DPoPProver
    let client: ClientConfiguration
    let store = InMemoryTokenStore()

    init(requiresNonce: Bool = false, script: MockAuthorizationServer.Script = .approve(afterPolls: 1)) throws {
        let configuration = MockAuthorizationServer.Configuration(
            clients: [.init(id: MockAuthorizationServer.Configuration.defaultClientID, requiresDPoP: true)],
            defaultScript: script, dpop: .init(requiresNonce: requiresNonce))
        server = MockAuthorizationServer(configuration: configuration, clock: clock, now: wall.now)
        prover = try DPoPProver(key: try ECP256PrivateKey.generate(), now: wall.now)
        client = ClientConfiguration(clientID: MockAuthorizationServer.Configuration.defaultClientID, dpop: prover)
    }

    func flow(transport: (any HTTPTransport)? = nil) throws -> DeviceFlow {
        DeviceFlow(
            endpoints: try server.endpoints(), client: client,
            transport: transport ?? InProcessTransport(server: server),
            clock: clock, now: wall.now)
    }

    /// Signs in through the device flow in virtual time.
    func signIn(transport: (any HTTPTransport)? = nil) async throws -> TokenResponse {
        let flow = try flow(transport: transport)
        return try await clock.withAutoAdvance { try await flow.run() }
    }

    /// A token state for the sign-in's profile with `client` (default the bench's), over the bench's store.
    func state(client: ClientConfiguration? = nil, transport: (any HTTPTransport)? = nil) throws -> TokenState {
        let client = client ?? self.client
        let profile = try Profile(
            name: "default", issuer: server.issuer, endpoints: try server.endpoints(), client: self.client)
        return TokenState(
            profile: profile, client: client, store: store, transport: transport ?? InProcessTransport(server: server),
            clock: clock, now: wall.now)
    }

    /// The DPoP checks the server recorded for `endpoint`, in order.
    func checks(_ endpoint: MockAuthorizationServer.Endpoint) -> [MockAuthorizationServer.ProofCheck] {
        server.requests(to: endpoint).compactMap(\.dpop)
    }
}

/// A transport that runs `before` on each request, then hands it to `inner`.
struct HookedTransport: HTTPTransport {
    let inner: any HTTPTransport
    let before: @Sendable (HTTPRequest) -> Void

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        before(request)
        return try await inner.send(request)
    }
}

@Suite("DPoP sessions: sign-in, refresh, nonces and resources against the mock server, which checks every proof")
struct DPoPSessionTests {
    @Test("a sign-in and a refresh with DPoP: every request proven and accepted, the tokens bound to the key")
    func signInAndRefresh() async throws {
        let bench = try DPoPBench()
        let response = try await bench.signIn()
        #expect(response.tokenType == "DPoP")
        let thumbprint = bench.prover.thumbprint
        #expect(bench.server.binding(accessToken: response.accessToken) == thumbprint)
        let state = try bench.state()
        try await state.store(response)
        #expect(try await bench.store.load(profile: "default")?.tokens?.tokenType == "DPoP")
        bench.wall.advance(seconds: 3600)
        let refreshed = try await state.freshAccessToken()
        #expect(refreshed != response.accessToken)
        #expect(bench.server.refreshRequestCount == 1)
        #expect(bench.server.binding(accessToken: refreshed) == thumbprint)
        #expect(try await bench.store.load(profile: "default")?.tokens?.isDPoP == true)
        let device = bench.checks(.deviceAuthorization)
        let token = bench.checks(.token)
        #expect(device.count == 1)
        #expect(token.count == 3) // two polls, one refresh
        #expect((device + token).allSatisfy { $0.isAccepted && $0.thumbprint == thumbprint })
        #expect(token.last?.passed.last == "key binding")
        #expect(Set((device + token).compactMap(\.proofID)).count == 4)
        #expect(bench.server.rfcViolations == 0)
    }

    @Test("nonces: a refused device authorization, poll and refresh each go again at once; polls keep their interval")
    func nonces() async throws {
        let bench = try DPoPBench(requiresNonce: true, script: .approve(afterPolls: 2))
        let tokenURL = try bench.server.endpoints().token
        let tokenRequests = Locked(0)
        let server = bench.server
        // The server makes a new nonce before the second token request: the client's is stale then.
        let rotating = HookedTransport(inner: InProcessTransport(server: server)) { request in
            guard request.url == tokenURL else { return }
            if tokenRequests.withLock({
                $0 += 1
                return $0
            }) == 2 {
                server.rotateDPoPNonce()
            }
        }
        let response = try await bench.signIn(transport: rotating)
        #expect(response.isDPoP)
        let device = bench.server.requests(to: .deviceAuthorization)
        #expect(device.map(\.dpop?.verdict) == [.nonceDemanded, .accepted])
        #expect(device.map(\.time) == [.zero, .zero])
        let polls = bench.server.requests(to: .token)
        #expect(polls.map(\.dpop?.verdict) == [.accepted, .nonceDemanded, .accepted, .accepted])
        #expect(polls.map(\.time) == [.seconds(5), .seconds(10), .seconds(10), .seconds(15)])
        let code = try #require(bench.server.lastAuthorization?.deviceCode)
        #expect(bench.server.pollTimes(deviceCode: code) == [.seconds(5), .seconds(10), .seconds(15)])
        #expect(bench.server.rfcViolations == 0)

        let state = try bench.state()
        try await state.store(response)
        bench.server.rotateDPoPNonce()
        bench.wall.advance(seconds: 3600)
        _ = try await state.freshAccessToken()
        let refreshes = bench.server.requests(to: .token).suffix(2)
        #expect(refreshes.map(\.dpop?.verdict) == [.nonceDemanded, .accepted])
        #expect(refreshes.map(\.grantType) == ["refresh_token", "refresh_token"])
        #expect(bench.prover.nonce(for: tokenURL) == bench.server.dpopNonce)
    }

    @Test("a refresh proven with another key is refused, and the session and its stored tokens stay")
    func anotherKey() async throws {
        let bench = try DPoPBench()
        let response = try await bench.signIn()
        try await bench.state().store(response)
        var thief = bench.client
        thief.dpop = try DPoPProver(key: try ECP256PrivateKey.generate(), now: bench.wall.now)
        let state = try bench.state(client: thief)
        bench.wall.advance(seconds: 3600)
        let error = await expectError(.oauth) { _ = try await state.freshAccessToken() }
        #expect(error?.oauthError?.code == .invalidDPoPProof)
        #expect(
            bench.server.requests(to: .token).last?.dpop?.verdict == .refused("made with another key than the grant's"))
        #expect(try await bench.store.load(profile: "default")?.tokens?.accessToken == response.accessToken)
        #expect(await state.tokens?.accessToken == response.accessToken)
    }

    @Test("a profile bound to a DPoP key refreshes with no proof at all when given no key: nothing is sent")
    func noKey() async throws {
        let bench = try DPoPBench()
        try await bench.state().store(try await bench.signIn())
        var bare = bench.client
        bare.dpop = nil
        let state = try bench.state(client: bare)
        bench.wall.advance(seconds: 3600)
        _ = await expectError(.configuration) { _ = try await state.freshAccessToken() }
        #expect(bench.server.refreshRequestCount == 0)
        #expect(try await bench.store.load(profile: "default")?.tokens != nil)
    }

    @Test("a Bearer token in answer to a proven request is refused as a downgrade: at sign-in, and at a refresh")
    func downgrade() async throws {
        let bench = try DPoPBench()
        let device = ScriptedTransport.json(
            #"{"device_code":"DC","user_code":"ABCD-EFGH","verification_uri":"https://auth.example.test/device","#
                + #""expires_in":600,"interval":5}"#)
        let bearer = ScriptedTransport.json(#"{"access_token":"AT","token_type":"Bearer","expires_in":3600}"#)
        let transport = ScriptedTransport([device, bearer])
        let flow = try bench.flow(transport: transport)
        let error = await expectError(.invalidResponse) {
            _ = try await bench.clock.withAutoAdvance { try await flow.run() }
        }
        #expect(error?.message.contains("did not bind the token to the key") == true)
        #expect(transport.requests.allSatisfy { $0.header("DPoP") != nil })

        try await bench.state().store(try await bench.signIn())
        let refresh = ScriptedTransport([
            ScriptedTransport.json(#"{"access_token":"AT-2","token_type":"Bearer","expires_in":3600}"#)
        ])
        let state = try bench.state(transport: refresh)
        bench.wall.advance(seconds: 3600)
        _ = await expectError(.invalidResponse) { _ = try await state.freshAccessToken() }
        #expect(try await bench.store.load(profile: "default")?.tokens?.isDPoP == true)
    }

    // A DPoP token issued to a client that sent no proof used to be accepted and then sent as a Bearer token, which a
    // resource server that checks the binding refuses: it fails at once now, with the reason.
    @Test("a DPoP token in answer to a request without a proof is refused: at sign-in, and at a refresh")
    func dpopTokenWithoutProof() async throws {
        let device = ScriptedTransport.json(
            #"{"device_code":"DC","user_code":"ABCD-EFGH","verification_uri":"https://auth.example.com/device","#
                + #""expires_in":600,"interval":5}"#)
        let bound = ScriptedTransport.json(#"{"access_token":"AT","token_type":"DPoP","expires_in":3600}"#)
        let transport = ScriptedTransport([device, bound])
        let clock = ManualClock()
        let flow = DeviceFlow(
            endpoints: Fixtures.endpoints, client: Fixtures.client, transport: transport, clock: clock)
        let error = await expectError(.invalidResponse) { _ = try await clock.withAutoAdvance { try await flow.run() } }
        #expect(error?.message.contains("DPoP-bound token to a request without a DPoP proof") == true)
        #expect(transport.requests.allSatisfy { $0.header("DPoP") == nil })

        let harness = try TokenStateHarness(
            tokens: Fixtures.tokens(expiresIn: -1),
            replies: [ScriptedTransport.json(#"{"access_token":"AT-2","token_type":"DPoP","expires_in":3600}"#)])
        _ = await expectError(.invalidResponse) { _ = try await harness.state.freshAccessToken() }
        #expect(try await harness.stored()?.accessToken == "AT-1")
    }

    @Test("userinfo and a resource request with the DPoP-bound token: Authorization: DPoP and a proof with ath")
    func resources() async throws {
        let bench = try DPoPBench()
        let state = try bench.state()
        try await state.store(try await bench.signIn())
        let info = try await state.userInfo()
        #expect(info.subject == "user-1234")
        #expect(bench.checks(.userinfo).last?.passed.suffix(2) == ["ath", "key binding"])
        let url = try bench.server.resourceEndpoint()
        let authorization = try await state.authorization(method: "GET", url: url)
        #expect(authorization.scheme == "DPoP")
        #expect(authorization.headers.map(\.name) == ["Authorization", "DPoP"])
        let response = try await InProcessTransport(server: bench.server).send(
            HTTPRequest(method: .get, url: url, headers: authorization.headers))
        #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
        // The same proof again is a replay.
        let replay = try await InProcessTransport(server: bench.server).send(
            HTTPRequest(method: .get, url: url, headers: authorization.headers))
        #expect(replay.status == 401)
        #expect(bench.checks(.resource).last?.verdict == .refused("the jti was used before (a replayed proof)"))
    }

    @Test("a Bearer session's authorization has no proof, and its token goes out as Bearer")
    func bearer() async throws {
        let server = MockAuthorizationServer(configuration: .init(defaultScript: .approveImmediately))
        let client = ClientConfiguration(clientID: MockAuthorizationServer.Configuration.defaultClientID)
        let clock = ManualClock()
        let flow = DeviceFlow(
            endpoints: try server.endpoints(), client: client, transport: InProcessTransport(server: server),
            clock: clock)
        let response = try await clock.withAutoAdvance { try await flow.run() }
        let state = TokenState(
            profile: try Profile(endpoints: try server.endpoints(), client: client), client: client, store: nil,
            transport: InProcessTransport(server: server))
        try await state.store(response)
        let authorization = try await state.authorization(method: "GET", url: try server.resourceEndpoint())
        #expect(
            authorization
                == RequestAuthorization(
                    accessToken: response.accessToken, scheme: "Bearer", expiresAt: await state.tokens?.expiresAt))
        #expect(authorization.headers == [HTTPHeader("Authorization", "Bearer \(response.accessToken)")])
        #expect(server.requests.allSatisfy { $0.dpop == nil })
    }
}
