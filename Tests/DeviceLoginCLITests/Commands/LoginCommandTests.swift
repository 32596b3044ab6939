import DeviceLogin
import DeviceLoginTesting
import Foundation
import Testing

@testable import DeviceLoginCLI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("login in process against the mock server: the result, and a result that cannot be written")
struct LoginCommandTests {
    /// Runs `login` against a mock server that approves every code at once, in virtual time.
    private func login(_ words: [String], home: URL, stdout: ResultSink? = nil) async throws
        -> (code: ExitCode, stdout: String, stderr: String)
    {
        let clock = ManualClock()
        let server = MockAuthorizationServer(
            configuration: MockAuthorizationServer.Configuration(interval: 1, defaultScript: .approve(after: .zero)),
            clock: clock
        )
        var (context, out, err) = CLIHarness.context(
            environment: ["DEVICE_LOGIN_HOME": home.path], transport: InProcessTransport(server: server)
        )
        context.clock = clock
        if let stdout { context.stdout = stdout }
        let arguments = ["login", "--issuer", server.issuer, "--client-id", "test-client", "--qr", "never"] + words
        let code = try await clock.withAutoAdvance { [context] in await CLI.run(arguments, context: context) }
        return (code, out(), err())
    }

    private func temporaryHome() throws -> URL {
        try BinaryHarness.temporaryHome()
    }

    @Test("--json --no-store: the token response on stdout, nothing saved")
    func json() async throws {
        let home = try temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let result = try await login(["--json", "--no-store"], home: home)
        #expect(result.code == .success, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("{\"access_token\":"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: home.path).isEmpty)
    }

    // Issue 17: the tokens, kept nowhere, were left valid at the server.
    @Test("--json --no-store into a failing stdout: exit 74, and the tokens, kept nowhere, are revoked")
    func lost() async throws {
        let home = try temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let result = try await login(["--json", "--no-store"], home: home, stdout: .failing(ENOSPC))
        #expect(result.code == .ioError)
        #expect(
            result.stderr.hasSuffix(
                """
                device-login: could not write the result to standard output: \(String(cString: strerror(ENOSPC)))
                The tokens were not saved anywhere (nothing is stored), and the tokens could not be written to \
                standard output and were revoked at the server: sign in again.

                """))
    }

    @Test("--json with a profile into a failing stdout: exit 74, and where the tokens are saved")
    func saved() async throws {
        let home = try temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let result = try await login(["--json", "--profile", "work"], home: home, stdout: .failing(ENOSPC))
        #expect(result.code == .ioError)
        let path = try FileTokenStore(directory: home.path).filePath(profile: "work")
        #expect(
            result.stderr.hasSuffix(
                """
                device-login: could not write the result to standard output: \(String(cString: strerror(ENOSPC)))
                The tokens are saved in profile 'work' (\(path)): `device-login token --profile work` prints the access \
                token.

                """))
        #expect(try await FileTokenStore(directory: home.path).load(profile: "work")?.tokens != nil)
    }
}
