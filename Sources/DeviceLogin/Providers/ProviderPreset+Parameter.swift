#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ProviderPreset {
    /// A setting a preset takes: where the provider is (a host, a domain) and which part of it (a tenant, a realm,
    /// an authorization server). Its raw value is the placeholder's name in a template: `{host}`.
    public struct Parameter: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String

        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// The server's base URL, `https://host[:port][/path]`; a bare host name means HTTPS. A path is kept (a
        /// Keycloak served under `/auth`).
        public static let host = Parameter(rawValue: "host")
        /// A host name with no path (`tenant.eu.auth0.com`, `dev-1234.okta.com`), or its `https://` URL.
        public static let domain = Parameter(rawValue: "domain")
        /// A Microsoft Entra tenant: `organizations`, `common`, `consumers`, a tenant ID (a GUID) or a domain name.
        public static let tenant = Parameter(rawValue: "tenant")
        /// A Keycloak realm's name.
        public static let realm = Parameter(rawValue: "realm")
        /// An Okta custom authorization server's ID (`default`, or `aus…`).
        public static let authorizationServer = Parameter(rawValue: "auth-server")

        public var description: String { rawValue }

        /// The longest value taken, in characters.
        public static let maximumLength = 2048

        /// `value` as it goes into a template: a URL without a trailing slash, a name unchanged.
        /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/configuration`` and reason
        ///   ``DeviceLoginError/Reason/providerSetting(_:)`` when the value cannot be one.
        public func normalize(_ value: String) throws -> String {
            func refuse(_ expected: String) -> DeviceLoginError {
                DeviceLoginError(
                    .configuration, "the \(rawValue) must be \(expected), not '\(value.prefix(100))'",
                    reason: .providerSetting(self))
            }
            guard !value.isEmpty, value.count <= Self.maximumLength else {
                throw refuse("1 to \(Self.maximumLength) characters")
            }
            switch self {
            case .host, .domain:
                let withPath = self == .host
                let expected =
                    withPath
                    ? "an http(s) URL without query or fragment, or a host name"
                    : "a host name, or its https URL without a path"
                guard let url = Self.baseURL(value, allowingPath: withPath) else { throw refuse(expected) }
                return url
            case .tenant:
                // Microsoft's tenant names: the three keywords, a GUID or a verified domain name.
                guard value.count <= 253, !value.hasPrefix("."), !value.hasPrefix("-"),
                    value.unicodeScalars.allSatisfy(Self.isNameCharacter)
                else { throw refuse("organizations, common, consumers, a tenant ID or a domain name") }
                return value
            default:
                // A path segment: RFC 3986's unreserved characters need no escaping.
                guard value.count <= 255, value != ".", value != "..",
                    value.unicodeScalars.allSatisfy({ Self.isNameCharacter($0) || $0 == "_" || $0 == "~" })
                else { throw refuse("1 to 255 letters, digits, '-', '.', '_' or '~'") }
                return value
            }
        }

        /// A letter, digit, `-` or `.`: what a host name or tenant is made of.
        private static func isNameCharacter(_ scalar: Unicode.Scalar) -> Bool {
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9", "-", ".": return true
            default: return false
            }
        }

        /// `text` as a base URL, `scheme://host[:port][/path]` without a trailing slash, or nil when it is not one.
        /// A text without a scheme is taken as a host name (and port) over HTTPS.
        private static func baseURL(_ text: String, allowingPath: Bool) -> String? {
            var candidate = text.contains("://") ? text : "https://" + text
            while candidate.hasSuffix("/") { candidate.removeLast() }
            guard let components = URLComponents(string: candidate),
                let scheme = components.scheme?.lowercased(), scheme == "https" || scheme == "http",
                let host = components.host, !host.isEmpty,
                components.user == nil, components.password == nil,
                components.query == nil, components.fragment == nil,
                allowingPath || components.path.isEmpty,
                !candidate.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }),
                let separator = candidate.firstRange(of: "://")
            else { return nil }
            return scheme + candidate[separator.lowerBound...]
        }
    }
}
