import DeviceLoginCLI
import DeviceLoginTesting

/// The server `demo` runs: the testing kit's ``MockAuthorizationServer`` behind its ``LoopbackServer`` on
/// 127.0.0.1, with refresh-token rotation, codes that live 600 seconds, and a summary of what it recorded.
struct TestingKitDemoServer: DemoServer {
    /// The listener, and through it the model.
    let server: LoopbackServer

    /// Binds the listener on 127.0.0.1 for `options` (port, polling interval, approving by itself).
    /// - Throws: The listener's error when the port cannot be bound.
    init(_ options: DemoOptions) throws {
        let script: MockAuthorizationServer.Script =
            options.approveAfter.map { .approve(after: .seconds($0)) }
            ?? .pending
        let model = MockAuthorizationServer(
            configuration: MockAuthorizationServer.Configuration(
                issuer: "http://127.0.0.1", deviceCodeLifetime: 600, interval: options.interval,
                rotatesRefreshTokens: true, recording: .summary, maximumRecords: 10_000, defaultScript: script,
                verificationURIOverride: options.verificationURI
            )
        )
        server = try LoopbackServer(model: model, port: options.port)
    }

    var issuer: String { server.issuer }

    var clientID: String { MockAuthorizationServer.Configuration.defaultClientID }

    func run() async throws { try await server.run() }

    var servedSummary: String {
        let model = server.model
        return "Served \(model.deviceAuthorizationRequestCount) device authorizations, "
            + "\(model.refreshRequestCount) refreshes, \(model.revocations.count) revocations; "
            + "RFC 8628 violations seen: \(model.rfcViolations)."
    }
}
