/// An error from the DeviceLogin library.
///
/// A struct over a private code enum, so new codes never break a caller's `switch`. Compare codes with the
/// static members: `error.code == .accessDenied`. Equality is on the code alone; the context (message, hint,
/// ``Reason``, the server's ``OAuthError``, the ``TransportError``) rides along. `CancellationError` is never
/// wrapped: it passes through.
///
/// ## Wording advice in your own terms
///
/// ``hint`` is the library's advice in words that suit any program ("sign in first", "ask for scopes the server
/// knows"): it never names a command, a flag or a program, because your users may have none of them. Where the
/// right advice depends on how your app is driven, the error also carries a ``reason``: which situation it is, with
/// the facts (the endpoint that is missing, the profile that is not signed in, the file that is locked). Word your
/// own hint from the code and the reason, and fall back on ``hint``:
///
/// ```swift
/// func advice(for error: DeviceLoginError) -> String? {
///     switch error.reason?.kind {
///     case .missingEndpoint?:
///         return "Enter the server's \(error.reason?.endpoint?.description ?? "endpoint") in Settings."
///     case .notSignedIn?:
///         return "Tap Sign In."
///     case .scopeRefused?:
///         return "Ask your administrator which permissions this app may request."
///     default:
///         return error.code == .expired ? "Tap Try Again for a new code." : error.hint
///     }
/// }
/// ```
///
/// Reasons, like codes, are open: new ones may be added, so keep a `default` case. The `device-login` tool does
/// exactly this to name its own options (`--scope`, `--token-endpoint`) and commands (`device-login login`).
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
    /// What happened, in words a person understands. Never contains a token or secret: any value
    /// ``KnownSecrets`` holds is scrubbed from it when the error is made.
    public var message: String
    /// What to try next, when there is advice, in words that suit any program: never a command, a flag or a
    /// program's name. A front end with words of its own for the situation reads ``reason``.
    public var hint: String?
    /// The situation behind the error, with its facts, for a front end that words its own advice; nil when the
    /// code, message and hint say all there is.
    public var reason: Reason?
    /// The server's OAuth error, when one caused this.
    public var oauthError: OAuthError?
    /// The transport failure, when one caused this.
    public var transportError: TransportError?

    /// Creates an error.
    /// - Parameters:
    ///   - code: The kind of failure.
    ///   - message: What happened, without tokens or secrets.
    ///   - hint: Advice that names no command, flag or program.
    ///   - reason: The situation and its facts, for front ends that word their own advice.
    ///   - oauthError: The server's OAuth error that caused this.
    ///   - transportError: The transport failure that caused this.
    public init(
        _ code: Code,
        _ message: String,
        hint: String? = nil,
        reason: Reason? = nil,
        oauthError: OAuthError? = nil,
        transportError: TransportError? = nil
    ) {
        // The message may quote a server (its error description, an HTML page): no known secret survives into it.
        self.code = code
        self.message = KnownSecrets.scrub(message)
        self.hint = KnownSecrets.scrub(hint)
        self.reason = reason
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
    /// The message, followed by the hint when there is one, with every known secret scrubbed (``KnownSecrets``).
    public var description: String {
        KnownSecrets.scrub(hint.map { "\(message) (\($0))" } ?? message)
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
            .expired, "the code expired before it was approved", hint: "start the sign-in again to get a new code",
            oauthError: oauthError
        )
    }

    /// An OAuth error from the server while doing `action`, in words.
    static func server(_ error: OAuthError, while action: String) -> DeviceLoginError {
        DeviceLoginError(.oauth, "the server refused \(action): \(error.summary)", oauthError: error)
    }
}
