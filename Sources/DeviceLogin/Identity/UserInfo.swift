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
public struct UserInfo: JSONObjectMessage, Hashable {
    /// The claim names (OpenID Connect Core §5.1).
    public enum CodingKeys: String, CodingKey, CaseIterable {
        case subject = "sub"
        case name
        case givenName = "given_name"
        case familyName = "family_name"
        case nickname
        case preferredUsername = "preferred_username"
        case picture
        case email
        case emailVerified = "email_verified"
        case phoneNumber = "phone_number"
        case phoneNumberVerified = "phone_number_verified"
        case locale
        case updatedAt = "updated_at"
    }

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

    /// Creates a value with a subject and, optionally, other claims.
    public init(subject: String, name: String? = nil, email: String? = nil, additionalClaims: JSONObject = [:]) {
        self.subject = subject
        self.name = name
        self.email = email
        self.additionalClaims = additionalClaims
    }

    /// Reads the claims from the response body.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/invalidResponse`` when `sub` is missing.
    public init(jsonObject object: JSONObject) throws {
        guard let subject = object.string(CodingKeys.subject.rawValue) else {
            throw DeviceLoginError(.invalidResponse, "the userinfo response has no sub claim")
        }
        self.subject = subject
        name = object.string(CodingKeys.name.rawValue)
        givenName = object.string(CodingKeys.givenName.rawValue)
        familyName = object.string(CodingKeys.familyName.rawValue)
        nickname = object.string(CodingKeys.nickname.rawValue)
        preferredUsername = object.string(CodingKeys.preferredUsername.rawValue)
        picture = object.string(CodingKeys.picture.rawValue)
        email = object.string(CodingKeys.email.rawValue)
        emailVerified = object.bool(CodingKeys.emailVerified.rawValue)
        phoneNumber = object.string(CodingKeys.phoneNumber.rawValue)
        phoneNumberVerified = object.bool(CodingKeys.phoneNumberVerified.rawValue)
        locale = object.string(CodingKeys.locale.rawValue)
        updatedAt = object.date(CodingKeys.updatedAt.rawValue)
        additionalClaims = object.excluding(CodingKeys.allCases.map(\.rawValue))
    }

    /// The claims as a JSON object, unknown claims included.
    public var jsonObject: JSONObject {
        var object = additionalClaims
        object[CodingKeys.subject.rawValue] = .string(subject)
        let strings: [(CodingKeys, String?)] = [
            (.name, name), (.givenName, givenName), (.familyName, familyName), (.nickname, nickname),
            (.preferredUsername, preferredUsername), (.picture, picture), (.email, email),
            (.phoneNumber, phoneNumber), (.locale, locale),
        ]
        for (key, value) in strings {
            if let value { object[key.rawValue] = .string(value) }
        }
        if let emailVerified { object[CodingKeys.emailVerified.rawValue] = .bool(emailVerified) }
        if let phoneNumberVerified { object[CodingKeys.phoneNumberVerified.rawValue] = .bool(phoneNumberVerified) }
        if let updatedAt { object[CodingKeys.updatedAt.rawValue] = .number(updatedAt.timeIntervalSince1970) }
        return object
    }
}
