import DeviceLogin

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The PAM module's configuration (`/etc/device-login/pam.conf`, or the module's `config=FILE`), docs/ssh.md: one
/// `key = value` a line, `#` comments and blank lines ignored, every key at most once, unknown keys refused.
///
/// Parsing is pure (``parse(_:)``); ``load(path:)`` adds the file's checks (a regular file, bounded, writable by
/// no one but root or its owner) and reads the client secret file the same way.
struct PAMConfiguration: Sendable, Equatable {
    /// Which claim of the verified ID token must equal the PAM user (or map to it, with ``usernameMap``).
    enum UsernameClaim: String, Sendable, Equatable, CaseIterable {
        /// `preferred_username` (OpenID Connect Core §5.1).
        case preferredUsername = "preferred_username"
        /// `email`, taken only with `email_verified` true.
        case email
        /// `sub`, the issuer's identifier of the person.
        case subject = "sub"
    }

    /// The issuer the endpoints are discovered from (`issuer`, or the one `provider` and its settings give).
    var issuer: String
    /// The provider preset named by `provider` (``ProviderPreset``), when the file names one.
    var provider: String?
    /// The client ID (`client_id`).
    var clientID: String
    /// The file that holds the client secret, for a confidential client (`client_secret_file`).
    var clientSecretFile: String?
    /// The scopes asked for (`scope`, space-separated); `openid` is always among them.
    var scopes: [String]
    /// The claim that must equal the PAM user (`username_claim`).
    var usernameClaim: UsernameClaim
    /// The mapping file from claim values to local users (`username_map`, ``PAMUserMap``); nil: the claim must equal
    /// the user.
    var usernameMap: String?
    /// The values of which one must be in the groups claim (`allowed_groups`); empty for no group check.
    var allowedGroups: [String]
    /// The claim holding the person's groups or roles (`groups_claim`).
    var groupsClaim: String
    /// How long the sign-in may take, in seconds (`deadline`).
    var deadline: Int
    /// Whether the prompt carries a QR code (`qr`): `on`, `off`, or `auto` (the default: when the person's terminal
    /// can show one, ``PAMClientTerminal/canShowQRCode``).
    var qr: QRSetting

    /// The `qr` key's values.
    enum QRSetting: String, Sendable, Equatable {
        case on, off, auto
    }

    /// Where the module looks when it is given no `config=FILE`.
    static let defaultPath = "/etc/device-login/pam.conf"
    /// The largest file read, in bytes.
    static let maximumFileBytes = 16 * 1024
    /// The longest line, in bytes.
    static let maximumLineBytes = 1024
    /// The most groups `allowed_groups` may list.
    static let maximumGroups = 64
    /// The deadline's bounds, in seconds: sshd's `LoginGraceTime` is 120 s by default.
    static let deadlineRange = 10...600
    /// The deadline without a `deadline` line.
    static let defaultDeadline = 100
    /// The keys a file may hold.
    static let keys =
        [
            "issuer", "client_id", "client_secret_file", "scope", "username_claim", "allowed_groups", "groups_claim",
            "deadline", "qr", "provider", "username_map",
        ] + providerSettings.map(\.key)
    /// The settings a `provider` takes, as `login --provider` takes them (`--auth-server` is `auth_server` here).
    static let providerSettings: [(key: String, parameter: ProviderPreset.Parameter)] = [
        ("host", .host), ("tenant", .tenant), ("domain", .domain), ("realm", .realm),
        ("auth_server", .authorizationServer),
    ]

    /// Why a configuration is refused: the line (0 for the whole file) and the reason.
    struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        /// The line, counted from 1; 0 for the whole file.
        var line: Int
        /// What is wrong, in words; never a secret.
        var reason: String

        /// `line N: REASON`, or the reason alone.
        var description: String { line > 0 ? "line \(line): \(reason)" : reason }
    }

    /// Reads a configuration from its text.
    /// - Throws: ``Problem`` for a malformed, unknown, repeated or out-of-bounds line, or a missing required key.
    static func parse(_ text: String) throws(Problem) -> PAMConfiguration {
        guard text.utf8.count <= maximumFileBytes else {
            throw Problem(line: 0, reason: "the file is larger than \(maximumFileBytes) bytes")
        }
        var values: [String: (value: String, line: Int)] = [:]
        for (index, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let number = index + 1
            guard raw.utf8.count <= maximumLineBytes else {
                throw Problem(line: number, reason: "the line is longer than \(maximumLineBytes) bytes")
            }
            let line = raw.trimmed()
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard line.unicodeScalars.allSatisfy({ !$0.isUnsafeToShow || $0 == "\t" }) else {
                throw Problem(line: number, reason: "the line holds a control or invisible character")
            }
            guard let equals = line.firstIndex(of: "=") else {
                throw Problem(line: number, reason: "expected `key = value`")
            }
            let key = line[..<equals].trimmed()
            let value = line[line.index(after: equals)...].trimmed()
            guard keys.contains(key) else {
                let shown = Sanitizer.sanitize(key, maxLength: 64)
                throw Problem(line: number, reason: "unknown key '\(shown)' (known: \(keys.joined(separator: ", ")))")
            }
            if let earlier = values[key] {
                throw Problem(line: number, reason: "'\(key)' is given twice (first on line \(earlier.line))")
            }
            guard !value.isEmpty else { throw Problem(line: number, reason: "'\(key)' has no value") }
            values[key] = (value, number)
        }
        return try PAMConfiguration(values)
    }

    /// The issuer: `issuer`, or the one a `provider` preset and its settings give (``ProviderPreset/resolve(_:)``);
    /// and the preset's name.
    private static func issuer(
        _ values: [String: (value: String, line: Int)]
    ) throws(Problem) -> (issuer: String, provider: String?) {
        let settings = providerSettings.filter { values[$0.key] != nil }
        guard let name = values["provider"] else {
            if let setting = settings.first {
                let line = values[setting.key]?.line ?? 0
                throw Problem(line: line, reason: "'\(setting.key)' is only used with 'provider'")
            }
            guard let issuer = values["issuer"]?.value else {
                throw Problem(line: 0, reason: "'issuer' (or 'provider') is missing")
            }
            return (issuer, nil)
        }
        if let issuer = values["issuer"] {
            throw Problem(line: issuer.line, reason: "give 'issuer' or 'provider', not both")
        }
        guard let preset = ProviderPreset.named(name.value) else {
            let known = ProviderPreset.names.joined(separator: ", ")
            throw Problem(line: name.line, reason: "unknown provider (known: \(known))")
        }
        var given: [ProviderPreset.Parameter: String] = [:]
        for setting in settings { given[setting.parameter] = values[setting.key]?.value }
        let resolved: ResolvedProvider
        do {
            resolved = try preset.resolve(given)
        } catch let error as DeviceLoginError {
            throw Problem(line: name.line, reason: Sanitizer.sanitize(error.message, maxLength: 300))
        } catch {
            throw Problem(line: name.line, reason: "the provider's settings are refused")
        }
        guard let issuer = resolved.issuer else {
            throw Problem(
                line: name.line,
                reason: "\(preset.title) gives no OpenID Connect issuer whose ID tokens could be verified")
        }
        return (issuer, preset.name)
    }

    /// The configuration from the values of a file's lines, each with its line number.
    private init(_ values: [String: (value: String, line: Int)]) throws(Problem) {
        func required(_ key: String) throws(Problem) -> String {
            guard let value = values[key]?.value else { throw Problem(line: 0, reason: "'\(key)' is missing") }
            return value
        }
        func problem(_ key: String, _ reason: String) -> Problem {
            Problem(line: values[key]?.line ?? 0, reason: reason)
        }
        (issuer, provider) = try Self.issuer(values)
        guard let url = URL(string: issuer), let scheme = url.scheme?.lowercased(),
            scheme == "https" || scheme == "http",
            url.host != nil
        else { throw problem("issuer", "'issuer' must be an http(s) URL") }
        clientID = try required("client_id")
        guard !clientID.contains(where: \.isWhitespace) else {
            throw problem("client_id", "'client_id' may not hold spaces")
        }
        clientSecretFile = values["client_secret_file"]?.value
        if let file = clientSecretFile, !file.hasPrefix("/") {
            throw problem("client_secret_file", "'client_secret_file' must be an absolute path")
        }
        var scopes = (values["scope"]?.value ?? "openid").split(separator: " ").map(String.init)
        if !scopes.contains("openid") { scopes.insert("openid", at: 0) }
        self.scopes = scopes
        let claim = values["username_claim"]?.value ?? UsernameClaim.preferredUsername.rawValue
        guard let usernameClaim = UsernameClaim(rawValue: claim) else {
            let known = UsernameClaim.allCases.map(\.rawValue).joined(separator: ", ")
            throw problem("username_claim", "'username_claim' must be one of \(known)")
        }
        self.usernameClaim = usernameClaim
        usernameMap = values["username_map"]?.value
        if let file = usernameMap, !file.hasPrefix("/") {
            throw problem("username_map", "'username_map' must be an absolute path")
        }
        allowedGroups = (values["allowed_groups"]?.value ?? "").split(whereSeparator: { $0 == " " || $0 == "," })
            .map(String.init)
        guard allowedGroups.count <= Self.maximumGroups else {
            throw problem("allowed_groups", "'allowed_groups' lists more than \(Self.maximumGroups) groups")
        }
        groupsClaim = values["groups_claim"]?.value ?? "groups"
        if values["groups_claim"] != nil, allowedGroups.isEmpty {
            throw problem("groups_claim", "'groups_claim' is given without 'allowed_groups'")
        }
        if let text = values["deadline"]?.value {
            guard let seconds = Int(text), Self.deadlineRange.contains(seconds) else {
                let range = Self.deadlineRange
                throw problem(
                    "deadline", "'deadline' must be whole seconds, \(range.lowerBound) to \(range.upperBound)")
            }
            deadline = seconds
        } else {
            deadline = Self.defaultDeadline
        }
        guard let qr = QRSetting(rawValue: values["qr"]?.value ?? "auto") else {
            throw problem("qr", "'qr' must be on, off or auto")
        }
        self.qr = qr
    }
}
