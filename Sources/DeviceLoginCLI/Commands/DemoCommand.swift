#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import DeviceLogin
import DeviceLoginTesting

/// `device-login demo`: a whole sign-in against the testing kit's authorization server on 127.0.0.1, with no
/// account anywhere. With `--serve`, only the server, for trying other clients or for benchmarks.
enum DemoCommand {
    static let spec = CommandSpec(
        name: "demo",
        summary: "Try a sign-in against a built-in authorization server on 127.0.0.1 (no account needed).",
        options: [
            .value("approve-after", "SECONDS", "Approve the code by itself after this many seconds (default: wait"
                + " for you to approve it on the server's web page)."),
            .value("port", "PORT", "The port to listen on (default: a free one)."),
            .value("interval", "SECONDS", "The polling interval the server asks for (default 5)."),
            .value("qr", "MODE", "Draw a QR code of the verification URI: auto (default), always or never."),
            .flag("json", "Print the token response as JSON on stdout."),
            .flag("serve", "Only run the server: print its issuer on stdout and serve until Ctrl-C; then print"
                + " what it served on stderr."),
        ],
        discussion: """
            The server speaks RFC 8628 with discovery, refresh, revocation and userinfo, and enforces the
            polling interval itself. Open the verification URI it prints in a browser to approve or deny the
            code, or let --approve-after approve it. Nothing is saved. With --serve, sign in from another
            terminal:
              device-login login --issuer <printed issuer> --client-id test-client
            """,
        run: run
    )

    @Sendable static func run(_ options: ParsedOptions, _ context: CLIContext) async throws -> ExitCode {
        func seconds(_ name: String, range: ClosedRange<Int>) throws -> Int? {
            guard let text = options.value(name) else { return nil }
            guard let value = Int(text), range.contains(value) else {
                throw UsageError("--\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound)",
                                 command: "demo")
            }
            return value
        }
        let approveAfter = try seconds("approve-after", range: 0...3600)
        let port = try seconds("port", range: 0...65_535) ?? 0
        let interval = try seconds("interval", range: 1...60) ?? 5
        let script: MockAuthorizationServer.Script = approveAfter.map { .approve(after: .seconds($0)) } ?? .pending
        let model = MockAuthorizationServer(
            configuration: MockAuthorizationServer.Configuration(
                issuer: "http://127.0.0.1", deviceCodeLifetime: 600, interval: interval, rotatesRefreshTokens: true,
                recording: .summary, maximumRecords: 10_000, defaultScript: script
            )
        )
        let server = try LoopbackServer(model: model, port: UInt16(port))
        return try await withThrowingTaskGroup(of: ExitCode?.self) { group in
            group.addTask {
                try await server.run()
                return nil
            }
            defer { group.cancelAll() }
            if options.flag("serve") {
                context.stdout.line(server.issuer)
                context.stderr.line("Demo authorization server at \(server.issuer) (client ID "
                    + "\(MockAuthorizationServer.Configuration.defaultClientID)). Ctrl-C stops it.")
                _ = try await group.next()
                context.stderr.line("Served \(model.deviceAuthorizationRequestCount) device authorizations, "
                    + "\(model.refreshRequestCount) refreshes, \(model.revocations.count) revocations; "
                    + "RFC 8628 violations seen: \(model.rfcViolations).")
                return .success
            }
            context.stderr.line("Demo authorization server running at \(server.issuer) (in this process).")
            if let approveAfter {
                context.stderr.line("It approves the code by itself after \(approveAfter) s; or open the link below"
                    + " to approve or deny it yourself.")
            } else {
                context.stderr.line("Open the link below in a browser to approve or deny the code.")
            }
            context.stderr.line("")
            var parsed = ParsedOptions()
            parsed.append(server.issuer, for: "issuer")
            parsed.append(MockAuthorizationServer.Configuration.defaultClientID, for: "client-id")
            parsed.append("", for: "no-store")
            if let qr = options.value("qr") { parsed.append(qr, for: "qr") }
            if options.flag("json") { parsed.append("", for: "json") }
            let settings = try LoginSettings.parse(parsed, command: "demo")
            let transport = context.makeTransport(TransportOptions())
            return try await LoginCommand.perform(settings, transport: transport, context: context)
        }
    }
}
