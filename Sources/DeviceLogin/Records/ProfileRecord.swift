/// What a ``TokenStore`` keeps for one profile: its settings and, while signed in, its tokens.
///
/// Signing out keeps the record with ``tokens`` nil, so the profile can sign in again without being set up anew.
/// ``version`` lets a later format be told apart; a store refuses a version newer than it knows. ``revision`` tells
/// which of two copies of a profile's record is the newer one.
public struct ProfileRecord: Sendable, Hashable, Codable, StoredDecodable {
    /// The format version this library writes: 1.
    public static let currentVersion = 1

    /// The format version of the record.
    public var version: Int
    /// The profile's settings.
    public var profile: Profile
    /// The tokens, or nil when signed out.
    public var tokens: TokenSet?
    /// How many times the record has been saved: ``FileTokenStore`` sets it to one more than the record it replaces,
    /// so that a complete temporary file a killed writer left behind is known to be newer than the record in place
    /// (and recovered) or not (and deleted). 0 for a record never saved, and for one saved before revisions existed.
    public var revision: Int

    private enum CodingKeys: String, CodingKey {
        case version, profile, tokens, revision
    }

    /// Creates a record in the current format.
    /// - Parameters:
    ///   - profile: The profile.
    ///   - tokens: Its tokens, or nil when signed out.
    public init(profile: Profile, tokens: TokenSet?) {
        self.version = Self.currentVersion
        self.profile = profile
        self.tokens = tokens
        self.revision = 0
    }

    /// Reads a record in the stored form: the one reader of a profile's file, for ``FileTokenStore`` on every
    /// path — the CLI's fast lane included — and for `Codable`. One written before revisions existed has revision 0.
    /// Any ``version`` is read; the store refuses one newer than ``currentVersion`` before it reads the rest.
    /// - Throws: ``DeviceLoginError`` naming the first field that cannot be read (``JSONFields``), or the reason a
    ///   value is refused (an invalid profile name, a time outside ``TokenSet/storedTimes``).
    package init(stored fields: JSONFields) throws {
        version = try fields.integer(CodingKeys.version.rawValue)
        profile = try Profile(stored: try fields.object(CodingKeys.profile.rawValue))
        tokens = try fields.objectIfPresent(CodingKeys.tokens.rawValue).map(TokenSet.init(stored:))
        revision = try fields.integerIfPresent(CodingKeys.revision.rawValue) ?? 0
        // A revision is never negative.
        guard revision >= 0 else { throw fields.invalid(CodingKeys.revision.rawValue) }
    }

    /// The profile's name (the store's key).
    public var name: String { profile.name }

    /// Whether two records hold the same settings and tokens in the same format; the ``revision`` is the store's
    /// bookkeeping and does not count.
    public static func == (left: ProfileRecord, right: ProfileRecord) -> Bool {
        left.version == right.version && left.profile == right.profile && left.tokens == right.tokens
    }

    /// Hashes what `==` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(version)
        hasher.combine(profile)
        hasher.combine(tokens)
    }
}

extension ProfileRecord: CustomStringConvertible {
    /// A summary that shows neither tokens nor secret.
    public var description: String {
        "ProfileRecord(\(profile), tokens: \(tokens.map { "\($0)" } ?? "none"))"
    }
}
