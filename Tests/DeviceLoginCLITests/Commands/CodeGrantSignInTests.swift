import DeviceLogin
import DeviceLoginTesting
import Foundation
import Testing

@testable import DeviceLoginCLI

/// The browser: curl follows the link to the listener (its own bound generous for a loaded machine).
private let browserCommand = "curl -s -o /dev/null -L --max-time 60"
/// Every sign-in here is bounded: a redirect that never arrives fails the test in two minutes instead of holding the
/// whole run (a CI run hung on one whose browser's redirect was lost).
private let signInTimeout = "2m"
/// The browser and the bound, as a sign-in's environment; at file scope so that a test's arguments can use it.
private let browsing = ["BROWSER": browserCommand, "DEVICE_LOGIN_TIMEOUT": signInTimeout]

/// `login --flow`: the code grant through a browser (a script standing in for it) and a paste, against the mock
/// server over real loopback sockets; `auto`'s choice and its one line; the refusals.
@Suite("login --flow browser|paste|auto: the authorization code grant through the CLI")
struct CodeGrantSignInTests {
    /// A mock that serves the code grant, approving at once, its client registered for the loopback redirect.
    static func model(deviceRefusal: Bool = false, deviceEndpoint: Bool = true) -> MockAuthorizationServer {
        var configuration = MockAuthorizationServer.Configuration(interval: 1, defaultScript: .approve(after: .zero))
        configuration.advertisesDeviceAuthorizationEndpoint = deviceEndpoint
        configuration.codeGrant = MockAuthorizationServer.CodeGrantSettings()
        configuration.clients[0].redirectURIs = ["http://127.0.0.1/callback"]
        if deviceRefusal {
            configuration.deviceAuthorizationFaults = [
                1: .oauthError(.unauthorizedClient), 2: .oauthError(.unauthorizedClient),
            ]
        }
        return MockAuthorizationServer(configuration: configuration)
    }

    private func login(
        _ server: LoopbackServer, _ words: [String], environment: [String: String] = [:],
        stdin: StandardInput = .empty
    ) async -> (code: ExitCode, stdout: String, stderr: String) {
        var (context, out, err) = CLIHarness.context(environment: environment)
        context.stdin = stdin
        let arguments = ["login", "--issuer", server.issuer, "--client-id", "test-client", "--no-store", "--json"]
        let code = await CLI.run(arguments + words, context: context)
        return (code, out(), err())
    }

    @Test("--flow browser: the link printed, $BROWSER follows it to the listener, tokens on stdout, no violation")
    func browser() async throws {
        let model = Self.model()
        try await LoopbackServer.withRunning(model: model) { server in
            let result = await login(server, ["--flow", "browser"], environment: browsing)
            #expect(result.code == .success, "\(result.stderr)")
            #expect(result.stdout.hasPrefix(#"{"access_token":"#))
            #expect(result.stderr.contains("signing in with the browser on this device, as asked"))
            #expect(result.stderr.contains(server.issuer + "/authorize?response_type=code"))
            #expect(!result.stderr.contains("code_verifier"))
            #expect(model.violations.isEmpty, "\(model.violations)")
        }
    }

    @Test("--flow paste: the redirect address pasted on stdin is redeemed; a wrong state is refused")
    func paste() async throws {
        let model = Self.model()
        try await LoopbackServer.withRunning(model: model) { server in
            // The person: reads the link login printed, signs in (the mock redirects at once), pastes the address.
            let seen = Locked<(@Sendable () -> String)?>(nil)
            let stdin = StandardInput.answering {
                let printed = seen.withLock { $0 }?() ?? ""
                guard let link = printed.split(separator: "\n").first(where: { $0.contains("/authorize?") }) else {
                    return Array("nothing printed\n".utf8)
                }
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
                process.arguments = [
                    "-s", "-o", "/dev/null", "-w", "%{redirect_url}", link.trimmingCharacters(in: .whitespaces),
                ]
                let pipe = Pipe()
                process.standardOutput = pipe
                try? process.run()
                process.waitUntilExit()
                return Array(pipe.fileHandleForReading.readDataToEndOfFile()) + Array("\n".utf8)
            }
            var (context, out, err) = CLIHarness.context()
            seen.withLock { $0 = err }
            context.stdin = stdin
            let arguments = [
                "login", "--issuer", server.issuer, "--client-id", "test-client", "--no-store", "--json", "--flow",
                "paste",
            ]
            let code = await CLI.run(arguments, context: context)
            #expect(code == .success, "\(err())")
            #expect(out().hasPrefix(#"{"access_token":"#))
            #expect(err().contains("paste it here"))
            #expect(model.violations.isEmpty, "\(model.violations)")

            let forged = await login(
                server, ["--flow", "paste"],
                stdin: .bytes(Array("http://127.0.0.1:1/callback?code=x&state=forged\n".utf8)))
            #expect(forged.code != .success)
            #expect(forged.stderr.contains("not this sign-in's"), "\(forged.stderr)")
        }
    }

    @Test("--flow paste draws a QR code of the link with --qr always, above the link; none with --qr never")
    func pasteQRCode() async throws {
        let model = Self.model()
        try await LoopbackServer.withRunning(model: model) { server in
            let pasted = StandardInput.bytes(Array("not a code\n".utf8))
            let always = await login(server, ["--flow", "paste", "--qr", "always"], stdin: pasted)
            let lines = always.stderr.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let caption = try #require(lines.firstIndex(of: "Scan to open 127.0.0.1:\(server.port) and sign in there."))
            #expect(caption > 20, "\(always.stderr)") // the QR code's rows above its caption
            #expect(lines[caption + 3].contains(server.issuer + "/authorize?response_type=code"))
            let never = await login(server, ["--flow", "paste", "--qr", "never"], stdin: pasted)
            #expect(never.stderr.contains(server.issuer + "/authorize?response_type=code"))
            #expect(!never.stderr.contains("Scan to open"), "\(never.stderr)")
            #expect(never.stderr.split(separator: "\n").count < 10, "\(never.stderr)")
        }
    }

    @Test(
        "auto: the browser in a local graphical session, the device flow over SSH; one line says which and why",
        arguments: [
            (["DISPLAY": ":0"].merging(browsing) { $1 }, "graphical session"),
            (["DISPLAY": ":0", "SSH_CONNECTION": "10.0.0.1 1 10.0.0.2 22"], "over SSH"),
        ])
    func auto(environment: [String: String], why: String) async throws {
        let model = Self.model()
        try await LoopbackServer.withRunning(model: model) { server in
            let result = await login(server, ["--qr", "never"], environment: environment)
            #expect(result.code == .success, "\(result.stderr)")
            #expect(result.stderr.contains(why), "\(result.stderr)")
        }
    }

    @Test("auto falls back to a pasted code when the device authorization is refused as unauthorized_client")
    func fallback() async throws {
        let model = Self.model(deviceRefusal: true)
        try await LoopbackServer.withRunning(model: model) { server in
            let result = await login(
                server, ["--qr", "never"], environment: ["SSH_TTY": "/dev/pts/1"],
                stdin: .bytes(Array("not a code at all\n".utf8)))
            #expect(result.stderr.contains("signing in with a pasted code: the server refused the device flow"))
            #expect(result.code != .success) // what was pasted is no code: refused as that
            let explicit = await login(server, ["--flow", "device", "--qr", "never"], environment: [:])
            #expect(explicit.code != .success)
            #expect(!explicit.stderr.contains("signing in with"))
        }
    }

    @Test("--kiosk and --detach are device-flow only", arguments: ["--kiosk", "--detach"])
    func deviceOnly(flag: String) async {
        let result = await CLIHarness.run(
            ["login", "--issuer", "https://a.example", "--client-id", "c", "--flow", "paste", flag])
        #expect(result.code == .usage)
        #expect(result.stderr.contains("for the device flow only"))
    }

    @Test("--events: flow, link, redirected, then succeeded; no code, verifier or token in any line")
    func events() async throws {
        let model = Self.model()
        try await LoopbackServer.withRunning(model: model) { server in
            var (context, out, err) = CLIHarness.context(environment: browsing)
            context.stdin = .empty
            let arguments = [
                "login", "--issuer", server.issuer, "--client-id", "test-client", "--no-store", "--events",
                "--flow", "browser",
            ]
            let code = await CLI.run(arguments, context: context)
            #expect(code == .success, "\(err())")
            let events = out().split(separator: "\n").compactMap { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
            }
            // A failed run has fewer lines: stop here rather than index past them (that crashed the whole suite).
            try #require(events.map { $0["event"] as? String } == ["flow", "link", "redirected", "succeeded"])
            #expect(events[0]["flow"] as? String == "browser")
            #expect((events[1]["url"] as? String)?.hasPrefix(server.issuer + "/authorize?") == true)
            #expect(!out().contains("code_verifier") && !out().contains("access_token"))
        }
    }

    @Test("the profile remembers --flow: the next login of it that names none runs the same flow")
    func remembered() async throws {
        let model = Self.model()
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("code-grant-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        try await LoopbackServer.withRunning(model: model) { server in
            let environment = browsing.merging(["DEVICE_LOGIN_HOME": home.path]) { $1 }
            let arguments = ["login", "--issuer", server.issuer, "--client-id", "test-client", "--json"]
            let first = await CLIHarness.run(arguments + ["--flow", "browser"], environment: environment)
            #expect(first.code == .success, "\(first.stderr)")
            let saved = try String(contentsOf: home.appendingPathComponent("default.json"), encoding: .utf8)
            #expect(saved.contains(#""flow" : "browser""#))
            let second = await CLIHarness.run(arguments, environment: environment)
            #expect(second.code == .success, "\(second.stderr)")
            #expect(second.stderr.contains("signing in with the browser on this device, as asked"))
        }
    }

    @Test("a server with no device endpoint: auto pastes without a graphical session; --flow device says why not")
    func codeOnlyServer() async throws {
        let model = Self.model(deviceEndpoint: false)
        try await LoopbackServer.withRunning(model: model) { server in
            let auto = await login(
                server, ["--qr", "never"], environment: ["SSH_TTY": "/dev/pts/1"],
                stdin: .bytes(Array("not a code at all\n".utf8)))
            #expect(auto.stderr.contains("signing in with a pasted code: over SSH, and the server has no device flow"))
            let device = await login(server, ["--flow", "device"])
            #expect(device.code == .configuration, "\(device.stderr)")
            #expect(device.stderr.contains("the device flow needs the server's device authorization endpoint"))
            #expect(model.requests.allSatisfy { $0.endpoint != .deviceAuthorization })
        }
    }

    @Test("without discovery: --authorization-endpoint and --token-endpoint sign in; the profile keeps both")
    func withoutDiscovery() async throws {
        let model = Self.model(deviceEndpoint: false)
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("code-only-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        try await LoopbackServer.withRunning(model: model) { server in
            let environment = browsing.merging(["DEVICE_LOGIN_HOME": home.path, "DISPLAY": ":0"]) { $1 }
            let arguments = [
                "login", "--authorization-endpoint", server.issuer + "/authorize", "--token-endpoint",
                server.issuer + "/token", "--client-id", "test-client", "--json",
            ]
            let result = await CLIHarness.run(arguments, environment: environment)
            #expect(result.code == .success, "\(result.stderr)")
            #expect(result.stderr.contains("signing in with the browser on this device: a graphical session"))
            #expect(
                model.requests.allSatisfy { $0.endpoint != .openIDConfiguration && $0.endpoint != .deviceAuthorization }
            )
            let saved = try String(contentsOf: home.appendingPathComponent("default.json"), encoding: .utf8)
            let escaped = server.issuer.replacing("/", with: "\\/")
            #expect(saved.contains(#""authorization_endpoint" : ""# + escaped + #"\/authorize""#), "\(saved)")
            #expect(!saved.contains("device_authorization_endpoint"))
            #expect(model.violations.isEmpty, "\(model.violations)")
        }
    }

    @Test("--token-endpoint alone names no flow: a usage error")
    func tokenEndpointAlone() async {
        let result = await CLIHarness.run(
            ["login", "--token-endpoint", "https://a.example/token", "--client-id", "c"])
        #expect(result.code == .usage)
        #expect(result.stderr.contains("--device-authorization-endpoint or --authorization-endpoint"))
    }

    /// A port free on 127.0.0.1 now (bound and closed again), below Linux's ephemeral range (32768-60999): a port the
    /// kernel hands out could be taken between two logins by another test's outgoing connection, which failed this
    /// test now and then (exit 78, "could not listen").
    private static func freePort() throws -> Int {
        var port = Int.random(in: 20_000..<32_000)
        for _ in 0..<200 {
            if let listener = try? LoopbackRedirectListener(address: .ipv4, port: UInt16(port)) {
                listener.close()
                return port
            }
            port = port < 32_000 ? port + 1 : 20_000
        }
        let listener = try LoopbackRedirectListener(address: .ipv4)
        defer { listener.close() }
        return Int(listener.port)
    }

    @Test("--redirect-port fixes the listener's port, the profile remembers it; a port taken is refused clearly")
    func redirectPort() async throws {
        let model = Self.model()
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("redirect-port-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        try await LoopbackServer.withRunning(model: model) { server in
            let environment = browsing.merging(["DEVICE_LOGIN_HOME": home.path]) { $1 }
            let arguments = [
                "login", "--issuer", server.issuer, "--client-id", "test-client", "--json", "--flow", "browser",
            ]
            let port = try Self.freePort()
            let first = await CLIHarness.run(arguments + ["--redirect-port", String(port)], environment: environment)
            #expect(first.code == .success, "\(first.stderr)")
            #expect(first.stderr.contains("redirect_uri=http%3A%2F%2F127.0.0.1%3A\(port)%2Fcallback"))
            let saved = try String(contentsOf: home.appendingPathComponent("default.json"), encoding: .utf8)
            #expect(saved.contains(#""redirect_port" : \#(port)"#), "\(saved)")
            // Signed in again without the option: the same port; and refused while another program holds it.
            let holder = try LoopbackRedirectListener(address: .ipv4, port: UInt16(port))
            let taken = await CLIHarness.run(arguments, environment: environment)
            holder.close()
            #expect(taken.code == .configuration, "\(taken.stderr)")
            #expect(taken.stderr.contains("could not listen on 127.0.0.1:\(port)"), "\(taken.stderr)")
            #expect(taken.stderr.contains("another program may hold the port"))
            let again = await CLIHarness.run(arguments, environment: environment)
            #expect(again.code == .success, "\(again.stderr)")
            #expect(again.stderr.contains("127.0.0.1%3A\(port)%2Fcallback"))
        }
        let bad = await CLIHarness.run(
            ["login", "--issuer", "https://a.example", "--client-id", "c", "--redirect-port", "70000"])
        #expect(bad.code == .usage && bad.stderr.contains("--redirect-port must be a port, 1 to 65535"))
    }
}
