import DeviceLogin

/// `device-login dpop-proof [--profile P] --url U [--method M] [--nonce N]`: prints one DPoP proof (RFC 9449 §4) for
/// a request to a resource server with the profile's access token, for scripts.
///
/// The proof carries `ath`, the hash of the access token the profile holds once it is fresh (refreshed first when
/// it would expire within 60 s, as `token` does), so a script asks for the token after the proof:
/// `device-login token` then prints that same token.
enum DPoPProofCommand {
    static let spec = CommandSpec(
        name: "dpop-proof",
        summary: "Print a DPoP proof for one request with the access token of a profile signed in with --dpop.",
        options: HelperSession.options + [
            .value("url", "URL", "The URL of the request (its query and fragment are left out of the proof)."),
            .value("method", "METHOD", "The method of the request (default GET)."),
            .value(
                "nonce", "NONCE",
                "The resource server's DPoP-Nonce, when it answered use_dpop_nonce (RFC 9449 §9)."),
        ],
        discussion: """
            Prints one line on stdout: a DPoP proof (a signed JWT) for the request, bound to the profile's
            access token by its hash. Send it with the token, as RFC 9449 §7.1 says:
              Authorization: DPoP <token>
              DPoP: <proof>
            The access token is refreshed first when it expires within 60 s, so ask for the token after the
            proof (`device-login token` then prints the same one). A proof is good for one request, once,
            for about a minute: make a new one for every request. When the server answers 401 with
            `WWW-Authenticate: DPoP error="use_dpop_nonce"` and a DPoP-Nonce header, make a new proof with
            --nonce and send the request again. `curl-config --url` does all of this for curl, and keeps
            the token out of command lines.
            The profile must have been signed in with --dpop (exit 78 otherwise); without a usable sign-in
            it fails at once (exit 77).
            """,
        exitCodes: ExitCode.session,
        run: run
    )

    @Sendable static func run(_ options: ParsedOptions, _ context: CLIContext) async throws -> ExitCode {
        let (target, nonce) = try request(options)
        let session = try await HelperSession.open(options, command: "dpop-proof", context: context)
        try session.requireDPoP(for: "a DPoP proof")
        let authorization = try await session.authorization(for: target, nonce: nonce)
        guard let proof = authorization.proof else {
            throw DeviceLoginError(
                .invalidResponse, "the tokens of profile '\(session.profile.name)' are not DPoP-bound",
                hint: "sign in again with DPoP")
        }
        try context.stdout.line(proof)
        return .success
    }

    /// The request the proof is for (`--url`, `--method`) and the server's nonce (`--nonce`).
    /// - Throws: ``UsageError`` without `--url`, for a target ``RequestTarget`` refuses, or a malformed nonce.
    static func request(_ options: ParsedOptions) throws -> (target: RequestTarget, nonce: String?) {
        guard let target = try RequestTarget.read(options, command: "dpop-proof") else {
            throw UsageError("dpop-proof needs --url, the URL of the request", command: "dpop-proof")
        }
        let nonce = options.value("nonce")
        if let nonce, !DPoPProver.isWellFormedNonce(nonce) {
            throw UsageError(
                "--nonce must be the server's DPoP-Nonce: printable ASCII without spaces, quotes or backslashes",
                command: "dpop-proof")
        }
        return (target, nonce)
    }
}
