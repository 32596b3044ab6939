#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What device-login knows about one identity provider's device flow: where its endpoints are, which of them
/// discovery finds, and its quirks — taken from the provider's own documentation.
///
/// A preset never carries a client ID. Device-code phishing campaigns start sign-ins with well-known public client
/// IDs (an app the victim already trusts), so the client must always be the user's own registration.
///
/// ```swift
/// let provider = try ProviderPreset.keycloak.resolve([.host: "https://sso.example.com", .realm: "ops"])
/// // provider.issuer is "https://sso.example.com/realms/ops": discovery finds the rest.
/// if let issuer = provider.issuer {
///     let metadata = try await Discovery(transport: transport).metadata(issuer: issuer)
///     let endpoints = try ServerEndpoints(
///         metadata: metadata, deviceAuthorization: provider.deviceAuthorizationEndpoint,
///         token: provider.tokenEndpoint)
/// }
/// ```
public struct ProviderPreset: Sendable, Hashable {
    /// The name a user gives: `github`.
    public let name: String
    /// The provider's name for people: `GitHub (and GitHub Enterprise Server)`.
    public let title: String
    /// The settings the preset takes, in the order they are listed, each with its default when it has one.
    public let parameters: [Setting]
    /// The issuer, with `{parameter}` placeholders; nil for a provider without discovery. When set, discovery
    /// fills every endpoint that ``templates`` leaves nil.
    public let issuerTemplate: String?
    /// The endpoints the preset knows without discovery, with `{parameter}` placeholders.
    public let templates: Templates
    /// The scopes asked for when the user gives none; nil for the library's default (``ClientConfiguration/scopes``).
    public let defaultScopes: [String]?
    /// The only scopes the provider accepts in the device flow; nil when any scope it knows may be asked for.
    public let allowedScopes: [String]?
    /// Device authorization parameters the provider needs for the usual use, each with why (Auth0's `audience`).
    public let expectedParameters: [String: String]
    /// Whether the provider's token endpoint requires the client secret even in the device flow (Google).
    public let requiresClientSecret: Bool
    /// How the provider's documentation sends the client secret, when it says (Google: in the form body); nil
    /// for the library's default, HTTP Basic.
    public let clientAuthentication: ClientAuthentication.Method?
    /// The provider's quirks, one sentence each, for people.
    public let quirks: [String]
    /// The provider's own documentation of its device flow.
    public let documentation: [String]
    /// Whether the issuer is known only for a tenant given by its ID (Microsoft: the tokens of `organizations`,
    /// `common` and `consumers` name the person's own tenant as their issuer, so no issuer can be expected).
    public let issuerNeedsTenantID: Bool
    /// The loopback port the provider's registrations need in the redirect URI of the code grant, for a provider
    /// that matches the port exactly instead of allowing any (RFC 8252 §7.3); nil for any port. `login
    /// --redirect-port` overrides it.
    public internal(set) var redirectPort: Int? = nil

    /// One setting a preset takes, and its default.
    public struct Setting: Sendable, Hashable {
        /// Which setting.
        public let parameter: Parameter
        /// The value used when none is given; nil when the setting must be given.
        public let defaultValue: String?
        /// What the setting is, for people: `the GitHub Enterprise Server host`.
        public let meaning: String

        /// Whether the setting must be given.
        public var isRequired: Bool { defaultValue == nil }
    }

    /// The endpoints a preset knows without discovery, as templates with `{parameter}` placeholders.
    public struct Templates: Sendable, Hashable {
        /// The device authorization endpoint (RFC 8628 §3.1).
        public var deviceAuthorization: String?
        /// The token endpoint.
        public var token: String?
        /// The authorization endpoint of the code grant (RFC 6749 §3.1).
        public var authorization: String?
        /// The revocation endpoint (RFC 7009).
        public var revocation: String?
        /// The userinfo endpoint (OpenID Connect Core §5.3).
        public var userinfo: String?

        /// Creates templates; nil leaves an endpoint to discovery, or to none.
        public init(
            deviceAuthorization: String? = nil, token: String? = nil, authorization: String? = nil,
            revocation: String? = nil, userinfo: String? = nil
        ) {
            self.deviceAuthorization = deviceAuthorization
            self.token = token
            self.authorization = authorization
            self.revocation = revocation
            self.userinfo = userinfo
        }
    }

    /// The preset called `name` (case-insensitive), if any.
    public static func named(_ name: String) -> ProviderPreset? {
        all.first { $0.name == name.lowercased() }
    }

    /// The presets' names, in the order of ``all``.
    public static var names: [String] { all.map(\.name) }

    /// The setting for `parameter`, when the preset takes it.
    public func setting(_ parameter: Parameter) -> Setting? {
        parameters.first { $0.parameter == parameter }
    }

    /// The provider's settings for the given values.
    ///
    /// Every value is checked (``Parameter/normalize(_:)``); a setting not given takes its default.
    /// - Parameter values: The settings given; only those the preset takes are allowed.
    /// - Returns: The issuer and endpoints the preset knows, and its advice.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/configuration`` and a reason of kind
    ///   ``DeviceLoginError/Reason/Kind/providerSetting`` naming the setting at fault: one the preset does not take,
    ///   a required one missing, or a value that cannot be one.
    public func resolve(_ values: [Parameter: String] = [:]) throws -> ResolvedProvider {
        for parameter in values.keys.sorted(by: { $0.rawValue < $1.rawValue }) where setting(parameter) == nil {
            throw DeviceLoginError(
                .configuration, "the \(title) preset takes no \(parameter.rawValue)",
                reason: .providerSetting(parameter))
        }
        var filled: [Parameter: String] = [:]
        for setting in parameters {
            guard let value = values[setting.parameter] ?? setting.defaultValue else {
                throw DeviceLoginError(
                    .configuration, "the \(title) preset needs \(setting.meaning)",
                    reason: .providerSetting(setting.parameter))
            }
            filled[setting.parameter] = try setting.parameter.normalize(value)
        }
        func fill(_ template: String?) -> String? {
            guard var text = template else { return nil }
            for (parameter, value) in filled { text = text.replacing("{\(parameter.rawValue)}", with: value) }
            return text
        }
        func url(_ template: String?) throws -> URL? {
            guard let text = fill(template) else { return nil }
            guard let url = URL(string: text), url.host != nil else {
                throw DeviceLoginError(.configuration, "the \(title) preset made an invalid URL: \(text)")
            }
            return url
        }
        return ResolvedProvider(
            preset: name, title: title,
            issuer: fill(issuerTemplate(for: filled)),
            deviceAuthorizationEndpoint: try url(templates.deviceAuthorization),
            tokenEndpoint: try url(templates.token),
            authorizationEndpoint: try url(templates.authorization), redirectPort: redirectPort,
            revocationEndpoint: try url(templates.revocation),
            userinfoEndpoint: try url(templates.userinfo),
            defaultScopes: defaultScopes, allowedScopes: allowedScopes, expectedParameters: expectedParameters,
            requiresClientSecret: requiresClientSecret, clientAuthentication: clientAuthentication
        )
    }

    /// The issuer template for these values: none when it needs a tenant ID and the tenant is not one.
    private func issuerTemplate(for values: [Parameter: String]) -> String? {
        guard issuerNeedsTenantID else { return issuerTemplate }
        guard let tenant = values[.tenant], Self.isGUID(tenant) else { return nil }
        return issuerTemplate
    }

    /// Whether `text` is a GUID: 8-4-4-4-12 hexadecimal digits.
    static func isGUID(_ text: String) -> Bool {
        let groups = text.split(separator: "-", omittingEmptySubsequences: false)
        return groups.map(\.count) == [8, 4, 4, 4, 12] && groups.allSatisfy { $0.allSatisfy(\.isHexDigit) }
    }
}
