#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The claims of an OpenID Connect ID token (OpenID Connect Core 1.0 §2 and §5.1).
///
/// ``init(idToken:)`` decodes the payload of the JWT; ``validate(issuer:clientID:now:leeway:)`` applies the
/// checks of §3.1.3.7 that need no key: `iss` equals the issuer, `aud` contains the client ID (and `azp`, when
/// present, is the client ID), `exp` is in the future.
///
/// - Important: This type decodes; it does **not verify the signature**. For an identity to show or trust, use
///   ``IDTokenVerifier`` or ``TokenState/verifiedIDTokenClaims()``, which also check the signature against the
///   issuer's key.
///
/// ```swift
/// let claims = try IDTokenClaims(idToken: tokens.idToken ?? "")
/// try claims.validate(issuer: "https://auth.example.com", clientID: "cli", now: .now)
/// print(claims.preferredUsername ?? claims.subject)
/// ```
public struct IDTokenClaims: WireMapped, Hashable {
    /// The longest ID token decoded: 64 KiB (group claims make some large).
    public static let maximumTokenBytes = 64 * 1024
    /// The default leeway for `exp`: 60 seconds of clock difference between client and server.
    public static let defaultLeeway = Duration.seconds(60)

    /// `iss`: who issued the token.
    public var issuer: String
    /// `sub`: the user's identifier at the issuer.
    public var subject: String
    /// `aud`: the audiences, from a string or an array.
    public var audience: [String]
    /// `exp`: when the token expires.
    public var expiresAt: Date
    /// `iat`: when it was issued.
    public var issuedAt: Date
    /// `auth_time`: when the user authenticated, if sent.
    public var authTime: Date?
    /// `nonce`, if sent.
    public var nonce: String?
    /// `azp`: the party the token was issued to, if sent.
    public var authorizedParty: String?
    /// `name`, if sent.
    public var name: String?
    /// `given_name`, if sent.
    public var givenName: String?
    /// `family_name`, if sent.
    public var familyName: String?
    /// `preferred_username`, if sent.
    public var preferredUsername: String?
    /// `email`, if sent.
    public var email: String?
    /// `email_verified`, if sent.
    public var emailVerified: Bool?
    /// Every other claim, as sent.
    public var additionalClaims: JSONObject

    /// The claims (OpenID Connect Core §2, §5.1), in the order they are checked.
    /// ``WireMapped`` reads and writes the message by this table.
    static let wire = WireMapping<Self>(
        start: Self(), unknown: \.additionalClaims, setUnknown: { $0.additionalClaims = $1 },
        missing: { DeviceLoginError(.invalidIDToken, "the ID token has no \($0) claim") },
        fields: [
            .required("iss", \.issuer, .string) { $0.issuer = $1 },
            .required("sub", \.subject, .string) { $0.subject = $1 },
            .required("aud", \.audience, .audience) { $0.audience = $1 },
            .required("exp", \.expiresAt, .numericDate) { $0.expiresAt = $1 },
            .required("iat", \.issuedAt, .numericDate) { $0.issuedAt = $1 },
            .optional("auth_time", \.authTime, .numericDate) { $0.authTime = $1 },
            .optional("nonce", \.nonce, .string) { $0.nonce = $1 },
            .optional("azp", \.authorizedParty, .string) { $0.authorizedParty = $1 },
            .optional("name", \.name, .string) { $0.name = $1 },
            .optional("given_name", \.givenName, .string) { $0.givenName = $1 },
            .optional("family_name", \.familyName, .string) { $0.familyName = $1 },
            .optional("preferred_username", \.preferredUsername, .string) { $0.preferredUsername = $1 },
            .optional("email", \.email, .string) { $0.email = $1 },
            .optional("email_verified", \.emailVerified, .boolean) { $0.emailVerified = $1 },
        ]
    )

    /// Reads the claims, each claim a check uses of the type OpenID Connect Core §2 gives it (`iss`, `sub`,
    /// `nonce` and `azp` strings, `sub` at most 255 ASCII characters; `aud` a string or an array of strings; `exp`,
    /// `iat` and `auth_time` JSON numbers). The lenient readers of other messages would take `"exp": "1900000000"`
    /// or `"sub": 42`; an ID token is signed by its issuer, which has no excuse, and a claim of another type is not
    /// the claim the checks think they read.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/invalidIDToken`` naming the first claim of
    ///   the wrong type, or the first required claim missing.
    public init(jsonObject object: JSONObject) throws {
        if let problem = Self.typeProblem(in: object) { throw DeviceLoginError(.invalidIDToken, problem) }
        self = try Self.wire.decode(object)
    }

    /// The longest `sub`: 255 ASCII characters (OpenID Connect Core §2: "It MUST NOT exceed 255 ASCII characters
    /// in length").
    public static let maximumSubjectLength = 255

    /// Why a claim the checks use has the wrong JSON type, naming it; nil when every one present is well typed.
    /// A required claim that is absent is left to the table, which names it as missing.
    static func typeProblem(in object: JSONObject) -> String? {
        for (name, expected) in Self.claimTypes {
            guard let value = object[name] else { continue }
            if !expected.admits(value) {
                return "the ID token's \(name) claim is \(Self.typeName(of: value)), not \(expected.description) "
                    + "(OpenID Connect Core §2)"
            }
        }
        if case .string(let subject)? = object["sub"],
            subject.utf8.count > Self.maximumSubjectLength || !subject.utf8.allSatisfy({ $0 < 0x80 })
        {
            return "the ID token's sub claim is not at most \(Self.maximumSubjectLength) ASCII characters "
                + "(OpenID Connect Core §2)"
        }
        return nil
    }

    /// The JSON type a claim must have.
    private enum ClaimType: CustomStringConvertible {
        case string, number, audience

        func admits(_ value: JSONValue) -> Bool {
            switch (self, value) {
            case (.string, .string), (.audience, .string): return true
            case (.number, .number(let number)): return number.isFinite
            case (.audience, .array(let members)):
                return !members.isEmpty && members.allSatisfy { if case .string = $0 { true } else { false } }
            default: return false
            }
        }

        var description: String {
            switch self {
            case .string: return "a string"
            case .number: return "a number"
            case .audience: return "a string or a non-empty array of strings"
            }
        }
    }

    /// The claims the checks use and their types, in the order they are checked.
    private static let claimTypes: [(String, ClaimType)] = [
        ("iss", .string), ("sub", .string), ("aud", .audience), ("exp", .number), ("iat", .number),
        ("auth_time", .number), ("nonce", .string), ("azp", .string),
    ]

    /// The JSON type of `value`, in words: "a string", "a number".
    private static func typeName(of value: JSONValue) -> String {
        switch value {
        case .string: return "a string"
        case .number: return "a number"
        case .bool: return "a boolean"
        case .array: return "an array"
        case .object: return "an object"
        case .null: return "null"
        }
    }

    /// The value decoding starts from: every required claim is overwritten, or decoding fails.
    private init() {
        issuer = ""
        subject = ""
        audience = []
        expiresAt = Date(unixSeconds: 0)
        issuedAt = Date(unixSeconds: 0)
        additionalClaims = [:]
    }

    /// Decodes the payload of an ID token, without checking it.
    /// - Parameter idToken: The JWT in compact serialization.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/invalidIDToken`` when it is not a JWT, is
    ///   longer than ``maximumTokenBytes``, or lacks a required claim.
    public init(idToken: String) throws {
        let jwt = try CompactJWT(idToken, maximumBytes: Self.maximumTokenBytes)
        try self.init(jsonObject: jwt.payload)
    }

    /// Applies the checks of OpenID Connect Core §3.1.3.7 that need no key.
    ///
    /// The issuer comparison ignores one trailing slash, as discovery does (some providers add or drop it).
    /// - Parameters:
    ///   - issuer: The expected issuer; nil skips the check (the issuer is not known).
    ///   - clientID: The client ID, which `aud` must contain ("MUST reject ... if the ID Token does not list the
    ///     Client as a valid audience"); when `azp` is present it must equal the client ID.
    ///   - now: The current time, from the caller's injected clock.
    ///   - leeway: Clock difference tolerated on `exp`; default ``defaultLeeway``.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/invalidIDToken`` saying which check failed.
    public func validate(issuer: String?, clientID: String, now: Date, leeway: Duration = defaultLeeway) throws {
        if let issuer, !Discovery.sameIssuer(self.issuer, issuer) {
            throw DeviceLoginError(
                .invalidIDToken, "the ID token was issued by \(self.issuer), not by \(issuer)",
                hint: "sign in again; if this persists, check the profile's issuer"
            )
        }
        guard audience.contains(clientID) else {
            throw DeviceLoginError(
                .invalidIDToken, "the ID token is for \(audience.joined(separator: ", ")), not for client \(clientID)"
            )
        }
        if let authorizedParty, authorizedParty != clientID {
            throw DeviceLoginError(
                .invalidIDToken, "the ID token was issued to \(authorizedParty) (azp), not to client \(clientID)"
            )
        }
        // §3.1.3.7 item 9: "The current time MUST be before the time represented by the exp Claim (possibly
        // allowing for some small leeway to account for clock skew)."
        guard now < expiresAt.addingTimeInterval(leeway.timeInterval) else {
            throw DeviceLoginError(
                .invalidIDToken, "the ID token expired at \(expiresAt.timeIntervalSince1970) (Unix time)",
                hint: "refresh or sign in again"
            )
        }
    }
}

extension IDTokenClaims: CustomStringConvertible {
    /// The issuer, subject and audience; never the token.
    public var description: String {
        "IDTokenClaims(iss: \(issuer), sub: \(subject), aud: \(audience), exp: \(expiresAt.timeIntervalSince1970))"
    }
}
