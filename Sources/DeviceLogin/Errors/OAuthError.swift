#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An OAuth error response from the server (RFC 6749 §5.2, RFC 8628 §3.5, RFC 7009 §2.2.1).
///
/// Server errors are data: the open ``Code``, the description and URI, the HTTP status and a bounded copy of the
/// body, so a caller can show or log what the server said — except any secret this process holds
/// (``KnownSecrets``), which is replaced by a marker when the error is made, wherever the server repeated it.
public struct OAuthError: Error, Sendable, Hashable {
    /// An OAuth error code: an open set with the registered codes as static members.
    public struct Code: RawRepresentable, Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
        /// The code as sent (`error`).
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(stringLiteral value: String) { self.rawValue = value }
        public var description: String { rawValue }

        /// RFC 6749 §5.2.
        public static let invalidRequest: Code = "invalid_request"
        /// RFC 6749 §5.2.
        public static let invalidClient: Code = "invalid_client"
        /// RFC 6749 §5.2: the grant (device code or refresh token) is invalid, expired or revoked.
        public static let invalidGrant: Code = "invalid_grant"
        /// RFC 6749 §5.2.
        public static let unauthorizedClient: Code = "unauthorized_client"
        /// RFC 6749 §5.2.
        public static let unsupportedGrantType: Code = "unsupported_grant_type"
        /// RFC 6749 §5.2.
        public static let invalidScope: Code = "invalid_scope"
        /// RFC 8628 §3.5: the user has not finished yet; keep polling.
        public static let authorizationPending: Code = "authorization_pending"
        /// RFC 8628 §3.5: keep polling, and add 5 seconds to the interval for this and every later request.
        public static let slowDown: Code = "slow_down"
        /// RFC 8628 §3.5: the user declined.
        public static let accessDenied: Code = "access_denied"
        /// RFC 8628 §3.5: the device code expired; start again.
        public static let expiredToken: Code = "expired_token"
        /// RFC 7009 §2.2.1: the server does not revoke this token type.
        public static let unsupportedTokenType: Code = "unsupported_token_type"
        /// RFC 6750 §3.1: the access token is expired, revoked or malformed.
        public static let invalidToken: Code = "invalid_token"
        /// RFC 8707 §2: the resource is not valid or not allowed.
        public static let invalidTarget: Code = "invalid_target"
        /// RFC 9449 §5, §7.1: the DPoP proof is missing, malformed, or made with another key.
        public static let invalidDPoPProof: Code = "invalid_dpop_proof"
        /// RFC 9449 §8, §9: send the request again with the nonce of the `DPoP-Nonce` header.
        public static let useDPoPNonce: Code = "use_dpop_nonce"
    }

    /// How much of the raw body is kept: 4 KiB.
    public static let maximumBodyCopy = 4096

    /// `error`.
    public var code: Code
    /// `error_description`, if sent.
    public var description: String?
    /// `error_uri`, if sent.
    public var uri: String?
    /// The HTTP status of the response that carried the error.
    public var httpStatus: Int
    /// At most ``maximumBodyCopy`` bytes of the body as text, for diagnostics.
    public var body: String
    /// Any other fields the server sent (GitHub's `interval` with `slow_down`, for example).
    public var additionalFields: JSONObject

    /// Creates an error value.
    public init(
        code: Code,
        description: String? = nil,
        uri: String? = nil,
        httpStatus: Int = 400,
        body: String = "",
        additionalFields: JSONObject = [:]
    ) {
        // A server may repeat what it was sent: no secret this process holds survives into the error.
        self.code = code
        self.description = KnownSecrets.scrub(description)
        self.uri = KnownSecrets.scrub(uri)
        self.httpStatus = httpStatus
        self.body = KnownSecrets.scrub(String(body.utf8.prefix(Self.maximumBodyCopy)) ?? "")
        self.additionalFields = additionalFields.mapValues(Self.scrubbed)
    }

    /// `value` with every known secret scrubbed from its strings, at any depth.
    private static func scrubbed(_ value: JSONValue) -> JSONValue {
        switch value {
        case .string(let text): return .string(KnownSecrets.scrub(text))
        case .array(let values): return .array(values.map(scrubbed))
        case .object(let members): return .object(members.mapValues(scrubbed))
        default: return value
        }
    }

    /// Reads an error from a response's fields, when they carry an `error` member.
    /// - Parameters:
    ///   - object: The decoded body (JSON, or form fields).
    ///   - httpStatus: The response status.
    ///   - body: The raw body, of which a bounded copy is kept.
    /// - Returns: The error, or nil when `object` has no string `error` member.
    public init?(jsonObject object: JSONObject, httpStatus: Int, body: Data) {
        guard let code = object.string("error") else { return nil }
        self.init(
            code: Code(rawValue: code),
            description: object.string("error_description"),
            uri: object.string("error_uri"),
            httpStatus: httpStatus,
            body: String(decoding: body.prefix(Self.maximumBodyCopy), as: UTF8.self),
            additionalFields: object.excluding(["error", "error_description", "error_uri"])
        )
    }

    /// The `interval` a server sent along with `slow_down` (GitHub does), if any, read as the device authorization
    /// response's is: a fraction rounded up, anything above ``DeviceAuthorizationResponse/maximumInterval`` as it.
    public var interval: Int? {
        let kind = WireKind.waitSeconds(atMost: WireKind.maximumInterval)
        return kind.first(["interval"], in: additionalFields)
    }
}

extension OAuthError {
    /// A one-line summary: the code and, if sent, the description.
    public var summary: String {
        if let description, !description.isEmpty { return "\(code.rawValue): \(description)" }
        return code.rawValue
    }
}
