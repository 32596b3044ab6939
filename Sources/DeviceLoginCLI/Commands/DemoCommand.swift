import DeviceLogin

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `device-login demo`: a whole sign-in against the testing kit's authorization server on 127.0.0.1, with no
/// account anywhere. With `--serve`, only the server, for trying other clients or for benchmarks.
///
/// The server is in a separate program, `device-login-demo`, so that the `device-login` users install links no
/// testing kit. Both run this command's help and options: in `device-login` it hands over to `device-login-demo`
/// (``handOver``); there it runs the server (``serving(_:)``).
package enum DemoCommand {
    /// Makes the server for the given options.
    package typealias MakeServer = @Sendable (DemoOptions) throws -> any DemoServer

    /// `demo` in `device-login`: replaces the process with `device-login-demo`, which runs the same command line;
    /// 127 or 126 when that program is not there or cannot be run (``DemoLauncher``).
    static let handOver = spec(handingOver: true) { options, context in
        DemoLauncher.live.run(options, context: context)
    }

    /// `demo` in `device-login-demo`: runs the server `makeServer` makes, and signs in against it unless `--serve`.
    package static func serving(_ makeServer: @escaping MakeServer) -> CommandSpec {
        spec(handingOver: false) { options, context in
            try await run(DemoOptions(options), context: context, makeServer: makeServer)
        }
    }

    /// The command with its help and options, running `run`; `handingOver` when it is `device-login`'s, which
    /// starts the separate program and so can also end with ``DemoLauncher``'s codes.
    private static func spec(
        handingOver: Bool,
        run: @escaping @Sendable (ParsedOptions, CLIContext) async throws -> ExitCode
    ) -> CommandSpec {
        CommandSpec(
            name: "demo",
            summary: "Try a sign-in against a built-in authorization server on 127.0.0.1 (no account needed).",
            options: [
                .value(
                    "approve-after", "SECONDS",
                    "Approve the code by itself after this many seconds (default: wait"
                        + " for you to approve it on the server's web page)."),
                .value("port", "PORT", "The port to listen on (default: a free one)."),
                .value("interval", "SECONDS", "The polling interval the server asks for (default 5)."),
                .value(
                    "verification-uri", "URI",
                    "Have the server send this sign-in page address instead of its own, to see how the"
                        + " prompt warns about a page on another host."),
                LoginSettings.qrOption,
                .flag("json", "Print the token response as JSON on stdout."),
                .flag(
                    "serve",
                    "Only run the server: print its issuer on stdout and serve until Ctrl-C; then print"
                        + " what it served on stderr."),
                .flag(
                    "dpop",
                    "Speak DPoP (RFC 9449): the server demands a proof and its nonce with every request, and the"
                        + " sign-in binds its tokens to a new key; then print the server's record of the proofs."),
                .value("token-lifetime", "SECONDS", "How long the access tokens live (default 3600)."),
            ] + LoginSettings.kioskOptions,
            discussion: """
                The server speaks RFC 8628 with discovery, refresh, revocation and userinfo, and enforces the
                polling interval itself. Open the verification URI it prints in a browser to approve or deny the
                code, or let --approve-after approve it. Nothing is saved. With --serve, sign in from another
                terminal:
                  device-login login --issuer <printed issuer> --client-id test-client
                With --dpop the client test-client must prove every request with DPoP, its resource endpoint
                <issuer>/resource answers only a DPoP-bound token with a valid proof, and the server's record
                shows each proof's checks (never a token):
                  device-login demo --serve --dpop --approve-after 0 --token-lifetime 30
                  device-login login --dpop --issuer <printed issuer> --client-id test-client
                  device-login token          (refreshes: the token lives less than 60 s)
                  device-login curl-config --url <printed issuer>/resource | curl -K - <printed issuer>/resource
                """,
            exitCodes: ExitCode.signIn + (handingOver ? [DemoLauncher.cannotRun, DemoLauncher.notInstalled] : []),
            exitMeanings: handingOver ? DemoLauncher.exitMeanings : [:],
            run: run
        )
    }

    /// Runs the server; with `--serve` until cancelled, else for one sign-in against it.
    static func run(_ options: DemoOptions, context: CLIContext, makeServer: MakeServer) async throws -> ExitCode {
        let server = try makeServer(options)
        return try await withThrowingTaskGroup(of: ExitCode?.self) { group in
            group.addTask {
                try await server.run()
                return nil
            }
            defer { group.cancelAll() }
            if options.serve {
                try context.stdout.line(server.issuer)
                context.stderr.line(
                    "Demo authorization server at \(server.issuer) (client ID "
                        + "\(server.clientID)). Ctrl-C stops it.")
                _ = try await group.next()
                context.stderr.line(server.servedSummary)
                return .success
            }
            context.stderr.line("Demo authorization server running at \(server.issuer) (in this process).")
            if let approveAfter = options.approveAfter {
                context.stderr.line(
                    "It approves the code by itself after \(approveAfter) s; or open the link below"
                        + " to approve or deny it yourself.")
            } else {
                context.stderr.line("Open the link below in a browser to approve or deny the code.")
            }
            context.stderr.line("")
            let settings = options.signIn(issuer: server.issuer, clientID: server.clientID)
            let transport = context.makeTransport(TransportOptions())
            let code = try await LoginCommand.perform(settings, transport: transport, context: context)
            if options.dpop { context.stderr.line(server.servedSummary) }
            return code
        }
    }
}
