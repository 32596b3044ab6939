/// What a ``TokenStore`` keeps for one profile: its settings and, while signed in, its tokens.
///
/// Signing out keeps the record with ``tokens`` nil, so the profile can sign in again without being set up anew.
/// ``version`` lets a later format be told apart; a store refuses a version newer than it knows. ``revision`` tells
/// which of two copies of a profile's record is the newer one.
public struct ProfileRecord: Sendable, Hashable, Codable {
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

    /// Reads a record; one written before revisions existed has revision 0.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        version = try container.decode(Int.self, forKey: .version)
        profile = try container.decode(Profile.self, forKey: .profile)
        tokens = try container.decodeIfPresent(TokenSet.self, forKey: .tokens)
        revision = try container.decodeIfPresent(Int.self, forKey: .revision) ?? 0
        guard revision >= 0 else {
            throw DecodingError.dataCorruptedError(
                forKey: .revision, in: container, debugDescription: "a revision is never negative")
        }
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
