import DeviceLogin
import DeviceLoginTerminal
import DeviceLoginTesting
import Foundation
import Testing

@testable import DeviceLoginCLI

/// The sign-in's prompt and refusals as `login` shows them on stderr, in process, in virtual time.
@Suite("SignIn: the phishing-aware prompt and the advice for known refusals, through login")
struct SignInTests {
    /// Runs `login --no-store --json` with `words` against `transport` on a manual clock.
    private func login(_ words: [String], transport: any HTTPTransport, clock: ManualClock) async throws
        -> (code: ExitCode, stdout: String, stderr: String)
    {
        var (context, out, err) = CLIHarness.context(transport: transport)
        context.clock = clock
        let arguments = ["login", "--client-id", "test-client", "--no-store", "--json"] + words
        let code = try await clock.withAutoAdvance { [context] in await CLI.run(arguments, context: context) }
        return (code, out(), err())
    }

    /// A mock server that approves at once and sends the given verification URIs.
    private func server(
        _ plain: String?, complete: String? = nil, clock: ManualClock
    ) -> MockAuthorizationServer {
        MockAuthorizationServer(
            configuration: MockAuthorizationServer.Configuration(
                interval: 1, defaultScript: .approve(after: .zero), verificationURIOverride: plain,
                verificationURICompleteOverride: complete
            ),
            clock: clock
        )
    }

    @Test("A sign-in page on another host: a Warning on stderr naming both hosts; the token still on stdout")
    func mismatchedHost() async throws {
        let clock = ManualClock()
        let server = server("https://evil.example/device", clock: clock)
        let result = try await login(
            ["--issuer", server.issuer, "--qr", "always"], transport: InProcessTransport(server: server), clock: clock
        )
        #expect(result.code == .success, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("{\"access_token\":"))
        // Below the QR code and its caption.
        #expect(
            result.stderr.contains(
                """
                Warning: The sign-in page is on evil.example, but this sign-in was started with auth.example.test. \
                Enter the code only if you expected a page on evil.example.
                Open this page in a browser: https://evil.example/device
                You will be sent to evil.example.
                Only continue if you started this sign-in on
                """))
        // Both links on the one other host: the QR code may be drawn, and it names that host.
        #expect(result.stderr.contains("Scan to open evil.example with the code below filled in."))
    }

    @Test("Two links on different hosts: both named, no QR code even with --qr always")
    func twoHosts() async throws {
        let clock = ManualClock()
        let server = server(nil, complete: "https://evil.example/device", clock: clock)
        let result = try await login(
            ["--issuer", server.issuer, "--qr", "always"], transport: InProcessTransport(server: server), clock: clock
        )
        #expect(result.code == .success, "\(result.stderr)")
        #expect(
            result.stderr.hasPrefix(
                "Warning: The server's two sign-in links lead to different hosts, auth.example.test and evil.example: "
                    + "only the link to auth.example.test is shown, and no QR code.\n"))
        #expect(result.stderr.contains("QR code not shown: the server's two links lead to different hosts.\n"))
        #expect(!result.stderr.contains("Scan") && !result.stderr.contains("evil.example/device"))
    }

    @Test("The machine's own name in the prompt, or \"this computer\"")
    func machineName() async throws {
        let clock = ManualClock()
        let server = server(nil, clock: clock)
        let result = try await login(
            ["--issuer", server.issuer, "--qr", "never"], transport: InProcessTransport(server: server), clock: clock
        )
        let name = MachineName.current().map { "Only continue if you started this sign-in on \($0) just now.\n" }
        #expect(
            result.stderr.contains(
                name ?? "Only continue if you started this sign-in on this computer just now.\n"))
    }

    @Test("A host longer than DNS allows: refused with exit 76 (protocol error), no prompt, no poll")
    func tooLongHost() async throws {
        let clock = ManualClock()
        let server = server("https://" + String(repeating: "a", count: 64) + ".example/device", clock: clock)
        let result = try await login(
            ["--issuer", server.issuer], transport: InProcessTransport(server: server), clock: clock)
        #expect(result.code == .protocolError)
        #expect(
            result.stderr
                == "device-login: the server sent a sign-in address that cannot be real: a label of the "
                + "verification_uri's host has 64 characters, more than the 63 a DNS label can have\n")
        #expect(!server.requests.contains { $0.endpoint == .token })
    }

    @Test("unauthorized_client: the library's advice, and the CLI's word on --client-id")
    func unauthorizedClient() async throws {
        let clock = ManualClock()
        let server = MockAuthorizationServer(
            configuration: MockAuthorizationServer.Configuration(
                deviceAuthorizationFaults: [1: .oauthError(.unauthorizedClient)]
            ),
            clock: clock
        )
        let result = try await login(
            ["--issuer", server.issuer], transport: InProcessTransport(server: server), clock: clock)
        #expect(result.code == .protocolError)
        #expect(
            result.stderr.hasSuffix(
                "hint: this client may not use the device flow: enable the Device Authorization Grant (device code) "
                    + "for the client at the provider, or use a client that has it; check that --client-id names "
                    + "the client you meant\n"))
    }

    @Test("AADSTS53003 while polling: Conditional Access blocked it, and what an administrator can do")
    func conditionalAccess() async throws {
        let tenant = "https://login.microsoftonline.com/tenant/oauth2/v2.0"
        let transport = StubTransport { request in
            if request.url.path.hasSuffix("/devicecode") {
                return StubTransport.json(
                    #"{"device_code":"d","user_code":"WDJB-MJHT","verification_uri":"#
                        + #""https://microsoft.com/devicelogin","expires_in":900,"interval":5}"#)
            }
            return HTTPResponse(
                status: 400, headers: [HTTPHeader("Content-Type", "application/json")],
                body: Data(
                    (#"{"error":"invalid_grant","error_description":"AADSTS53003: Access has been blocked by "#
                        + #"Conditional Access policies. The access policy does not allow token issuance.","#
                        + #""error_codes":[53003]}"#).utf8))
        }
        let result = try await login(
            [
                "--device-authorization-endpoint", tenant + "/devicecode", "--token-endpoint", tenant + "/token",
                "--qr", "never",
            ], transport: transport, clock: ManualClock()
        )
        #expect(result.code == .protocolError)
        #expect(!result.stderr.contains("Warning:"), "microsoft.com is Microsoft's own sign-in page")
        #expect(
            result.stderr.contains("device-login: the server refused the token request: invalid_grant: AADSTS53003"))
        #expect(
            result.stderr.hasSuffix(
                "hint: Microsoft Entra ID's Conditional Access blocked this sign-in (AADSTS53003), as a policy that "
                    + "does not allow the device code flow does: an administrator must allow the device code flow "
                    + "for this app and user, or sign in on a device the policy accepts (a compliant or managed "
                    + "device)\n"))
    }
}
