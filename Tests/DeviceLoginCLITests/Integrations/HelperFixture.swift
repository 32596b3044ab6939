import DeviceLogin
import DeviceLoginTesting
import Foundation
import Testing

@testable import DeviceLoginCLI

/// A private home whose profiles are signed in at the testing kit's mock server (in process, in virtual time) and
/// bound to URLs, and a way to run a credential helper in process against them with bytes on stdin.
struct HelperFixture {
    let profiles: ProfileFixture
    let clock = ManualClock()
    let model: MockAuthorizationServer

    init() throws {
        profiles = try ProfileFixture()
        model = MockAuthorizationServer(
            configuration: MockAuthorizationServer.Configuration(interval: 1, recording: .summary), clock: clock)
    }

    /// The transport the helper reaches the mock through.
    var transport: InProcessTransport { InProcessTransport(server: model) }

    private var client: ClientConfiguration {
        ClientConfiguration(clientID: MockAuthorizationServer.Configuration.defaultClientID)
    }

    private var store: FileTokenStore { FileTokenStore(directory: profiles.home.path) }

    /// Signs profile `name` in at the mock (approved at once) and saves it bound to `bindings`.
    /// - Returns: The access token stored.
    @discardableResult
    func signIn(_ name: String = "default", bindings: [String], username: String? = nil) async throws -> String {
        let flow = DeviceFlow(endpoints: try model.endpoints(), client: client, transport: transport, clock: clock)
        let authorization = try await flow.requestAuthorization()
        #expect(model.approve(deviceCode: authorization.response.deviceCode))
        let response = try await clock.withAutoAdvance { try await flow.pollForToken(authorization) }
        let state = TokenState(
            profile: try profile(name, bindings: bindings, username: username), client: client, store: store,
            transport: transport)
        try await state.store(response)
        return response.accessToken
    }

    /// Saves profile `name` bound to `bindings` with no tokens: signed out.
    func saveSignedOut(_ name: String, bindings: [String]) async throws {
        try await store.save(ProfileRecord(profile: try profile(name, bindings: bindings, username: nil), tokens: nil))
    }

    private func profile(_ name: String, bindings: [String], username: String?) throws -> Profile {
        try Profile(
            name: name, issuer: model.issuer, endpoints: try model.endpoints(), client: client,
            bindings: try bindings.map(URLBinding.init), username: username)
    }

    /// The tokens stored for `name`.
    func tokens(_ name: String = "default") async throws -> TokenSet? {
        try await store.load(profile: name)?.tokens
    }

    /// Makes the stored access token of `name` look expired an hour ago.
    func expire(_ name: String = "default") async throws {
        var record = try #require(try await store.load(profile: name))
        record.tokens?.expiresAt = Date().addingTimeInterval(-3600)
        try await store.save(record)
    }

    /// Runs `arguments` in process with `input` on stdin.
    func run(_ arguments: [String], input: String = "") async -> (code: ExitCode, stdout: String, stderr: String) {
        await run(arguments, bytes: Array(input.utf8))
    }

    /// Runs `arguments` in process with `bytes` on stdin.
    func run(_ arguments: [String], bytes: [UInt8]) async -> (code: ExitCode, stdout: String, stderr: String) {
        await CLIHarness.run(
            arguments, environment: profiles.environment, transport: transport, stdin: .bytes(bytes))
    }

    /// Removes the home.
    func remove() { profiles.remove() }
}

/// Bytes for standard input, shown by name in test results (a 1 MB input would fill the log).
struct NamedInput: Sendable, CustomTestStringConvertible {
    let name: String
    let bytes: [UInt8]

    init(_ name: String, _ bytes: [UInt8]) {
        self.name = name
        self.bytes = bytes
    }

    init(_ name: String, _ text: String) {
        self.init(name, Array(text.utf8))
    }

    var testDescription: String { name }

    /// A line of 1 MB: `prefix` and that many `x`.
    static func megabyteLine(after prefix: String = "") -> NamedInput {
        NamedInput("a 1 MB line", Array(prefix.utf8) + Array(repeating: UInt8(ascii: "x"), count: 1_000_000))
    }
}
