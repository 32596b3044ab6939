import DeviceLogin

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `device-login kubectl-credential`: kubectl's exec credential plugin. Reads `KUBERNETES_EXEC_INFO`
/// (``ExecCredential``), answers an `ExecCredential` with a fresh access token on stdout, and nothing else there.
///
/// Like kubelogin, it may sign in again when the session ended — but only when kubectl allows it
/// (`spec.interactive` is not false), a person can answer (``Interactivity``), and the profile was saved (so its
/// server is known). Otherwise a missing sign-in is ``SignInNeeded`` at once (exit 77), which kubectl shows.
/// The sign-in follows the profile's remembered flow, as `login` does. It reads standard input only for a `paste`
/// sign-in: kubectl passes its own on only in interactive mode, for the plugin's prompts.
enum KubectlCredentialCommand {
    static let name = "kubectl-credential"

    static let spec = CommandSpec(
        name: name,
        summary: "kubectl's exec credential plugin: an ExecCredential with a fresh access token.",
        options: HelperSession.options + [
            .flag(
                "id-token",
                "Answer with the ID token instead of the access token, for clusters that use Kubernetes' OpenID"
                    + " Connect authenticator (as kubelogin does).")
        ],
        discussion: """
            kubectl runs it for every command (set it up in the kubeconfig, below). It reads the request in
            KUBERNETES_EXEC_INFO and prints only an ExecCredential of the apiVersion asked for (v1 or v1beta1;
            v1beta1 when the variable is not set) with status.token and status.expirationTimestamp. A valid
            stored token costs one file read and no request; one with less than 60 s left is refreshed first.

            When the profile has no tokens or its session ended, it signs in again with the profile's remembered
            flow (device, browser or paste, as login --flow), the prompt on stderr as `login` shows it, only if kubectl allows it (interactiveMode IfAvailable or
            Always, and its stdin is a terminal), stderr is a terminal and CI is not set. Otherwise, and for a
            profile that was never saved, it fails at once (exit 77) with one line naming the login command.

            Example (kubeconfig users: entry):
              - name: work
                user:
                  exec:
                    apiVersion: client.authentication.k8s.io/v1
                    command: device-login
                    args: [kubectl-credential, --profile, work]
                    interactiveMode: IfAvailable
            """,
        exitCodes: ExitCode.session + [.denied, .expired],
        run: run
    )

    @Sendable static func run(_ options: ParsedOptions, _ context: CLIContext) async throws -> ExitCode {
        // The request first: a kubeconfig that cannot work is reported whether or not anyone is signed in. As the
        // fast lane parsed it, when it did (its plan), else parsed here.
        let request =
            try context.plan?.request(as: ExecCredential.Request.self)
            ?? ExecCredential.request(from: context.environment[ExecCredential.environmentVariable])
        context.trace(
            "kubectl",
            "apiVersion \(request.apiVersion.rawValue), interactive: "
                + (request.interactive.map { String($0) } ?? "not said"))
        let credential = try await credential(options, request: request, context: context)
        try context.stdout.line(
            try ExecCredential.answer(request.apiVersion, token: credential.token, expiresAt: credential.expiresAt))
        return .success
    }

    /// The answer from the stored token, for ``FastLane``: `--profile` only, and a request that reads.
    static func fastAnswer(_ arguments: [String], process: FastLane.Process) -> FastLane.Answer? {
        guard let options = FastLane.options(arguments, for: spec, allowing: ["profile"], process: process),
            let request = process.parseRequest({
                try ExecCredential.request(from: process.environment(ExecCredential.environmentVariable))
            }),
            let (token, expiresAt) = FastLane.storedToken(
                options, lifetime: HelperSession.minimumLifetime, process: process),
            let answer = try? ExecCredential.answer(request.apiVersion, token: token, expiresAt: expiresAt)
        else { return nil }
        return FastLane.Answer(text: answer + "\n")
    }

    /// A fresh access token of the profile, signing in again first when the request and the terminal allow it.
    /// - Throws: ``SignInNeeded`` when there is no such profile, or it needs a sign-in that may not start here; the
    ///   errors of the refresh and of the sign-in.
    static func credential(
        _ options: ParsedOptions, request: ExecCredential.Request, context: CLIContext
    ) async throws -> (token: String, expiresAt: Date?) {
        let helper = try await HelperSession.open(options, command: name, context: context)
        do {
            return try await token(from: helper, options: options, context: context)
        } catch let needed as SignInNeeded {
            guard request.allowsSignIn(personCanAnswer: Interactivity.personCanAnswer(context)) else { throw needed }
            return try await signInAgain(helper, because: needed, options: options, context: context)
        }
    }

    /// Runs `login`'s device flow for the saved profile, saves the tokens to it, and gives the new access token.
    /// `login`'s confirmation goes to stderr with its prompt: stdout carries only the ExecCredential.
    static func signInAgain(
        _ helper: HelperSession, because needed: SignInNeeded, options: ParsedOptions, context: CLIContext
    ) async throws -> (token: String, expiresAt: Date?) {
        let profile = helper.profile
        let client = helper.session.state.client
        context.stderr.line(TerminalText.clean("device-login: \(needed.message); signing in again for kubectl"))
        let settings = LoginSettings(signingInAgain: profile, client: client, caFile: options.value("ca-file"))
        var signing = context
        let stderr = context.stderr
        signing.stdout = ResultSink(writer: { text in stderr.write(text) })
        let transport = context.makeTransport(TransportOptions(caFile: settings.caFile))
        let code = try await LoginCommand.perform(settings, transport: transport, context: signing)
        let store = helper.session.store
        guard code == .success, let record = try await store.load(profile: profile.name) else {
            throw SignInNeeded(profile: profile.name, saved: profile)
        }
        let session = try await SessionContext.open(
            record, store: store, options: options, secret: client.authentication.secret, context: context)
        return try await token(from: HelperSession(session: session), options: options, context: context)
    }

    /// The token kubectl gets: the access token, or with `--id-token` the ID token.
    private static func token(
        from helper: HelperSession, options: ParsedOptions, context: CLIContext
    ) async throws -> (token: String, expiresAt: Date?) {
        guard options.flag("id-token") else { return try await helper.freshToken() }
        return try await helper.freshIDToken(now: context.now)
    }
}
