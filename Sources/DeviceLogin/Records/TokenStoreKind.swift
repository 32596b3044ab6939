/// Where a profile's tokens rest (issue 21): the profile names it (stored as `"store"`), and its settings
/// stay in the profile's file whatever it is.
///
/// | kind | where | survives |
/// | --- | --- | --- |
/// | ``file`` | the profile's JSON file (0600 in a 0700 folder), readable by this user | logout and reboot |
/// | ``keyring`` | a `user` key in the user's persistent kernel keyring (``KeyringTokenStore``) | logout, not reboot |
/// | ``secretService`` | an item of the freedesktop Secret Service's default collection (``SecretServiceTokenStore``), the access token alone also in the kernel keyring | reboot (gnome-keyring keeps it on disk, encrypted) |
public enum TokenStoreKind: String, Sendable, Hashable, CaseIterable, Codable {
    /// The profile's file: today's store, and the store of every record that names none.
    case file
    /// The Linux kernel's key retention service.
    case keyring
    /// The freedesktop Secret Service over D-Bus.
    case secretService = "secret-service"

    /// Where the tokens rest, for people: "kernel keyring (persistent: survives logout, not reboot)".
    public var place: String {
        switch self {
        case .file: "profile's file (readable by this user; survives reboot)"
        case .keyring: "kernel keyring (the user's persistent keyring: survives logout, not reboot)"
        case .secretService:
            "Secret Service (its default collection; a copy of the access token alone in the kernel keyring, for "
                + "the fast path)"
        }
    }
}

/// What `login --store` asks for: a store, or `auto` (the default).
public enum TokenStoreRequest: Sendable, Hashable {
    /// The Secret Service when one answers with an unlocked default collection, else the file.
    case auto
    /// That store, or an error when it cannot be used.
    case exactly(TokenStoreKind)

    /// The words `--store` takes, in the order help shows them.
    public static let names = ["auto"] + TokenStoreKind.allCases.map(\.rawValue)

    /// The `--store` word: `auto`, or the store's name.
    public var word: String {
        switch self {
        case .auto: "auto"
        case .exactly(let kind): kind.rawValue
        }
    }

    /// Reads a `--store` word; nil for anything else.
    public init?(_ text: String) {
        if text == "auto" {
            self = .auto
        } else if let kind = TokenStoreKind(rawValue: text) {
            self = .exactly(kind)
        } else {
            return nil
        }
    }
}

/// The decision of which store a sign-in uses: a pure function of what was asked and what the machine offers, so
/// that `login`, `store` and the tests share one rule.
public enum TokenStoreChoice: Sendable, Hashable {
    /// Use this store. `announced` is true when `auto` fell back to the file: `login` then says once, plainly, that
    /// the tokens rest in a file readable by this user and how to choose otherwise.
    case use(TokenStoreKind, announced: Bool)
    /// The store asked for cannot be used here; `reason` says why, without any secret.
    case unavailable(TokenStoreKind, reason: String)

    /// What the machine offers at the moment of the choice.
    public struct Offer: Sendable, Hashable {
        /// Whether a Secret Service answers on the session bus with an unlocked default collection.
        public var secretServiceUnlocked: Bool
        /// Whether a Secret Service answers at all (its collection may be locked).
        public var secretServiceAnswers: Bool
        /// Whether the kernel keyring can be used (Linux, and the system calls are allowed).
        public var keyringUsable: Bool

        /// Creates an offer.
        public init(secretServiceUnlocked: Bool, secretServiceAnswers: Bool, keyringUsable: Bool) {
            self.secretServiceUnlocked = secretServiceUnlocked
            self.secretServiceAnswers = secretServiceAnswers || secretServiceUnlocked
            self.keyringUsable = keyringUsable
        }
    }

    /// Chooses the store for `request` given `offer`.
    ///
    /// `auto` takes the Secret Service only when its default collection is unlocked (a locked one would prompt, and
    /// a headless session has no one to answer), else the file, announced. An explicit store is used when it is
    /// there; a locked Secret Service is still used (its own prompt unlocks it when a person is there).
    public static func choose(_ request: TokenStoreRequest, offer: Offer) -> TokenStoreChoice {
        switch request {
        case .auto:
            return offer.secretServiceUnlocked ? .use(.secretService, announced: false) : .use(.file, announced: true)
        case .exactly(.file):
            return .use(.file, announced: false)
        case .exactly(.keyring):
            return offer.keyringUsable
                ? .use(.keyring, announced: false)
                : .unavailable(.keyring, reason: "the kernel keyring cannot be used here (keyctl is not permitted)")
        case .exactly(.secretService):
            return offer.secretServiceAnswers
                ? .use(.secretService, announced: false)
                : .unavailable(.secretService, reason: "no Secret Service answers on the session bus")
        }
    }
}
