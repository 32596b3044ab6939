#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The stored form: snake_case names like the wire, and times as Unix seconds (like JWT `exp`), whatever date
/// strategy the encoder has, so files stay readable by people and by older or newer versions.
extension TokenSet: Codable {
    /// The keys beyond those of the main access token, which are read and written as a ``ResourceToken``'s.
    enum CodingKeys: String, CodingKey {
        case refreshToken = "refresh_token"
        case idToken = "id_token"
        case resourceTokens = "resources"
    }

    /// Reads a token set in the stored form.
    public init(from decoder: Decoder) throws {
        let main = try ResourceToken(from: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            accessToken: main.accessToken, tokenType: main.tokenType, expiresAt: main.expiresAt,
            refreshToken: try container.decodeIfPresent(String.self, forKey: .refreshToken),
            idToken: try container.decodeIfPresent(String.self, forKey: .idToken),
            scope: main.scope, issuedAt: main.issuedAt,
            resourceTokens: try container.decodeIfPresent([String: ResourceToken].self, forKey: .resourceTokens) ?? [:]
        )
    }

    /// Writes the token set in the stored form.
    public func encode(to encoder: Encoder) throws {
        let main = ResourceToken(
            accessToken: accessToken, tokenType: tokenType, expiresAt: expiresAt, scope: scope, issuedAt: issuedAt
        )
        try main.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(refreshToken, forKey: .refreshToken)
        try container.encodeIfPresent(idToken, forKey: .idToken)
        if !resourceTokens.isEmpty { try container.encode(resourceTokens, forKey: .resourceTokens) }
    }
}

extension TokenSet.ResourceToken: Codable {
    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case tokenType = "token_type"
        case expiresAt = "expires_at"
        case scope
        case issuedAt = "issued_at"
    }

    /// Reads a resource token in the stored form.
    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            accessToken: try container.decode(String.self, forKey: .accessToken),
            tokenType: try container.decode(String.self, forKey: .tokenType),
            expiresAt: try container.decodeIfPresent(Double.self, forKey: .expiresAt).map(Date.init(unixSeconds:)),
            scope: try container.decodeIfPresent(String.self, forKey: .scope),
            issuedAt: Date(unixSeconds: try container.decode(Double.self, forKey: .issuedAt))
        )
    }

    /// Writes the resource token in the stored form.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(accessToken, forKey: .accessToken)
        try container.encode(tokenType, forKey: .tokenType)
        try container.encodeIfPresent(expiresAt?.timeIntervalSince1970, forKey: .expiresAt)
        try container.encodeIfPresent(scope, forKey: .scope)
        try container.encode(issuedAt.timeIntervalSince1970, forKey: .issuedAt)
    }
}

extension TokenSet.ResourceToken: CustomStringConvertible {
    /// A summary that never shows the token.
    public var description: String {
        "ResourceToken(tokenType: \(tokenType), expiresAt: "
            + "\(expiresAt.map { "\($0.timeIntervalSince1970)" } ?? "unknown"), scope: \(scope ?? "nil"))"
    }
}

extension Date {
    /// A date from Unix seconds (seconds since 1970-01-01T00:00:00Z).
    init(unixSeconds: Double) {
        self.init(timeIntervalSince1970: unixSeconds)
    }
}
