import DeviceLogin

/// The CLI's words for the library's advice. The library's hints name no flag or command (an app that embeds it
/// has none); where an error's code and reason call for one of `device-login`'s, this is the one place that names
/// it. Everything else keeps the library's hint.
enum CLIHints {
    /// The hint `device-login` prints under `error`, or nil for none.
    static func hint(for error: DeviceLoginError) -> String? {
        switch error.reason?.kind {
        case .missingEndpoint?:
            guard let option = error.reason?.endpoint.flatMap({ endpointOptions[$0] }) else { return error.hint }
            return "give the endpoint by hand (--\(option))"
        case .scopeRefused?:
            return "ask for scopes the server knows (--scope)"
        case .notSignedIn?:
            return error.code == .sessionEnded ? "run device-login login" : "sign in first: device-login login"
        case .storeLocked?:
            return "wait for the other device-login to finish, or stop it"
        case .storeFromNewerVersion?:
            return "use a newer device-login, or move the file aside and sign in again"
        default:
            if error.transportError?.kind == .certificateVerificationFailed { return certificateHint }
            return error.code == .expired ? "run the command again to get a new code" : error.hint
        }
    }

    /// The hint for a server certificate that could not be verified, however the failure was wrapped.
    static let certificateHint = "if a private CA signed the server's certificate, trust it with --ca-file PEM"

    /// The `login` option that gives each endpoint by hand.
    static let endpointOptions: [DeviceLoginError.Reason.Endpoint: String] = [
        .deviceAuthorization: "device-authorization-endpoint",
        .token: "token-endpoint",
    ]
}
