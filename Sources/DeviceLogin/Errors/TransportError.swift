/// A failure below HTTP: no usable response was received.
///
/// A struct over a private enum so that new kinds never break callers. Compare with the static members:
/// `error.kind == .timedOut`.
public struct TransportError: Error, Sendable, Hashable {
    /// What went wrong, as an open set of kinds.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        private enum Code: String, Hashable, Sendable {
            case dnsFailure, connectionFailed, timedOut, tlsFailure, certificateVerificationFailed, responseTooLarge
            case insecureURL, invalidResponse, other
        }
        private let code: Code

        /// The host name could not be resolved.
        public static let dnsFailure = Kind(code: .dnsFailure)
        /// The connection was refused, reset or dropped.
        public static let connectionFailed = Kind(code: .connectionFailed)
        /// The connect or total timeout elapsed.
        public static let timedOut = Kind(code: .timedOut)
        /// The TLS handshake failed for a reason other than ``certificateVerificationFailed``.
        public static let tlsFailure = Kind(code: .tlsFailure)
        /// The server's certificate could not be verified: no trusted CA (of the system, or of
        /// ``TransportOptions/caFile``) vouches for it, it does not name the host, it has expired, or the CA file
        /// could not be read.
        public static let certificateVerificationFailed = Kind(code: .certificateVerificationFailed)
        /// The response body was larger than the configured limit.
        public static let responseTooLarge = Kind(code: .responseTooLarge)
        /// The URL is plain HTTP to a host that is not loopback, and plain HTTP was not allowed.
        public static let insecureURL = Kind(code: .insecureURL)
        /// The peer answered with something that is not HTTP.
        public static let invalidResponse = Kind(code: .invalidResponse)
        /// Any other failure.
        public static let other = Kind(code: .other)

        /// Whether polling may try again after this failure (RFC 8628 §3.5: back off and retry).
        ///
        /// DNS, connection and timeout failures are transient; TLS, size, policy and protocol failures are not.
        public var isTransient: Bool {
            switch code {
            case .dnsFailure, .connectionFailed, .timedOut: return true
            case .tlsFailure, .certificateVerificationFailed, .responseTooLarge, .insecureURL, .invalidResponse, .other:
                return false
            }
        }

        /// The kind's name: `timedOut`, `certificateVerificationFailed`.
        public var description: String { code.rawValue }
    }

    /// The kind of failure.
    public var kind: Kind
    /// A readable message, without secrets (e.g. "could not resolve host auth.example.com").
    public var message: String

    /// Creates a transport error.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }
}

extension TransportError: CustomStringConvertible {
    public var description: String { message }
}
