import DeviceLogin

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension MockAuthorizationServer {
    /// How the server speaks DPoP (RFC 9449). Proofs are verified whenever a request carries one, and demanded from
    /// a client registered with ``Client/requiresDPoP``; these settings add the rest.
    ///
    /// ```swift
    /// var configuration = MockAuthorizationServer.Configuration(
    ///     clients: [.init(id: "cli", requiresDPoP: true)], dpop: .init(requiresNonce: true))
    /// ```
    public struct DPoPSettings: Sendable, Hashable {
        /// Whether the device authorization and token endpoints demand the server's nonce in every proof: a proof
        /// without the current one is answered `use_dpop_nonce` with a `DPoP-Nonce` header (RFC 9449 §8), and every
        /// answer of those endpoints carries the current nonce. Default false.
        public var requiresNonce: Bool
        /// Whether the resource endpoint demands its own nonce (RFC 9449 §9): HTTP 401 with `WWW-Authenticate:
        /// DPoP error="use_dpop_nonce"` and a `DPoP-Nonce` header. Default false.
        public var resourceRequiresNonce: Bool
        /// How far a proof's `iat` may be from the server's wall clock, either way: 60 seconds by default. A proof's
        /// `jti` is remembered for as long, and a proof that repeats one is refused.
        public var proofWindow: Duration
        /// The algorithms proofs may be signed with, as `dpop_signing_alg_values_supported` lists them. Default
        /// `ES256`.
        public var algorithms: [SignatureAlgorithm]

        /// Creates settings; every parameter has the default documented on its property.
        public init(
            requiresNonce: Bool = false, resourceRequiresNonce: Bool = false, proofWindow: Duration = .seconds(60),
            algorithms: [SignatureAlgorithm] = [.es256]
        ) {
            self.requiresNonce = requiresNonce
            self.resourceRequiresNonce = resourceRequiresNonce
            self.proofWindow = proofWindow
            self.algorithms = algorithms
        }
    }

    /// What the server made of one request's DPoP proof, as its record shows it: never the proof itself, the token
    /// it is for or a secret — the key's thumbprint, the claims that say what the proof is for, and each check.
    public struct ProofCheck: Sendable, Hashable, CustomStringConvertible {
        /// The outcome.
        public enum Verdict: Sendable, Hashable {
            /// Every check passed.
            case accepted
            /// Well made, but without the server's current nonce: answered `use_dpop_nonce` (RFC 9449 §8, §9).
            case nonceDemanded
            /// Refused (`invalid_dpop_proof`, or `invalid_token` at a resource), for this reason.
            case refused(String)
        }

        /// The outcome.
        public var verdict: Verdict
        /// The thumbprint (RFC 7638) of the proof's key, once the key could be read.
        public var thumbprint: String?
        /// `jti`.
        public var proofID: String?
        /// `htm`.
        public var method: String?
        /// `htu`.
        public var targetURI: String?
        /// `iat` minus the server's wall clock, in seconds, when `iat` could be read.
        public var age: Int64?
        /// Whether the proof carried a `nonce`.
        public var carriedNonce: Bool
        /// Whether the proof carried an `ath`.
        public var carriedAccessTokenHash: Bool
        /// The checks passed, in the order made: `typ`, `alg`, `jwk`, `signature`, `htm`, `htu`, `iat`, `jti`,
        /// then `nonce`, `ath` and `key binding` where they apply.
        public var passed: [String]

        /// Creates a record of a check.
        public init(
            verdict: Verdict, thumbprint: String? = nil, proofID: String? = nil, method: String? = nil,
            targetURI: String? = nil, age: Int64? = nil, carriedNonce: Bool = false,
            carriedAccessTokenHash: Bool = false, passed: [String] = []
        ) {
            self.verdict = verdict
            self.thumbprint = thumbprint
            self.proofID = proofID
            self.method = method
            self.targetURI = targetURI
            self.age = age
            self.carriedNonce = carriedNonce
            self.carriedAccessTokenHash = carriedAccessTokenHash
            self.passed = passed
        }

        /// Whether the proof was accepted.
        public var isAccepted: Bool { verdict == .accepted }

        /// One line: the verdict, the key's thumbprint (shortened), what the proof is for and the checks passed.
        public var description: String {
            var parts: [String]
            switch verdict {
            case .accepted: parts = ["DPoP accepted"]
            case .nonceDemanded: parts = ["DPoP needs the nonce"]
            case .refused(let reason): parts = ["DPoP refused (\(reason))"]
            }
            if let thumbprint { parts.append("jkt \(thumbprint.prefix(10))…") }
            if let method, let targetURI { parts.append("for \(method) \(targetURI)") }
            if let age { parts.append("iat \(age >= 0 ? "+" : "")\(age) s") }
            if !passed.isEmpty { parts.append("checked: " + passed.joined(separator: ", ")) }
            return parts.joined(separator: "; ")
        }
    }

    /// Makes a new nonce for the authorization server's endpoints: proofs with the old one are answered
    /// `use_dpop_nonce` with the new one (a server rotating its nonces, RFC 9449 §8).
    public func rotateDPoPNonce() {
        state.withLock { $0.rotateNonce() }
    }

    /// The current nonce of the authorization server's endpoints, once one was made.
    public var dpopNonce: String? {
        state.withLock { $0.authorizationServerNonce }
    }

    /// The thumbprint of the key an access token is bound to (its `cnf.jkt`, RFC 9449 §6), or nil for a Bearer
    /// token or an unknown one.
    public func binding(accessToken: String) -> String? {
        state.withLock { $0.accessTokens[accessToken]?.dpopKey }
    }

    /// The thumbprint of the key a refresh token is bound to (RFC 9449 §5), or nil for an unbound or unknown one.
    public func binding(refreshToken: String) -> String? {
        state.withLock { state in state.refreshTokens[refreshToken].flatMap { state.grants[$0]?.dpopKey } }
    }

    /// The DPoP-checking resource endpoint (``Paths/resource``): it answers a request with `Authorization: DPoP
    /// <token>` and a valid proof for it (`ath`, the key the token is bound to) with HTTP 200 and a small JSON object,
    /// and anything else with HTTP 401 and a `WWW-Authenticate: DPoP` challenge — for testing a client's resource
    /// requests.
    /// - Throws: `DeviceLoginError` `configuration` when the issuer is not an absolute URL.
    public func resourceEndpoint() throws -> URL {
        let (layout, paths) = state.withLock { ($0.layout, $0.configuration.paths) }
        guard let url = URL(string: layout.url(paths.resource)), url.host != nil else {
            throw DeviceLoginError(.configuration, "the mock server's issuer \(layout.issuer) is not an absolute URL")
        }
        return url
    }

    /// The record as text, one line per request: the time, method, path, answer and what the DPoP proof came to.
    /// No token, code or secret is in it.
    ///
    /// ```swift
    /// print(server.transcript())
    /// //   0.000 s  POST /device/code → 400 use_dpop_nonce; DPoP needs the nonce; jkt Nz3dQ…; …
    /// ```
    public func transcript() -> String {
        requests.map(\.description).joined(separator: "\n")
    }
}
