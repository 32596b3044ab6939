import DeviceLogin

extension LoginSettings {
    /// The settings that sign a saved profile in again the way `login` first did, for a helper that may start a
    /// sign-in (`kubectl-credential`): the profile's server (its saved endpoints, so no discovery request), client,
    /// scopes and resources; the tokens saved to the same profile, which keeps its bindings and user name; its
    /// client secret stored again only if it was stored before; bound to a new DPoP key if it used one. The prompt
    /// is `login`'s: on stderr, with a QR code
    /// when the terminal fits one, waiting until the code expires.
    /// - Parameters:
    ///   - profile: The saved profile.
    ///   - client: Its client configuration with the secret, if any (``Profile/clientConfiguration(secret:)``).
    ///   - caFile: The `--ca-file` given to the helper.
    init(signingInAgain profile: Profile, client: ClientConfiguration, caFile: String?) {
        self.init(
            issuer: profile.issuer, client: client, caFile: caFile, storeSecret: profile.clientSecret != nil,
            profile: profile.name, dpop: profile.usesDPoP, savedEndpoints: profile.endpoints
        )
    }
}
