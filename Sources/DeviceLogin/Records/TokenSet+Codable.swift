#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The stored form: snake_case names like the wire, and times as Unix seconds (like JWT `exp`), whatever date
/// strategy the encoder has, so files stay readable by people and by older or newer versions.
///
/// Every time read from or written to the stored form passes ``TokenSet/storedTimes``: a file is outside input, and
/// an `expires_at` of 1e300 or 9.3e18 once made every later `status` trap. Such a value is an error that names the
/// field (the store adds the file and what to do), never a date the rest of the program must survive.
extension TokenSet: Codable, StoredDecodable {
    /// The keys beyond those of the main access token, which are read and written as a ``ResourceToken``'s.
    enum CodingKeys: String, CodingKey {
        case refreshToken = "refresh_token"
        case idToken = "id_token"
        case resourceTokens = "resources"
        case idTokenVerification = "id_token_verification"
    }

    /// Reads a token set in the stored form: part of the one reader of a profile's file
    /// (``ProfileRecord/init(stored:)``).
    /// - Throws: ``DeviceLoginError`` naming the first field that cannot be read, or a time outside
    ///   ``storedTimes``.
    package init(stored fields: JSONFields) throws {
        let main = try ResourceToken(stored: fields)
        var resourceTokens: [String: ResourceToken] = [:]
        if let resources = try fields.objectIfPresent(CodingKeys.resourceTokens.rawValue) {
            for name in resources.members.keys {
                resourceTokens[name] = try ResourceToken(stored: try resources.object(name))
            }
        }
        self.init(
            accessToken: main.accessToken, tokenType: main.tokenType, expiresAt: main.expiresAt,
            refreshToken: try fields.stringIfPresent(CodingKeys.refreshToken.rawValue),
            idToken: try fields.stringIfPresent(CodingKeys.idToken.rawValue),
            scope: main.scope, issuedAt: main.issuedAt, resourceTokens: resourceTokens,
            // A verdict that cannot be read is no verdict: the token is judged again.
            idTokenVerification: try? fields.objectIfPresent(CodingKeys.idTokenVerification.rawValue).map(
                IDTokenVerification.init(stored:))
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
        try container.encodeIfPresent(idTokenVerification, forKey: .idTokenVerification)
    }
}

extension TokenSet.ResourceToken: Codable, StoredDecodable {
    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case tokenType = "token_type"
        case expiresAt = "expires_at"
        case scope
        case issuedAt = "issued_at"
    }

    /// Reads a resource token in the stored form (the main token's fields are a token set's own).
    /// - Throws: ``DeviceLoginError`` naming the first field that cannot be read, or a time outside
    ///   ``TokenSet/storedTimes``.
    package init(stored fields: JSONFields) throws {
        self.init(
            accessToken: try fields.string(CodingKeys.accessToken.rawValue),
            tokenType: try fields.string(CodingKeys.tokenType.rawValue),
            expiresAt: try fields.storedTimeIfPresent(CodingKeys.expiresAt.rawValue),
            scope: try fields.stringIfPresent(CodingKeys.scope.rawValue),
            issuedAt: try fields.storedTime(CodingKeys.issuedAt.rawValue)
        )
    }

    /// Writes the resource token in the stored form.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(accessToken, forKey: .accessToken)
        try container.encode(tokenType, forKey: .tokenType)
        let path = container.codingPath
        try container.encodeIfPresent(
            try expiresAt.map { try TokenSet.storedSeconds($0, field: path, key: CodingKeys.expiresAt) },
            forKey: .expiresAt
        )
        try container.encodeIfPresent(scope, forKey: .scope)
        try container.encode(
            try TokenSet.storedSeconds(issuedAt, field: path, key: CodingKeys.issuedAt),
            forKey: .issuedAt
        )
    }
}

extension TokenSet.ResourceToken: CustomStringConvertible {
    /// A summary that never shows the token.
    public var description: String {
        "ResourceToken(tokenType: \(tokenType), expiresAt: "
            + "\(expiresAt.map { "\($0.timeIntervalSince1970)" } ?? "unknown"), scope: \(scope ?? "nil"))"
    }
}

extension TokenSet {
    /// The times a stored token set may hold, in Unix seconds: 1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z.
    ///
    /// Every time this library writes is inside: `issued_at` is when a response arrived, and `expires_at` at most
    /// ``TokenResponse/maximumLifetime`` after it. The last second RFC 3339 can write is the upper end, so every stored
    /// time can be printed, and differences of two of them fit an `Int` many times over.
    public static let storedTimes: ClosedRange<Double> = 0...253_402_300_799

    /// The Unix seconds of `date` for the stored form.
    /// - Throws: `EncodingError.invalidValue` when it is outside ``storedTimes``, naming the field.
    static func storedSeconds(_ date: Date, field path: [any CodingKey], key: some CodingKey) throws -> Double {
        let seconds = date.timeIntervalSince1970
        guard storedTimes.contains(seconds) else {
            throw EncodingError.invalidValue(
                seconds,
                EncodingError.Context(
                    codingPath: path + [key], debugDescription: outOfRange(seconds, field: path + [key])
                ))
        }
        return seconds
    }

    /// The one message for a time outside ``storedTimes``: the field and the value, never a token.
    static func outOfRange(_ seconds: Double, field path: [any CodingKey]) -> String {
        outOfRange(seconds, field: path.map(\.stringValue).joined(separator: "."))
    }

    /// The same message for a field named by its dotted path.
    static func outOfRange(_ seconds: Double, field: String) -> String {
        "\(field) is \(seconds), outside the times a token file holds (Unix seconds from 0 to 253402300799, "
            + "the years 1970 to 9999)"
    }
}

extension JSONFields {
    /// A time stored as Unix seconds, which must lie in ``TokenSet/storedTimes``.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/storage`` naming the field when it is missing,
    ///   not a number, or outside.
    func storedTime(_ key: String) throws -> Date {
        try storedTime(number(key), key)
    }

    /// ``storedTime(_:)`` for an optional field: nil when absent or null.
    func storedTimeIfPresent(_ key: String) throws -> Date? {
        try numberIfPresent(key).map { try storedTime($0, key) }
    }

    private func storedTime(_ seconds: Double, _ key: String) throws -> Date {
        guard TokenSet.storedTimes.contains(seconds) else {
            throw DeviceLoginError(.storage, TokenSet.outOfRange(seconds, field: name(of: key)))
        }
        return Date(unixSeconds: seconds)
    }
}

extension KeyedDecodingContainer {
    /// A time stored as Unix seconds, which must lie in ``TokenSet/storedTimes``: for the pending sign-in file, which
    /// `JSONDecoder` reads.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/storage`` naming the field when it does not;
    ///   a `DecodingError` when the value is missing or not a number.
    func decodeStoredTime(forKey key: Key) throws -> Date {
        let seconds = try decode(Double.self, forKey: key)
        guard TokenSet.storedTimes.contains(seconds) else {
            throw DeviceLoginError(.storage, TokenSet.outOfRange(seconds, field: codingPath + [key]))
        }
        return Date(unixSeconds: seconds)
    }

    /// ``decodeStoredTime(forKey:)`` for an optional field: nil when absent or null.
    func decodeStoredTimeIfPresent(forKey key: Key) throws -> Date? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        return try decodeStoredTime(forKey: key)
    }
}

extension Date {
    /// A date from Unix seconds (seconds since 1970-01-01T00:00:00Z).
    init(unixSeconds: Double) {
        self.init(timeIntervalSince1970: unixSeconds)
    }
}
