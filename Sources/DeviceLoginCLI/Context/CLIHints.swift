import DeviceLogin

/// The CLI's words for the library's advice. The library's hints name no flag or command (an app that embeds it
/// has none); where an error's code and reason call for one of `device-login`'s, this is the one place that names
/// it. Everything else keeps the library's hint.
enum CLIHints {
    /// The hint `device-login` prints under `error`, or nil for none.
    static func hint(for error: DeviceLoginError) -> String? {
        switch error.reason?.kind {
        case .missingEndpoint?:
            guard let endpoint = error.reason?.endpoint, let option = endpointOptions[endpoint] else {
                return error.hint
            }
            let otherwise = endpoint == .deviceAuthorization ? ", or sign in with --flow browser or paste" : ""
            return "give the endpoint by hand (--\(option))" + otherwise
        case .scopeRefused?:
            return "ask for scopes the server knows (--scope)"
        case .notSignedIn?:
            return error.code == .sessionEnded ? "run device-login login" : "sign in first: device-login login"
        case .storeLocked?:
            return "wait for the other device-login to finish, or stop it"
        case .storeFromNewerVersion?:
            return "use a newer device-login, or move the file aside and sign in again"
        case .deviceGrantNotAllowed?:
            return (error.hint.map { $0 + "; " } ?? "") + "check that --client-id names the client you meant"
        default:
            if error.transportError?.kind == .certificateVerificationFailed { return certificateHint }
            return error.code == .expired ? "run the command again to get a new code" : error.hint
        }
    }

    /// The hint for a server certificate that could not be verified, however the failure was wrapped.
    /// The `device-login login` command that signs profile `name` in again: with the server and client it was
    /// `saved` with, or with placeholders when there is no such profile.
    static func loginCommand(profile name: String, saved: Profile?) -> String {
        var words = ["device-login", "login"]
        if name != Profile.defaultName { words += ["--profile", name] }
        guard let saved else { return (words + ["--issuer", "URL", "--client-id", "ID"]).joined(separator: " ") }
        if let issuer = saved.issuer {
            words += ["--issuer", issuer]
        } else {
            let endpoints = saved.endpoints
            if let device = endpoints.deviceAuthorization {
                words += ["--device-authorization-endpoint", device.absoluteString]
            }
            if let authorization = endpoints.authorization {
                words += ["--authorization-endpoint", authorization.absoluteString]
            }
            words += ["--token-endpoint", endpoints.token.absoluteString]
        }
        words += ["--client-id", saved.clientID]
        if let scopes = saved.scopes, !scopes.isEmpty { words += ["--scope", scopes.joined(separator: " ")] }
        if saved.usesDPoP { words.append("--dpop") }
        return words.map(shellQuoted).joined(separator: " ")
    }

    /// `word` as a POSIX shell reads it back: unchanged when it is plain, else in single quotes.
    static func shellQuoted(_ word: String) -> String {
        let plain =
            !word.isEmpty
            && word.unicodeScalars.allSatisfy { scalar in
                switch scalar {
                case "a"..."z", "A"..."Z", "0"..."9", "-", "_", ".", "/", ":", "@", "+", "=", ",", "%": return true
                default: return false
                }
            }
        guard !plain else { return word }
        return "'" + word.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }

    static let certificateHint = "if a private CA signed the server's certificate, trust it with --ca-file PEM"

    /// The `login` option that gives each endpoint by hand.
    static let endpointOptions: [DeviceLoginError.Reason.Endpoint: String] = [
        .deviceAuthorization: "device-authorization-endpoint",
        .token: "token-endpoint",
    ]
}
