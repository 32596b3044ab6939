/// An error from the DeviceLogin library.
///
/// A struct over a private code enum, so new codes never break a caller's `switch`. Compare codes with the
/// static members: `error.code == .accessDenied`. Equality is on the code alone; the context (message, the server's
/// ``OAuthError``, the ``TransportError``) rides along. `CancellationError` is never wrapped: it passes through.
public struct DeviceLoginError: Error, Sendable, Equatable {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String, Hashable, Sendable {
            case accessDenied, expired, oauth, transport, invalidResponse, insecureEndpoint, discovery
            case configuration, sessionEnded, noSession, storage, invalidIDToken
        }
        private let value: Value

        /// The user declined the request (RFC 8628 `access_denied`).
        public static let accessDenied = Code(value: .accessDenied)
        /// The device code expired before the user approved it, locally or by `expired_token`.
        public static let expired = Code(value: .expired)
        /// The server answered with another OAuth error; see ``DeviceLoginError/oauthError``.
        public static let oauth = Code(value: .oauth)
        /// The network or server failed and retrying did not help; see ``DeviceLoginError/transportError``.
        public static let transport = Code(value: .transport)
        /// The server's answer could not be understood (malformed JSON, a required field missing).
        public static let invalidResponse = Code(value: .invalidResponse)
        /// An endpoint is not HTTPS and plain HTTP was not allowed.
        public static let insecureEndpoint = Code(value: .insecureEndpoint)
        /// The server's metadata could not be fetched or does not fit the issuer.
        public static let discovery = Code(value: .discovery)
        /// The client's configuration is incomplete or contradictory.
        public static let configuration = Code(value: .configuration)
        /// The refresh token was rejected (`invalid_grant`): the session is over; sign in again.
        public static let sessionEnded = Code(value: .sessionEnded)
        /// There is no signed-in session.
        public static let noSession = Code(value: .noSession)
        /// Token storage failed (unreadable, corrupt or unsafe file).
        public static let storage = Code(value: .storage)
        /// The ID token is malformed or its `iss`, `aud` or `exp` do not fit.
        public static let invalidIDToken = Code(value: .invalidIDToken)

        public var description: String { value.rawValue }
    }

    /// The kind of failure.
    public var code: Code
    /// What happened, in words a person understands. Never contains a token or secret.
    public var message: String
    /// What to try next, when there is advice.
    public var hint: String?
    /// The server's OAuth error, when one caused this.
    public var oauthError: OAuthError?
    /// The transport failure, when one caused this.
    public var transportError: TransportError?

    /// Creates an error.
    public init(
        _ code: Code,
        _ message: String,
        hint: String? = nil,
        oauthError: OAuthError? = nil,
        transportError: TransportError? = nil
    ) {
        self.code = code
        self.message = message
        self.hint = hint
        self.oauthError = oauthError
        self.transportError = transportError
    }

    public static func == (lhs: DeviceLoginError, rhs: DeviceLoginError) -> Bool {
        lhs.code == rhs.code
    }
}

extension DeviceLoginError: Hashable {
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}

extension DeviceLoginError: CustomStringConvertible {
    /// The message, followed by the hint when there is one.
    public var description: String {
        hint.map { "\(message) (\($0))" } ?? message
    }
}

extension DeviceLoginError {
    /// Wraps a transport failure: an insecure URL becomes ``Code/insecureEndpoint``, the rest ``Code/transport``.
    static func wrapping(_ error: TransportError, while action: String) -> DeviceLoginError {
        if error.kind == .insecureURL {
            return DeviceLoginError(.insecureEndpoint, error.message, transportError: error)
        }
        return DeviceLoginError(
            .transport, "\(action) failed: \(error.message)",
            hint: "check the network and the server address, then try again",
            transportError: error
        )
    }

    /// The device code expired before the user approved it: at the local deadline, or by `expired_token`.
    static func codeExpired(oauthError: OAuthError?) -> DeviceLoginError {
        DeviceLoginError(
            .expired, "the code expired before it was approved", hint: "run the command again to get a new code",
            oauthError: oauthError
        )
    }

    /// An OAuth error from the server while doing `action`, in words.
    static func server(_ error: OAuthError, while action: String) -> DeviceLoginError {
        DeviceLoginError(.oauth, "the server refused \(action): \(error.summary)", oauthError: error)
    }
}
