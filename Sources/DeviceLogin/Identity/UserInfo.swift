#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A UserInfo response (OpenID Connect Core 1.0 §5.3.2): the standard claims typed, the rest kept.
///
/// ```swift
/// let info = try await state.userInfo()
/// print(info.email ?? info.subject)
/// ```
public struct UserInfo: WireMapped, Hashable {
    /// `sub`: the user's identifier; always present (§5.3.2: "The sub Claim MUST always be returned").
    public var subject: String
    /// `name`, if sent.
    public var name: String?
    /// `given_name`, if sent.
    public var givenName: String?
    /// `family_name`, if sent.
    public var familyName: String?
    /// `nickname`, if sent.
    public var nickname: String?
    /// `preferred_username`, if sent.
    public var preferredUsername: String?
    /// `picture` (a URL), if sent.
    public var picture: String?
    /// `email`, if sent.
    public var email: String?
    /// `email_verified`, if sent.
    public var emailVerified: Bool?
    /// `phone_number`, if sent.
    public var phoneNumber: String?
    /// `phone_number_verified`, if sent.
    public var phoneNumberVerified: Bool?
    /// `locale`, if sent.
    public var locale: String?
    /// `updated_at`, if sent.
    public var updatedAt: Date?
    /// Every other claim, as sent (`address`, `groups`, provider extensions...).
    public var additionalClaims: JSONObject

    /// The claims (OpenID Connect Core §5.1), in the order they are checked.
    /// ``WireMapped`` reads and writes the message by this table.
    static let wire = WireMapping<Self>(
        start: Self(subject: ""), unknown: \.additionalClaims, setUnknown: { $0.additionalClaims = $1 },
        missing: { DeviceLoginError(.invalidResponse, "the userinfo response has no \($0) claim") },
        fields: [
            .required("sub", \.subject, .string) { $0.subject = $1 },
            .optional("name", \.name, .string) { $0.name = $1 },
            .optional("given_name", \.givenName, .string) { $0.givenName = $1 },
            .optional("family_name", \.familyName, .string) { $0.familyName = $1 },
            .optional("nickname", \.nickname, .string) { $0.nickname = $1 },
            .optional("preferred_username", \.preferredUsername, .string) { $0.preferredUsername = $1 },
            .optional("picture", \.picture, .string) { $0.picture = $1 },
            .optional("email", \.email, .string) { $0.email = $1 },
            .optional("email_verified", \.emailVerified, .boolean) { $0.emailVerified = $1 },
            .optional("phone_number", \.phoneNumber, .string) { $0.phoneNumber = $1 },
            .optional("phone_number_verified", \.phoneNumberVerified, .boolean) { $0.phoneNumberVerified = $1 },
            .optional("locale", \.locale, .string) { $0.locale = $1 },
            .optional("updated_at", \.updatedAt, .numericDate) { $0.updatedAt = $1 },
        ]
    )

    /// Creates a value with a subject and, optionally, other claims.
    public init(subject: String, name: String? = nil, email: String? = nil, additionalClaims: JSONObject = [:]) {
        self.subject = subject
        self.name = name
        self.email = email
        self.additionalClaims = additionalClaims
    }
}
