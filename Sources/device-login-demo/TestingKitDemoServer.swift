import DeviceLoginCLI
import DeviceLoginTesting

/// The server `demo` runs: the testing kit's ``MockAuthorizationServer`` behind its ``LoopbackServer`` on
/// 127.0.0.1, with refresh-token rotation, codes that live 600 seconds, and a summary of what it recorded — with
/// `--dpop`, a client that must prove every request, nonces, and the record of every proof's checks.
struct TestingKitDemoServer: DemoServer {
    /// The listener, and through it the model.
    let server: LoopbackServer
    /// Whether the server speaks DPoP.
    let dpop: Bool

    /// Binds the listener on 127.0.0.1 for `options` (port, polling interval, approving by itself).
    /// - Throws: The listener's error when the port cannot be bound.
    init(_ options: DemoOptions) throws {
        let script: MockAuthorizationServer.Script =
            options.approveAfter.map { .approve(after: .seconds($0)) }
            ?? .pending
        var configuration = MockAuthorizationServer.Configuration(
            issuer: "http://127.0.0.1", deviceCodeLifetime: 600, interval: options.interval,
            rotatesRefreshTokens: true, recording: .summary, maximumRecords: 10_000, defaultScript: script,
            verificationURIOverride: options.verificationURI
        )
        if options.dpop {
            configuration.clients = [MockAuthorizationServer.Client(id: Self.clientID, requiresDPoP: true)]
            configuration.dpop = MockAuthorizationServer.DPoPSettings(requiresNonce: true)
        }
        if let lifetime = options.tokenLifetime { configuration.accessTokenLifetime = lifetime }
        dpop = options.dpop
        server = try LoopbackServer(model: MockAuthorizationServer(configuration: configuration), port: options.port)
    }

    var issuer: String { server.issuer }

    var clientID: String { Self.clientID }

    private static let clientID = MockAuthorizationServer.Configuration.defaultClientID

    func run() async throws { try await server.run() }

    var servedSummary: String {
        let model = server.model
        return "Served \(model.deviceAuthorizationRequestCount) device authorizations, "
            + "\(model.refreshRequestCount) refreshes, \(model.revocations.count) revocations; "
            + "RFC 8628 violations seen: \(model.rfcViolations)."
            + model.violations.map { "\n  violation: \($0.description)" }.joined()
            + (dpop ? "\nWhat the server recorded (no token is in it):\n" + model.transcript() : "")
    }
}
