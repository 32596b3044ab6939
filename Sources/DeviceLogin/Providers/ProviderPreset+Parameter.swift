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
        ///
        /// Normalised so that the issuer made from it is the one the provider's discovery returns: the host
        /// lowercased, the scheme's default port (443, 80) left out (Auth0's `tenant.auth0.com:443` has the issuer
        /// `https://tenant.auth0.com/`). Only a plain base is taken: a host name or IP literal, a port of 1 to 65535,
        /// and a path (where allowed) of segments made of letters, digits, `-`, `.`, `_` and `~` — no dot segments
        /// (`/../`), no empty segments, no percent-encoding, nothing else a server might read as another path.
        private static func baseURL(_ text: String, allowingPath: Bool) -> String? {
            guard text.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && $0.value != 0x7F }) else {
                return nil
            }
            var rest = Substring(text)
            var scheme = "https"
            if let separator = rest.firstRange(of: "://") {
                scheme = rest[..<separator.lowerBound].lowercased()
                rest = rest[separator.upperBound...]
            }
            guard scheme == "https" || scheme == "http" else { return nil }
            let slash = rest.firstIndex(of: "/") ?? rest.endIndex
            guard let authority = self.authority(rest[..<slash], defaultPort: scheme == "https" ? 443 : 80) else {
                return nil
            }
            var path = rest[slash...]
            while path.hasSuffix("/") { path.removeLast() }
            guard path.isEmpty || (allowingPath && isPlainPath(path)) else { return nil }
            return scheme + "://" + authority + path
        }

        /// `host[:port]` lowercased and without the default port, or nil when it is not a plain one.
        private static func authority(_ text: Substring, defaultPort: Int) -> String? {
            var host: Substring
            var port: Substring?
            if text.hasPrefix("[") {
                // An IPv6 literal (RFC 3986 §3.2.2).
                guard let close = text.firstIndex(of: "]") else { return nil }
                host = text[...close]
                let inside = text[text.index(after: text.startIndex)..<close]
                guard !inside.isEmpty, inside.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                    return nil
                }
                let after = text[text.index(after: close)...]
                if !after.isEmpty {
                    guard after.hasPrefix(":") else { return nil }
                    port = after.dropFirst()
                }
            } else {
                let colon = text.firstIndex(of: ":")
                host = text[..<(colon ?? text.endIndex)]
                port = colon.map { text[text.index(after: $0)...] }
                guard !host.isEmpty, host.count <= 253, !host.hasPrefix("."), !host.hasPrefix("-"),
                    host.unicodeScalars.allSatisfy({ isNameCharacter($0) || $0 == "_" })
                else { return nil }
            }
            var result = host.lowercased()
            if let port {
                guard (1...5).contains(port.count), port.allSatisfy(\.isASCII), let number = Int(port),
                    (1...65_535).contains(number)
                else { return nil }
                if number != defaultPort { result += ":\(number)" }
            }
            return result
        }

        /// Whether `path` (starting with `/`) is made of plain segments: not empty, not `.` or `..`, of letters,
        /// digits, `-`, `.`, `_` and `~` only.
        private static func isPlainPath(_ path: Substring) -> Bool {
            path.hasPrefix("/")
                && path.dropFirst().split(separator: "/", omittingEmptySubsequences: false).allSatisfy { segment in
                    !segment.isEmpty && segment != "." && segment != ".."
                        && segment.unicodeScalars.allSatisfy { isNameCharacter($0) || $0 == "_" || $0 == "~" }
                }
        }
    }
}

extension DeviceLoginError.Reason {
    /// A provider preset's setting `parameter` is missing, not taken, or not valid.
    public static func providerSetting(_ parameter: ProviderPreset.Parameter) -> Self {
        Self(kind: .providerSetting, providerSettingName: parameter.rawValue)
    }

    /// The preset's setting at fault, for ``Kind/providerSetting``.
    public var providerParameter: ProviderPreset.Parameter? {
        providerSettingName.map(ProviderPreset.Parameter.init(rawValue:))
    }
}
