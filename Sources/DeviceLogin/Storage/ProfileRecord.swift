/// What a ``TokenStore`` keeps for one profile: its settings and, while signed in, its tokens.
///
/// Signing out keeps the record with ``tokens`` nil, so the profile can sign in again without being set up anew.
/// ``version`` lets a later format be told apart; a store refuses a version newer than it knows.
public struct ProfileRecord: Sendable, Hashable, Codable {
    /// The format version this library writes: 1.
    public static let currentVersion = 1

    /// The format version of the record.
    public var version: Int
    /// The profile's settings.
    public var profile: Profile
    /// The tokens, or nil when signed out.
    public var tokens: TokenSet?

    /// Creates a record in the current format.
    /// - Parameters:
    ///   - profile: The profile.
    ///   - tokens: Its tokens, or nil when signed out.
    public init(profile: Profile, tokens: TokenSet?) {
        self.version = Self.currentVersion
        self.profile = profile
        self.tokens = tokens
    }

    /// The profile's name (the store's key).
    public var name: String { profile.name }
}

extension ProfileRecord: CustomStringConvertible {
    /// A summary that shows neither tokens nor secret.
    public var description: String {
        "ProfileRecord(\(profile), tokens: \(tokens.map { "\($0)" } ?? "none"))"
    }
}
