#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The tokens of one signed-in session, with absolute expiry times.
///
/// Built from a ``TokenResponse`` and the moment it arrived (from an injected `now`): `expires_in` is relative on
/// the wire (RFC 6749 §5.1), so the absolute ``expiresAt`` is computed once, when the response is stored, and the
/// set stays meaningful after it is written to disk and read back by another process.
///
/// Access tokens for other resources (RFC 8707), obtained by refreshing with a `resource` parameter, are kept in
/// ``resourceTokens`` beside the main one.
///
/// The ``description`` never shows a token:
/// ```swift
/// let tokens = TokenSet(response: response, receivedAt: now())
/// print(tokens)  // TokenSet(tokenType: Bearer, expiresAt: ..., refreshToken: yes, idToken: yes, ...)
/// ```
public struct TokenSet: Sendable, Hashable {
    /// An access token restricted to one resource (RFC 8707 §2.2), with its own expiry and scope.
    public struct ResourceToken: Sendable, Hashable {
        /// The access token.
        public var accessToken: String
        /// `token_type` as sent.
        public var tokenType: String
        /// When the token expires, or nil when the server did not say (`expires_in` absent).
        public var expiresAt: Date?
        /// The granted scope (space-separated), when the server sent one.
        public var scope: String?
        /// When the token was received.
        public var issuedAt: Date

        /// Creates a resource token.
        /// - Parameters:
        ///   - accessToken: The token.
        ///   - tokenType: `token_type`; default `Bearer`.
        ///   - expiresAt: The absolute expiry, if known.
        ///   - scope: The granted scope.
        ///   - issuedAt: When it was received.
        public init(
            accessToken: String, tokenType: String = "Bearer", expiresAt: Date?, scope: String? = nil,
            issuedAt: Date
        ) {
            self.accessToken = accessToken
            self.tokenType = tokenType
            self.expiresAt = expiresAt
            self.scope = scope
            self.issuedAt = issuedAt
            KnownSecrets.remember(accessToken)
        }

        /// Builds a resource token from a refresh response received at `now`. It was obtained with the set's refresh
        /// token, so without a readable `expires_in` it lives ``TokenSet/assumedLifetime``.
        public init(response: TokenResponse, receivedAt now: Date) {
            self.init(
                accessToken: response.accessToken, tokenType: response.tokenType,
                expiresAt: TokenSet.expiry(of: response, receivedAt: now, renewable: true), scope: response.scope,
                issuedAt: now
            )
        }
    }

    /// The access token.
    public var accessToken: String
    /// `token_type` as sent (compare with ``isBearer``).
    public var tokenType: String
    /// When the access token expires: the arrival time plus `expires_in`. Without a readable `expires_in` (absent,
    /// or one that cannot be read as a number), the arrival time plus ``assumedLifetime`` when there is a refresh
    /// token, so the token is refreshed at its first use after that; nil when there is none, and such a token, which
    /// nothing could renew, is used until a resource server rejects it.
    public var expiresAt: Date?
    /// The refresh token, if the server issued one.
    public var refreshToken: String?
    /// The OpenID Connect ID token, if the server issued one.
    public var idToken: String?
    /// The granted scope, space-separated, as last sent by the server.
    public var scope: String?
    /// When the access token was received.
    public var issuedAt: Date
    /// Access tokens for other resources (RFC 8707), keyed by the resource indicator (an absolute URI).
    public var resourceTokens: [String: ResourceToken]
    /// The verdict on ``idToken`` (its signature and claims), when it has been judged; a new ID token clears it.
    /// Check ``IDTokenVerification/isAbout(_:)`` before believing it: ``TokenState/idTokenVerification()`` does.
    public var idTokenVerification: IDTokenVerification?

    /// Creates a token set.
    /// - Parameters:
    ///   - accessToken: The access token.
    ///   - tokenType: `token_type`; default `Bearer`.
    ///   - expiresAt: The absolute expiry of the access token, if known.
    ///   - refreshToken: The refresh token.
    ///   - idToken: The ID token.
    ///   - scope: The granted scope.
    ///   - issuedAt: When the access token was received.
    ///   - resourceTokens: Access tokens for other resources.
    ///   - idTokenVerification: The verdict on the ID token, if judged.
    public init(
        accessToken: String,
        tokenType: String = "Bearer",
        expiresAt: Date?,
        refreshToken: String? = nil,
        idToken: String? = nil,
        scope: String? = nil,
        issuedAt: Date,
        resourceTokens: [String: ResourceToken] = [:],
        idTokenVerification: IDTokenVerification? = nil
    ) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresAt = expiresAt
        self.refreshToken = refreshToken
        self.idToken = idToken
        self.scope = scope
        self.issuedAt = issuedAt
        self.resourceTokens = resourceTokens
        self.idTokenVerification = idTokenVerification
        // Every token this process holds is a secret no message may repeat (KnownSecrets).
        KnownSecrets.remember([accessToken, refreshToken, idToken])
    }

    /// Builds a token set from a token response received at `now`.
    /// - Parameters:
    ///   - response: The token endpoint's response (device grant or refresh).
    ///   - now: When the response arrived, from the caller's injected `now`.
    public init(response: TokenResponse, receivedAt now: Date) {
        self.init(accessToken: response.accessToken, expiresAt: nil, issuedAt: now)
        take(response, receivedAt: now)
    }

    /// Whether `token_type` is `Bearer`, in any case (RFC 6749 §5.1).
    public var isBearer: Bool { Self.isBearer(tokenType) }

    /// Whether `tokenType` is `Bearer`, in any case (RFC 6749 §5.1).
    static func isBearer(_ tokenType: String) -> Bool { tokenType.lowercased() == "bearer" }

    /// The granted scopes as a list.
    public var scopes: [String] { scope?.split(separator: " ").map(String.init) ?? [] }

    /// The main access token when it stays valid until after `date`; nil when it expires by then.
    ///
    /// A token without a known expiry counts as valid.
    public func accessToken(validAfter date: Date) -> String? {
        Self.isValid(until: expiresAt, after: date) ? accessToken : nil
    }

    /// The access token for `resource` when it stays valid until after `date`; nil otherwise or when there is none.
    public func accessToken(for resource: String, validAfter date: Date) -> String? {
        guard let token = resourceTokens[resource] else { return nil }
        return Self.isValid(until: token.expiresAt, after: date) ? token.accessToken : nil
    }

    /// The set after a refresh of the main access token (RFC 6749 §6).
    ///
    /// The access token, type, expiry and issue time are replaced. A response without `refresh_token` keeps the
    /// old one (the server did not rotate it); one without `id_token` or `scope` keeps the old value too.
    /// Resource tokens are kept: they were issued separately and stay valid until they expire.
    /// - Parameters:
    ///   - response: The refresh response.
    ///   - now: When it arrived.
    public func refreshed(with response: TokenResponse, receivedAt now: Date) -> TokenSet {
        var next = self
        next.take(response, receivedAt: now)
        return next
    }

    /// The set after a refresh that asked for an access token for `resource` (RFC 8707 §2.2).
    ///
    /// Only the resource's entry changes, plus the refresh and ID tokens when the server rotated them.
    public func refreshed(with response: TokenResponse, for resource: String, receivedAt now: Date) -> TokenSet {
        var next = self
        next.resourceTokens[resource] = ResourceToken(response: response, receivedAt: now)
        next.keepRotated(from: response)
        return next
    }

    /// Takes the main access token, its type and expiry from `response`, and the scope, refresh token and ID token
    /// when it sends them: what a new set and a refreshed one both do.
    private mutating func take(_ response: TokenResponse, receivedAt now: Date) {
        KnownSecrets.remember(response.accessToken)
        accessToken = response.accessToken
        tokenType = response.tokenType
        issuedAt = now
        scope = response.scope ?? scope
        keepRotated(from: response)
        expiresAt = Self.expiry(of: response, receivedAt: now, renewable: refreshToken != nil)
    }

    private mutating func keepRotated(from response: TokenResponse) {
        KnownSecrets.remember([response.refreshToken, response.idToken])
        if let rotated = response.refreshToken { refreshToken = rotated }
        if let idToken = response.idToken {
            // The verdict was about the old ID token.
            if idToken != self.idToken { idTokenVerification = nil }
            self.idToken = idToken
        }
    }

    /// How long an access token is taken to live when the server gives no readable `expires_in` and a refresh token
    /// can renew it: one hour, the lifetime most servers give. RFC 6749 §5.1 leaves the default to the server's
    /// documentation; a bounded guess, after which the token is refreshed at its first use, is safer than using it for
    /// ever.
    public static let assumedLifetime = 3600

    /// `now + expires_in`. Without `expires_in` (absent, or unreadable, which the wire reads as absent):
    /// `now + assumedLifetime` when the token is `renewable` (a refresh token can replace it), else nil. A negative
    /// `expires_in` counts as already expired; one longer than ``TokenResponse/maximumLifetime`` (possible in a
    /// response built in code, not in one read from a server) as that long, so that the expiry stays inside
    /// ``storedTimes``.
    static func expiry(of response: TokenResponse, receivedAt now: Date, renewable: Bool) -> Date? {
        guard let seconds = response.expiresIn ?? (renewable ? assumedLifetime : nil) else { return nil }
        return now.addingTimeInterval(TimeInterval(min(max(seconds, 0), TokenResponse.maximumLifetime)))
    }

    /// Whether a token that expires at `expiresAt` is still valid after `date`; one of unknown expiry is.
    static func isValid(until expiresAt: Date?, after date: Date) -> Bool {
        expiresAt.map { $0 > date } ?? true
    }
}

extension TokenSet: CustomStringConvertible {
    /// A summary that never shows a token: the type, expiry, which tokens are present, scope and resources.
    public var description: String {
        let expiry = expiresAt.map { "\($0.timeIntervalSince1970)" } ?? "unknown"
        return "TokenSet(tokenType: \(tokenType), expiresAt: \(expiry), "
            + "refreshToken: \(refreshToken == nil ? "no" : "yes"), idToken: \(idToken == nil ? "no" : "yes"), "
            + "scope: \(scope ?? "nil"), resources: \(resourceTokens.keys.sorted()))"
    }
}
