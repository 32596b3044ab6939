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
        start: Self(subject: ""), unknown: \.additionalClaims,
        missing: { DeviceLoginError(.invalidResponse, "the userinfo response has no \($0) claim") },
        fields: [
            .required("sub", \.subject, .string),
            .optional("name", \.name, .string),
            .optional("given_name", \.givenName, .string),
            .optional("family_name", \.familyName, .string),
            .optional("nickname", \.nickname, .string),
            .optional("preferred_username", \.preferredUsername, .string),
            .optional("picture", \.picture, .string),
            .optional("email", \.email, .string),
            .optional("email_verified", \.emailVerified, .boolean),
            .optional("phone_number", \.phoneNumber, .string),
            .optional("phone_number_verified", \.phoneNumberVerified, .boolean),
            .optional("locale", \.locale, .string),
            .optional("updated_at", \.updatedAt, .numericDate),
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
