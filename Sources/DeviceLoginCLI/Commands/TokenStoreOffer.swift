import DeviceLogin

/// What the machine offers for a `--store` request (``TokenStoreChoice/Offer``), found by asking only the stores the
/// request may use: `auto` and `secret-service` ask the Secret Service (loading libsecret only when a session bus is
/// there), `keyring` asks the kernel, `file` asks nothing. The one probe of `login` and `store --to`.
struct TokenStoreOffer {
    /// The offer, for ``TokenStoreChoice/choose(_:offer:)``.
    var offer: TokenStoreChoice.Offer
    /// Why no Secret Service can be used, when none can: for the person, without any secret.
    var secretServiceReason: String?
    /// Whether the service was let prompt to unlock its collection (and so, when it is still locked, the person
    /// dismissed the prompt or could not answer it).
    var askedToUnlock = false

    /// Probes for `request`. An explicit `secret-service` request with a person at the terminal
    /// (``Interactivity/personCanAnswer(_:)``) lets the service prompt to unlock a locked collection.
    static func probe(_ request: TokenStoreRequest, store: FileTokenStore, context: CLIContext) async -> Self {
        var availability = SecretServiceTokenStore.Availability.absent(reason: "not asked")
        let unlock = request == .exactly(.secretService) && Interactivity.personCanAnswer(context)
        if request == .auto || request == .exactly(.secretService) {
            availability = await SecretServiceTokenStore.availability(unlock: unlock, environment: context.environment)
        }
        var reason: String?
        if case .absent(let why) = availability { reason = why }
        return TokenStoreOffer(
            offer: TokenStoreChoice.Offer(
                secretServiceUnlocked: availability == .unlocked, secretServiceAnswers: reason == nil,
                keyringUsable: request == .exactly(.keyring) && store.keyringStore.isUsable()),
            secretServiceReason: request == .exactly(.keyring) || request == .exactly(.file) ? nil : reason,
            askedToUnlock: unlock)
    }
}
