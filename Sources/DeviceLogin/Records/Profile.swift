#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A named sign-in configuration: which server, which client, which scopes. Stored beside its tokens.
///
/// A profile is what the CLI's `--profile` names: everything needed to refresh, revoke or call userinfo later
/// without asking the user again. The client secret is kept only when the user asked for it
/// (``clientSecret`` is nil otherwise, and the secret must come from elsewhere each time).
///
/// Names are checked by ``validate(name:)`` because they become file names: 1 to 64 characters of letters,
/// digits, `.`, `_`, `-`, `@` and `+`, not starting with `.` or `-`, never containing `..` or `/`.
///
/// ```swift
/// let profile = try Profile(name: "work", issuer: "https://auth.example.com", endpoints: endpoints,
///                           client: ClientConfiguration(clientID: "cli", scopes: ["openid", "offline_access"]))
/// let client = try profile.clientConfiguration()
/// ```
public struct Profile: Sendable, Hashable {
    /// The name used when none is given: `default`.
    public static let defaultName = "default"
    /// The longest profile name accepted: 64 characters.
    public static let maximumNameLength = 64

    /// The profile's name, valid by ``validate(name:)``.
    public private(set) var name: String
    /// The issuer identifier, when known (from discovery or given); ID tokens' `iss` must equal it.
    public var issuer: String?
    /// The server's endpoints.
    public var endpoints: ServerEndpoints
    /// The client identifier.
    public var clientID: String
    /// The scopes asked for; nil for the default described at ``ClientConfiguration/scopes``.
    public var scopes: [String]?
    /// RFC 8707 resource indicators asked for at sign-in.
    public var resources: [String]
    /// How the client authenticates, without the secret.
    public var clientAuthentication: ClientAuthentication.Method
    /// The client secret, only when the user asked to store it; never shown by ``description``.
    public var clientSecret: String?
    /// Whether plain HTTP was allowed to hosts that are not loopback.
    public var allowInsecureHTTP: Bool
    /// The URL prefixes this profile's tokens are for (`login --for URL`): the credential helpers pick the profile
    /// whose binding matches a URL best (``URLBinding/matchLength(_:)``). At most ``maximumBindings``.
    public var bindings: [URLBinding]
    /// The user name the credential helpers answer with the token (git's `username`, Docker's `Username`); nil
    /// for ``defaultUsername``. Checked by ``validate(username:)``.
    public var username: String?
    /// Whether the tokens are bound to a DPoP key (RFC 9449): every refresh must then be proven with that key, kept
    /// beside the profile (``FileTokenStore/loadDPoPKey(profile:)``).
    public var usesDPoP: Bool
    /// The provider preset the profile was signed in with (``ProviderPreset/name``), for people; nil when none was
    /// used. Nothing depends on it: the endpoints are saved themselves.
    public var provider: String?
    /// Where the profile's tokens rest (``TokenStoreKind``; `login --store`), stored as `"store"` only when it is not
    /// the file: a profile that names none is a file profile, as every profile was before.
    public var tokenStore: TokenStoreKind = .file
    /// The flow `login --flow` chose for this profile (`device`, `browser` or `paste`), used by the next `login` of
    /// the profile that names none; nil for `auto`. Read leniently: a missing or unknown value is `auto`.
    public var flow: String?
    /// The loopback port of the code grant's redirect URI (`login --redirect-port`, or a preset that needs one), for
    /// a provider that matches a registered port exactly; nil for a random port (RFC 8252 §7.3). Read leniently: a
    /// value that is not a port (1 to 65535) is none.
    public var redirectPort: Int?

    /// The most URL bindings a profile keeps: 64.
    public static let maximumBindings = 64
    /// The user name the credential helpers give when the profile sets none: `oauth2`, which GitLab requires
    /// for OAuth tokens over HTTPS and GitHub, Gitea and Bitbucket accept (they read only the password).
    public static let defaultUsername = "oauth2"
    /// The longest user name accepted: 256 characters.
    public static let maximumUsernameLength = 256

    /// Creates a profile.
    /// - Parameters:
    ///   - name: The profile name; default ``defaultName``.
    ///   - issuer: The issuer identifier; defaults to the endpoints' issuer.
    ///   - endpoints: The server's endpoints.
    ///   - clientID: The client identifier.
    ///   - scopes: The scopes asked for.
    ///   - resources: RFC 8707 resource indicators.
    ///   - clientAuthentication: How the client authenticates.
    ///   - clientSecret: The secret to store, only if the user asked for it.
    ///   - allowInsecureHTTP: Whether plain HTTP is allowed to hosts that are not loopback.
    ///   - bindings: The URL prefixes the profile serves.
    ///   - username: The user name the credential helpers give; nil for ``defaultUsername``.
    ///   - usesDPoP: Whether the tokens are bound to a DPoP key.
    ///   - provider: The provider preset used, if any.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/configuration`` for an invalid name, more
    ///   than ``maximumBindings`` bindings or an invalid user name.
    public init(
        name: String = Profile.defaultName,
        issuer: String? = nil,
        endpoints: ServerEndpoints,
        clientID: String,
        scopes: [String]? = nil,
        resources: [String] = [],
        clientAuthentication: ClientAuthentication.Method = .none,
        clientSecret: String? = nil,
        allowInsecureHTTP: Bool = false,
        bindings: [URLBinding] = [],
        username: String? = nil,
        usesDPoP: Bool = false,
        provider: String? = nil
    ) throws {
        try Self.validate(name: name)
        guard bindings.count <= Self.maximumBindings else {
            throw DeviceLoginError(
                .configuration, "profile \"\(name)\" has more than \(Self.maximumBindings) URL bindings")
        }
        if let username { try Self.validate(username: username) }
        self.name = name
        self.issuer = issuer ?? endpoints.issuer
        self.endpoints = endpoints
        self.clientID = clientID
        self.scopes = scopes
        self.resources = resources
        self.clientAuthentication = clientAuthentication
        self.clientSecret = clientSecret
        self.allowInsecureHTTP = allowInsecureHTTP
        self.bindings = bindings
        self.username = username
        self.usesDPoP = usesDPoP
        self.provider = provider
        self.flow = nil
        self.redirectPort = nil
    }

    /// Creates a profile from the client configuration used to sign in.
    /// - Parameters:
    ///   - name: The profile name.
    ///   - issuer: The issuer identifier; defaults to the endpoints' issuer.
    ///   - endpoints: The server's endpoints.
    ///   - client: The client configuration.
    ///   - storingSecret: Whether to keep the client secret in the profile (only when the user asked for it).
    ///   - bindings: The URL prefixes the profile serves.
    ///   - username: The user name the credential helpers give; nil for ``defaultUsername``.
    ///   - provider: The provider preset used, if any.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/configuration`` for an invalid name.
    ///
    /// The profile uses DPoP when the client has a DPoP key (``ClientConfiguration/dpop``).
    public init(
        name: String = Profile.defaultName,
        issuer: String? = nil,
        endpoints: ServerEndpoints,
        client: ClientConfiguration,
        storingSecret: Bool = false,
        bindings: [URLBinding] = [],
        username: String? = nil,
        provider: String? = nil
    ) throws {
        try self.init(
            name: name, issuer: issuer, endpoints: endpoints, clientID: client.clientID, scopes: client.scopes,
            resources: client.resources, clientAuthentication: client.authentication.method,
            clientSecret: storingSecret ? client.authentication.secret : nil,
            allowInsecureHTTP: client.allowInsecureHTTP, bindings: bindings, username: username,
            usesDPoP: client.dpop != nil, provider: provider
        )
    }

    /// The client configuration to refresh, revoke and call userinfo with. For a profile that ``usesDPoP``, set its
    /// ``ClientConfiguration/dpop`` to a prover with the profile's key before refreshing.
    /// - Parameter secret: The client secret when it is not stored (from the environment or a prompt); a given
    ///   secret wins over a stored one.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/configuration`` when the method needs a
    ///   secret and none is stored or given.
    public func clientConfiguration(secret: String? = nil) throws -> ClientConfiguration {
        guard let authentication = ClientAuthentication(clientAuthentication, secret: secret ?? clientSecret) else {
            throw DeviceLoginError(
                .configuration,
                "profile \"\(name)\" uses \(clientAuthentication.rawValue) but no client secret is stored",
                hint: "give the client secret again"
            )
        }
        return ClientConfiguration(
            clientID: clientID, authentication: authentication, scopes: scopes, resources: resources,
            allowInsecureHTTP: allowInsecureHTTP
        )
    }

    /// The user name the credential helpers answer with: ``username``, else ``defaultUsername``.
    public var effectiveUsername: String { username ?? Self.defaultUsername }

    /// How well this profile serves `url`: the best ``URLBinding/matchLength(_:)`` of its bindings, nil when none
    /// matches.
    public func matchLength(_ url: URLBinding) -> Int? {
        bindings.compactMap { $0.matchLength(url) }.max()
    }

    /// Checks that `username` can be sent in the credential helpers' protocols: 1 to ``maximumUsernameLength``
    /// characters, none of them a control character (a newline would add a line to git's answer).
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/configuration`` saying what is wrong.
    public static func validate(username: String) throws {
        guard !username.isEmpty, username.count <= maximumUsernameLength,
            !username.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw DeviceLoginError(
                .configuration,
                "invalid user name: it must be 1 to \(maximumUsernameLength) characters without control characters"
            )
        }
    }

    /// Checks that `name` can name a profile (and so a file).
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/configuration`` saying what is wrong.
    public static func validate(name: String) throws {
        func refuse(_ reason: String) -> DeviceLoginError {
            DeviceLoginError(
                .configuration, "invalid profile name \"\(String(name.prefix(maximumNameLength)))\": \(reason)",
                hint: "use letters, digits, '.', '_', '-', '@' or '+'"
            )
        }
        guard !name.isEmpty else { throw refuse("it is empty") }
        guard name.count <= maximumNameLength else {
            throw refuse("it is longer than \(maximumNameLength) characters")
        }
        guard !name.contains("/") else { throw refuse("it contains '/'") }
        guard !name.contains("..") else { throw refuse("it contains '..'") }
        guard !name.hasPrefix("."), !name.hasPrefix("-") else { throw refuse("it starts with '.' or '-'") }
        let allowed = name.unicodeScalars.allSatisfy { scalar in
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9", ".", "_", "-", "@", "+": return true
            default: return false
            }
        }
        guard allowed else { throw refuse("it contains a character that is not allowed") }
    }
}

extension Profile: Codable, StoredDecodable {
    enum CodingKeys: String, CodingKey {
        case name, issuer, endpoints
        case clientID = "client_id"
        case scopes, resources
        case clientAuthentication = "client_authentication"
        case clientSecret = "client_secret"
        case allowInsecureHTTP = "allow_insecure_http"
        case bindings, username
        case usesDPoP = "dpop"
        case provider
        case tokenStore = "store"
        case flow
        case redirectPort = "redirect_port"
    }

    /// Reads a profile in the stored form, checked as a profile made in code is checked (its name, its bindings, its
    /// user name): part of the one reader of a profile's file (``ProfileRecord/init(stored:)``).
    /// - Throws: ``DeviceLoginError`` naming the first field that cannot be read, or why the profile is invalid.
    package init(stored fields: JSONFields) throws {
        typealias Key = CodingKeys
        try self.init(
            name: try fields.string(Key.name.rawValue),
            issuer: try fields.stringIfPresent(Key.issuer.rawValue),
            endpoints: try ServerEndpoints(stored: try fields.object(Key.endpoints.rawValue)),
            clientID: try fields.string(Key.clientID.rawValue),
            scopes: try fields.stringsIfPresent(Key.scopes.rawValue),
            resources: try fields.stringsIfPresent(Key.resources.rawValue) ?? [],
            clientAuthentication: try fields.stringIfPresent(
                Key.clientAuthentication.rawValue, as: ClientAuthentication.Method.init(rawValue:)) ?? .none,
            clientSecret: try fields.stringIfPresent(Key.clientSecret.rawValue),
            allowInsecureHTTP: try fields.boolIfPresent(Key.allowInsecureHTTP.rawValue) ?? false,
            bindings: try fields.stringsIfPresent(Key.bindings.rawValue, as: URLBinding.init) ?? [],
            username: try fields.stringIfPresent(Key.username.rawValue),
            usesDPoP: try fields.boolIfPresent(Key.usesDPoP.rawValue) ?? false,
            provider: try fields.stringIfPresent(Key.provider.rawValue)
        )
        tokenStore = try fields.stringIfPresent(Key.tokenStore.rawValue, as: TokenStoreKind.init(rawValue:)) ?? .file
        // Read leniently: a flow this version does not know, or a value of another type, is `auto`.
        if case .string(let flow)? = fields.value(Key.flow.rawValue), ["device", "browser", "paste"].contains(flow) {
            self.flow = flow
        }
        if case .number(let port)? = fields.value(Key.redirectPort.rawValue), (1...65_535).contains(port),
            port.rounded(.towardZero) == port
        {
            self.redirectPort = Int(port)
        }
    }

    /// Writes the profile; the secret only when it is stored, defaults left out.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encodeIfPresent(issuer, forKey: .issuer)
        try container.encode(endpoints, forKey: .endpoints)
        try container.encode(clientID, forKey: .clientID)
        try container.encodeIfPresent(scopes, forKey: .scopes)
        if !resources.isEmpty { try container.encode(resources, forKey: .resources) }
        try container.encode(clientAuthentication, forKey: .clientAuthentication)
        try container.encodeIfPresent(clientSecret, forKey: .clientSecret)
        if allowInsecureHTTP { try container.encode(allowInsecureHTTP, forKey: .allowInsecureHTTP) }
        if !bindings.isEmpty { try container.encode(bindings, forKey: .bindings) }
        try container.encodeIfPresent(username, forKey: .username)
        if usesDPoP { try container.encode(usesDPoP, forKey: .usesDPoP) }
        try container.encodeIfPresent(provider, forKey: .provider)
        if tokenStore != .file { try container.encode(tokenStore, forKey: .tokenStore) }
        try container.encodeIfPresent(flow, forKey: .flow)
        try container.encodeIfPresent(redirectPort, forKey: .redirectPort)
    }
}

extension Profile: CustomStringConvertible {
    /// A summary without the client secret.
    public var description: String {
        "Profile(name: \(name), issuer: \(issuer ?? "unknown"), clientID: \(clientID), "
            + "authentication: \(clientAuthentication.rawValue), secretStored: \(clientSecret == nil ? "no" : "yes")"
            + (usesDPoP ? ", dpop: yes)" : ")")
    }
}
