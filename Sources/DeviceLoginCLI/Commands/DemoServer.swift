/// The authorization server `demo` signs in against. The real one, the testing kit's mock server behind its
/// loopback listener, lives in `device-login-demo`, the one program that links the testing kit; this library knows
/// it only through this protocol, so `device-login` carries no server.
package protocol DemoServer: Sendable {
    /// The issuer to sign in at: `http://127.0.0.1:PORT`.
    var issuer: String { get }
    /// The client ID the server knows (a public client).
    var clientID: String { get }
    /// Serves until the task is cancelled.
    func run() async throws
    /// One line on what was served, for stderr when `demo --serve` stops.
    var servedSummary: String { get }
}
