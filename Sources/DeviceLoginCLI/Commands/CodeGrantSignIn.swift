import DeviceLogin
import DeviceLoginTerminal
import Dispatch

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `login --flow browser` and `--flow paste`: the authorization code grant with PKCE (the library's
/// `AuthorizationCodeFlow`), finishing with the token response that `login` saves as it saves the device flow's.
///
/// The link is always printed on stderr (sanitised), also when a browser is started, so a launch that fails costs
/// nothing. `browser` waits for the redirect on a loopback listener (closed however the wait ends: the redirect,
/// `--timeout`, Ctrl-C); `paste` reads the address the browser shows (or the code) from standard input.
struct CodeGrantSignIn: Sendable {
    /// The settings of the sign-in.
    let settings: LoginSettings
    /// The command's context.
    let context: CLIContext

    /// The longest wait for the browser's redirect without `--timeout`.
    static let defaultWait: Duration = .seconds(900)

    /// Runs `flow` (browser or paste) and returns the token response.
    func run(
        _ flow: FlowChoice.Flow, endpoints: ServerEndpoints, transport: any HTTPTransport
    ) async throws -> TokenResponse {
        let engine = try AuthorizationCodeFlow(
            endpoints: endpoints, client: settings.client, transport: transport, clock: context.clock)
        if flow == .browser {
            let listener = try listen()
            let request = try engine.makeRequest(redirectURI: listener.redirectURI)
            let link = engine.url(for: request).absoluteString
            try show(link, "Sign in with the browser that opens now; if none does, open this link on this device:")
            if settings.presentation.events { try EventLines(context: context).writeLink(link, flow: .browser) }
            if !BrowserLauncher.open(link, environment: context.environment) {
                context.stderr.line("device-login: could not start a browser ($BROWSER, xdg-open): open the link")
            }
            let response = try await engine.waitForRedirect(
                request, on: listener, timeout: settings.timeout ?? Self.defaultWait)
            if !settings.presentation.quiet { context.stderr.line("Signed in in the browser; redeeming the code.") }
            if settings.presentation.events { try EventLines(context: context).writeRedirected() }
            return try await engine.redeem(response, for: request)
        }
        // Paste: a loopback redirect nobody listens on (the port is closed again at once), which the browser fails
        // to load and shows; the person copies that address.
        let redirectURI = try listen().redirectURI
        let request = try engine.makeRequest(redirectURI: redirectURI)
        let link = engine.url(for: request).absoluteString
        if settings.presentation.events { try EventLines(context: context).writeLink(link, flow: .paste) }
        let host = redirectURI.hasPrefix("http://[") ? "[::1]" : "127.0.0.1"
        try show(
            link,
            "Open this link in a browser on any device and sign in. The browser then fails to load a page on"
                + " \(host): copy its whole address (or the code) and paste it here, then press Enter:",
            qrCode: true, issuer: endpoints.issuer)
        let read = try await readPaste()
        guard read.ending != .tooLong else {
            throw DeviceLoginError(.invalidResponse, "the pasted text is longer than 8192 bytes")
        }
        let text = String(decoding: read.bytes, as: UTF8.self)
        guard text.contains(where: { !$0.isWhitespace }) else {
            throw DeviceLoginError(.accessDenied, "nothing was pasted", hint: "sign in again and paste the address")
        }
        let response = try engine.response(pasted: text, for: request)
        if settings.presentation.events { try EventLines(context: context).writeRedirected() }
        return try await engine.redeem(response, for: request)
    }

    /// The loopback listener: on a random port, or on `--redirect-port` (the profile's, the preset's) on 127.0.0.1
    /// only — a registered `http://127.0.0.1:PORT/callback` must be met exactly, so a port taken is refused, with
    /// the library's words, rather than moved to `[::1]`.
    private func listen() throws -> LoopbackRedirectListener {
        guard let port = settings.redirectPort else { return try LoopbackRedirectListener.onAvailableLoopback() }
        return try LoopbackRedirectListener(address: .ipv4, port: UInt16(clamping: port))
    }

    /// One line from standard input, at most ``AuthorizationResponse/maximumLength`` bytes, read on a Dispatch
    /// thread. Cancelling the task (Ctrl-C, `--timeout`) ends the wait at once; the blocked read is left to end
    /// with the process.
    private func readPaste() async throws -> StandardInput.Read {
        try Task.checkCancellation()
        let waiting = Locked<CheckedContinuation<StandardInput.Read, any Error>?>(nil)
        let stdin = context.stdin
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                waiting.withLock { $0 = continuation }
                DispatchQueue.global().async {
                    let result = Result {
                        try stdin.readOnCallingThread(limit: AuthorizationResponse.maximumLength) { $0.contains(10) }
                    }
                    waiting.withLock { slot in
                        defer { slot = nil }
                        return slot
                    }?.resume(with: result)
                }
            }
        } onCancel: {
            waiting.withLock { slot in
                defer { slot = nil }
                return slot
            }?.resume(throwing: CancellationError())
        }
    }

    /// Prints the link after `lead`, when it is safe to show (``Sanitizer/safeURI(_:)``); with `qrCode` (paste mode,
    /// where the link may be opened on another device), as the device flow's prompt shows its link: the host check's
    /// warnings against `issuer`, the host it leads to, "only continue if you started this sign-in on NAME", and a
    /// QR code of it above them by `--qr` (`PromptRenderer/lines(lead:signInLink:issuer:)`).
    /// - Throws: ``DeviceLoginError`` (``DeviceLoginError/Code/invalidResponse``) for a link that is not.
    private func show(_ link: String, _ lead: String, qrCode: Bool = false, issuer: String? = nil) throws {
        guard let safe = Sanitizer.safeURI(link) else {
            throw DeviceLoginError(
                .invalidResponse, "the server's authorization endpoint makes a link that cannot be shown safely")
        }
        guard qrCode else {
            for line in [lead, "  " + safe] { context.stderr.line(line) }
            return
        }
        let prompt = PromptRenderer(capabilities: context.terminal, qrMode: settings.qr)
        for line in prompt.lines(lead: lead, signInLink: safe, issuer: issuer) { context.stderr.line(line) }
    }
}
