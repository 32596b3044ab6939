/// How a client proves who it is at the token endpoint (RFC 6749 §2.3.1).
///
/// One type for the configuration and for what a ``Profile`` stores: a case carries the secret it needs, and
/// ``Method`` names the method without it (the `client_authentication` of a stored profile, the values of
/// `token_endpoint_auth_methods_supported` in RFC 8414 §2). An enum rather than a method and an optional secret, so
/// that a method needing a secret cannot be built without one and every `switch` over it stays exhaustive.
///
/// ```swift
/// let authentication = ClientAuthentication.clientSecretBasic(secret: secret)
/// authentication.method        // .clientSecretBasic ("client_secret_basic")
/// "\(authentication)"          // "client_secret_basic": never the secret
/// ```
public enum ClientAuthentication: Sendable, Hashable {
    /// A public client: `client_id` in the body, no secret (the usual case for device flows).
    case none
    /// `client_secret_basic`: HTTP Basic with the form-encoded client ID and secret.
    case clientSecretBasic(secret: String)
    /// `client_secret_post`: `client_id` and `client_secret` in the body.
    case clientSecretPost(secret: String)

    /// A client authentication method by its registered name (RFC 8414 §2, RFC 7591 §2), without the secret.
    public enum Method: String, Sendable, Hashable, Codable, CaseIterable {
        /// `none`: a public client, `client_id` only.
        case none
        /// `client_secret_basic`: HTTP Basic with the client ID and secret.
        case clientSecretBasic = "client_secret_basic"
        /// `client_secret_post`: `client_id` and `client_secret` in the body.
        case clientSecretPost = "client_secret_post"
    }

    /// The authentication by `method` with `secret`.
    /// - Parameters:
    ///   - method: The method.
    ///   - secret: The client secret; ignored for ``Method/none``.
    /// - Returns: nil when `method` needs a secret and `secret` is nil.
    public init?(_ method: Method, secret: String?) {
        switch (method, secret) {
        case (.none, _): self = .none
        case (.clientSecretBasic, let secret?): self = .clientSecretBasic(secret: secret)
        case (.clientSecretPost, let secret?): self = .clientSecretPost(secret: secret)
        case (.clientSecretBasic, nil), (.clientSecretPost, nil): return nil
        }
    }

    /// The method, without the secret.
    public var method: Method {
        switch self {
        case .none: return .none
        case .clientSecretBasic: return .clientSecretBasic
        case .clientSecretPost: return .clientSecretPost
        }
    }

    /// The client secret, or nil for a public client.
    public var secret: String? {
        switch self {
        case .none: return nil
        case .clientSecretBasic(let secret), .clientSecretPost(let secret): return secret
        }
    }
}

extension ClientAuthentication: CustomStringConvertible {
    /// The method's name; never the secret.
    public var description: String { method.rawValue }
}
