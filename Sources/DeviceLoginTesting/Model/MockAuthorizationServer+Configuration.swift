import DeviceLogin

extension MockAuthorizationServer {
    /// How a mock server is set up: where it lives, whom it knows, what it issues and how it speaks.
    ///
    /// Every property has a documented default, so a test states only what it cares about:
    ///
    /// ```swift
    /// var configuration = MockAuthorizationServer.Configuration()
    /// configuration.dialect = .github
    /// configuration.defaultScript = .approve(afterPolls: 2)
    /// let server = MockAuthorizationServer(configuration: configuration, clock: clock)
    /// ```
    public struct Configuration: Sendable {
        /// The client ID of the one client known by default: `test-client`, a public client.
        public static let defaultClientID = "test-client"

        /// The issuer identifier, which is also the base URL of every endpoint. Default
        /// `https://auth.example.test`. A ``LoopbackServer`` replaces its scheme, host and port with its own and
        /// keeps its path.
        public var issuer: String
        /// Where each endpoint lives, relative to the issuer's path.
        public var paths: Paths
        /// How answers are shaped. Default ``Dialect/standard``.
        public var dialect: Dialect
        /// The registered clients and how each must authenticate. Default: one public client,
        /// ``defaultClientID``.
        public var clients: [Client]
        /// The scopes the server knows; another scope is refused with `invalid_scope`. `nil` accepts any scope.
        /// Default `openid profile email offline_access`.
        public var supportedScopes: [String]?
        /// `expires_in` of a device code, in seconds. Default 600.
        public var deviceCodeLifetime: Int
        /// The `interval` sent with a device code, in seconds. Default 5. `nil` leaves the field out; then, and
        /// for 0 or less, the server enforces the RFC 8628 §3.2 default of 5 seconds.
        public var interval: Int?
        /// `expires_in` of an access token, in seconds. Default 3600.
        public var accessTokenLifetime: Int
        /// Whether token responses carry a refresh token. Default true.
        public var issuesRefreshTokens: Bool
        /// Whether a refresh answers with a new refresh token and invalidates the old one (RFC 9700 §4.14).
        /// Default false.
        public var rotatesRefreshTokens: Bool
        /// The person who approves every request.
        public var user: User
        /// How ID tokens are signed. They are issued when the scope contains `openid`, except in the GitHub
        /// dialect. Default ``IDTokenSigning/signed(_:)`` with RS256, with a key whose public half the server
        /// serves at ``Paths/jwks``.
        public var idTokenSigning: IDTokenSigning
        /// What discovery lists as `id_token_signing_alg_values_supported`. Default nil: the one algorithm of
        /// ``idTokenSigning``. Set it to test a client against a server that signs with an algorithm it does not
        /// list, or lists none (an empty list leaves the field out).
        public var advertisedSigningAlgorithms: [String]?
        /// Whether the two discovery documents are served. Default true.
        public var servesDiscovery: Bool
        /// Whether discovery names `device_authorization_endpoint`. Default true; false imitates servers that
        /// leave it out.
        public var advertisesDeviceAuthorizationEndpoint: Bool
        /// How much of each request is kept. Default ``Recording/full``.
        public var recording: Recording
        /// The most request records kept; later requests are counted but not recorded. Default 1,000,000.
        public var maximumRecords: Int
        /// The script of every device code issued from now on (``MockAuthorizationServer/script(deviceCode:_:)``
        /// changes one code's). Default ``Script/pending``: pending until approved or denied.
        public var defaultScript: Script
        /// Faults for device authorization requests, by request number (1-based, counted over the server).
        public var deviceAuthorizationFaults: [Int: Fault]
        /// Faults for refresh requests, by request number (1-based, counted over the server). `.oauthError(
        /// .invalidGrant)` ends a session; `.httpError(status: 503)` is a passing outage.
        public var refreshFaults: [Int: Fault]
        /// A delay added to every answer. Default none.
        public var responseDelay: Duration
        /// A seed that makes every code and token the same from run to run, for exact wire tests. Default nil:
        /// random.
        public var seed: UInt64?
        /// The `verification_uri` sent instead of the approval page's address, to imitate a server that sends
        /// people to another host (a phishing test, or a provider whose page is on another domain). The approval
        /// page stays where ``Paths/verification`` puts it. Default nil: the approval page's address.
        public var verificationURIOverride: String?
        /// What `verification_uri_complete` starts with instead of `verification_uri` (`?user_code=CODE` is
        /// appended), to imitate a server whose two links lead to different hosts. Default nil.
        public var verificationURICompleteOverride: String?
        /// How the server speaks DPoP (RFC 9449): nonces, the `iat` window, the algorithms, and whether discovery
        /// lists `dpop_signing_alg_values_supported` (it does when this is set). Default nil: proofs are still
        /// verified when sent, with ``DPoPSettings``'s defaults, and tokens bound to their key.
        public var dpop: DPoPSettings?
        /// The code grant (``CodeGrantSettings``): nil, the default, for a server without an authorization endpoint.
        public var codeGrant: CodeGrantSettings?

        /// Creates a configuration; every parameter has the default documented on its property.
        public init(
            issuer: String = "https://auth.example.test",
            paths: Paths = Paths(),
            dialect: Dialect = .standard,
            clients: [Client] = [Client(id: Configuration.defaultClientID)],
            supportedScopes: [String]? = ["openid", "profile", "email", "offline_access"],
            deviceCodeLifetime: Int = 600,
            interval: Int? = 5,
            accessTokenLifetime: Int = 3600,
            issuesRefreshTokens: Bool = true,
            rotatesRefreshTokens: Bool = false,
            user: User = User(),
            idTokenSigning: IDTokenSigning = .signed(.rs256),
            servesDiscovery: Bool = true,
            advertisesDeviceAuthorizationEndpoint: Bool = true,
            recording: Recording = .full,
            maximumRecords: Int = 1_000_000,
            defaultScript: Script = .pending,
            deviceAuthorizationFaults: [Int: Fault] = [:],
            refreshFaults: [Int: Fault] = [:],
            responseDelay: Duration = .zero,
            seed: UInt64? = nil,
            verificationURIOverride: String? = nil,
            verificationURICompleteOverride: String? = nil,
            advertisedSigningAlgorithms: [String]? = nil,
            dpop: DPoPSettings? = nil
        ) {
            self.issuer = issuer
            self.paths = paths
            self.dialect = dialect
            self.clients = clients
            self.supportedScopes = supportedScopes
            self.deviceCodeLifetime = deviceCodeLifetime
            self.interval = interval
            self.accessTokenLifetime = accessTokenLifetime
            self.issuesRefreshTokens = issuesRefreshTokens
            self.rotatesRefreshTokens = rotatesRefreshTokens
            self.user = user
            self.idTokenSigning = idTokenSigning
            self.servesDiscovery = servesDiscovery
            self.advertisesDeviceAuthorizationEndpoint = advertisesDeviceAuthorizationEndpoint
            self.recording = recording
            self.maximumRecords = maximumRecords
            self.defaultScript = defaultScript
            self.deviceAuthorizationFaults = deviceAuthorizationFaults
            self.refreshFaults = refreshFaults
            self.responseDelay = responseDelay
            self.seed = seed
            self.verificationURIOverride = verificationURIOverride
            self.verificationURICompleteOverride = verificationURICompleteOverride
            self.advertisedSigningAlgorithms = advertisedSigningAlgorithms
            self.dpop = dpop
        }

        /// The polling interval the server enforces at first: ``interval`` when positive, else 5 seconds.
        public var enforcedInterval: Duration {
            guard let interval, interval > 0 else { return .seconds(DeviceAuthorizationResponse.defaultInterval) }
            return .seconds(interval)
        }
    }

    /// Endpoint paths, each appended to the issuer's path (`/token` under `https://host/tenant` is
    /// `https://host/tenant/token`).
    ///
    /// Discovery always lives at the two well-known places for the issuer: `<issuer>/.well-known/
    /// openid-configuration` and `/.well-known/oauth-authorization-server<issuer path>` (RFC 8414 §3.1).
    public struct Paths: Sendable, Hashable {
        /// The device authorization endpoint (RFC 8628 §3.1). Default `/device/code`.
        public var deviceAuthorization: String
        /// The token endpoint. Default `/token`.
        public var token: String
        /// The revocation endpoint (RFC 7009). Default `/revoke`.
        public var revocation: String
        /// The userinfo endpoint (OpenID Connect Core §5.3). Default `/userinfo`.
        public var userinfo: String
        /// The verification URI: the approval page. Default `/device`.
        public var verification: String
        /// The key set of the ID tokens' keys (`jwks_uri`, RFC 7517 §5). Default `/jwks.json`.
        public var jwks: String
        /// The DPoP-checking resource endpoint (``MockAuthorizationServer/resourceEndpoint()``). Default `/resource`.
        public var resource: String
        /// The authorization endpoint of the code grant (RFC 6749 §3.1). Default `/authorize`.
        public var authorization = "/authorize"

        /// Creates paths; every parameter has the default documented on its property.
        public init(
            deviceAuthorization: String = "/device/code",
            token: String = "/token",
            revocation: String = "/revoke",
            userinfo: String = "/userinfo",
            verification: String = "/device",
            jwks: String = "/jwks.json",
            resource: String = "/resource"
        ) {
            self.deviceAuthorization = deviceAuthorization
            self.token = token
            self.revocation = revocation
            self.userinfo = userinfo
            self.verification = verification
            self.jwks = jwks
            self.resource = resource
        }
    }

    /// A registered client and the one way it must authenticate (RFC 6749 §2.3.1).
    ///
    /// The server refuses any other way with `invalid_client` (HTTP 401), which catches a client that sends its
    /// secret the wrong way.
    public struct Client: Sendable, Hashable {
        /// The client identifier.
        public var id: String
        /// How it authenticates: `ClientAuthentication.none` for a public client.
        public var authentication: ClientAuthentication
        /// Whether every device authorization and token request of this client must carry a DPoP proof (RFC 9449):
        /// one without is refused with `invalid_dpop_proof`. Default false (a proof is verified when sent).
        public var requiresDPoP: Bool
        /// The redirect URIs registered for the code grant, compared exactly; a loopback one (`http://127.0.0.1/…`,
        /// `http://[::1]/…`) matches any port (RFC 8252 §7.3). Default none.
        public var redirectURIs: [String] = []

        /// Creates a client.
        /// - Parameters:
        ///   - id: The client identifier.
        ///   - authentication: How it must authenticate; default none (a public client sending `client_id`).
        ///   - requiresDPoP: Whether its requests must be proven with DPoP.
        public init(id: String, authentication: ClientAuthentication = .none, requiresDPoP: Bool = false) {
            self.id = id
            self.authentication = authentication
            self.requiresDPoP = requiresDPoP
        }
    }

    /// The way a provider shapes its answers. The protocol rules enforced are the same in every dialect.
    public enum Dialect: String, Sendable, Hashable, CaseIterable {
        /// RFC 8628 and RFC 6749 as written: JSON bodies, errors with HTTP 400 (401 for `invalid_client`).
        case standard
        /// GitHub: form-encoded answers unless the request sends `Accept: application/json`; OAuth errors with
        /// HTTP 200; `slow_down` carries the new `interval`; `token_type` is `bearer`; no
        /// `verification_uri_complete` and no ID token.
        case github
        /// Google: `verification_url` instead of `verification_uri`, no `verification_uri_complete`;
        /// `authorization_pending` with HTTP 428 and `slow_down` and `access_denied` with HTTP 403.
        case google
        /// Microsoft (v1 endpoint): a `message` for the user; `expires_in` and `interval` as strings; no
        /// `verification_uri_complete`.
        case microsoft
    }

    /// The person behind every approval: the claims of the ID token and the userinfo answer.
    public struct User: Sendable, Hashable {
        /// `sub`. Default `user-1234`.
        public var subject: String
        /// `name`. Default `Ada Lovelace`.
        public var name: String
        /// `email`. Default `ada@example.test`.
        public var email: String

        /// Creates a user; every parameter has the default documented on its property.
        public init(subject: String = "user-1234", name: String = "Ada Lovelace", email: String = "ada@example.test") {
            self.subject = subject
            self.name = name
            self.email = email
        }
    }

    /// How ID tokens are signed.
    ///
    /// ``signed(_:)`` is what real providers do and what the library verifies; the other two are there to check
    /// that a client refuses them.
    public enum IDTokenSigning: Sendable, Hashable {
        /// The HMAC key ``hs256(key:)`` is usually given: `device-login-mock-signing-key`.
        public static let defaultKey = "device-login-mock-signing-key"

        /// `alg: none` with an empty signature (RFC 7519 §6).
        case unsigned
        /// `alg: HS256`, an HMAC-SHA-256 over the UTF-8 bytes of `key`.
        case hs256(key: String)
        /// Signed with the server's private key for `algorithm` (RS256, PS256, ES256, ES384 or EdDSA), the header
        /// naming the key's `kid`; the public key is served at ``Paths/jwks``. Each process makes one key per
        /// algorithm, shared by every server until one rotates it
        /// (``MockAuthorizationServer/rotateSigningKey(keepingPrevious:)``). Without libcrypto no ID token is issued.
        case signed(SignatureAlgorithm)

        /// The `alg` the tokens' headers carry.
        public var algorithmName: String {
            switch self {
            case .unsigned: return "none"
            case .hs256: return "HS256"
            case .signed(let algorithm): return algorithm.name
            }
        }
    }

    /// How much of each request the server keeps.
    public enum Recording: Sendable, Hashable {
        /// Everything: headers and form fields too.
        case full
        /// Time, method, path, endpoint, device code and answer, without headers or form fields: for benchmarks
        /// with many flows.
        case summary
        /// Nothing; counters and RFC violations are still kept.
        case off
    }
}
