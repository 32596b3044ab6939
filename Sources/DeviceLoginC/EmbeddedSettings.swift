import DeviceLogin

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The settings `dl_client_new` takes: a small JSON object with `"v": 1` (docs/embedding.md), so that a field can be
/// added without changing the C ABI. Parsed once, at the edge, with every size bounded.
struct EmbeddedSettings: Sendable, Equatable {
    /// The settings version this library reads.
    static let version = 1
    /// The most bytes of settings read: a client's settings are a few hundred.
    static let maximumBytes = 64 * 1024
    /// The longest string value, in bytes (a URL, a path, a client ID).
    static let maximumStringBytes = 2048
    /// The most scopes or resources.
    static let maximumListCount = 64
    /// The most bytes read from `client_secret_file`.
    static let maximumSecretBytes = 4096

    /// `issuer`: discovered at sign-in (RFC 8414, OpenID Connect Discovery).
    var issuer: String?
    /// `device_authorization_endpoint`: given by hand, or overriding the discovered one.
    var deviceAuthorizationEndpoint: URL?
    /// `token_endpoint`: given by hand, or overriding the discovered one.
    var tokenEndpoint: URL?
    /// `revocation_endpoint`: where sign-out revokes (RFC 7009).
    var revocationEndpoint: URL?
    /// `client_id`: needed to sign in.
    var clientID: String?
    /// `client_secret_file`: a file whose first line is the client secret (never saved in the profile).
    var clientSecretFile: String?
    /// `scopes`: nil for the default (``ClientConfiguration/scopes``).
    var scopes: [String]?
    /// `resources`: RFC 8707 resource indicators.
    var resources: [String] = []
    /// `profile`: the saved profile's name; `default` by default, as for the CLI.
    var profile: String = Profile.defaultName
    /// `store_directory`: an absolute folder; nil for the CLI's (``FileTokenStore/defaultDirectory(environment:)``).
    var storeDirectory: String?
    /// `allow_insecure_http`: plain HTTP to hosts that are not loopback.
    var allowInsecureHTTP = false
    /// `ca_file`: trust these CA certificates instead of the system's.
    var caFile: String?

    /// The keys version 1 knows; any other is refused, so that a misspelt key is never silently ignored.
    static let keys: Set<String> = [
        "v", "issuer", "device_authorization_endpoint", "token_endpoint", "revocation_endpoint", "client_id",
        "client_secret_file", "scopes", "resources", "profile", "store_directory", "allow_insecure_http", "ca_file",
    ]

    /// Reads settings from the bytes a C caller gave.
    /// - Throws: ``EmbeddedFailure`` with ``EmbeddedFailure/usage`` for text that is too long, not UTF-8, not JSON,
    ///   of another version, or with an unknown, mistyped or oversized field.
    init(json bytes: [UInt8]) throws(EmbeddedFailure) {
        guard bytes.count <= Self.maximumBytes else {
            throw .usage("the settings are longer than \(Self.maximumBytes) bytes")
        }
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            throw .usage("the settings are not valid JSON: \(error.description)")
        }
        guard case .object(let object) = value else { throw .usage("the settings must be a JSON object") }
        guard let version = object["v"], version == .number(Double(Self.version)) else {
            throw .usage("the settings must have \"v\": \(Self.version)")
        }
        if let unknown = object.keys.sorted().first(where: { !Self.keys.contains($0) }) {
            throw .usage("unknown settings key \"\(Sanitizer.sanitize(unknown, maxLength: 64))\"")
        }
        let fields = Fields(object: object)
        clientID = try fields.string("client_id")
        if clientID?.isEmpty == true { throw .usage("\"client_id\" must not be empty") }
        issuer = try fields.string("issuer")
        deviceAuthorizationEndpoint = try fields.url("device_authorization_endpoint")
        tokenEndpoint = try fields.url("token_endpoint")
        revocationEndpoint = try fields.url("revocation_endpoint")
        clientSecretFile = try fields.string("client_secret_file")
        scopes = try fields.list("scopes")
        resources = try fields.list("resources") ?? []
        profile = try fields.string("profile") ?? Profile.defaultName
        storeDirectory = try fields.string("store_directory")
        allowInsecureHTTP = try fields.bool("allow_insecure_http") ?? false
        caFile = try fields.string("ca_file")
        do {
            try Profile.validate(name: profile)
        } catch {
            throw .usage("\"profile\": \(EmbeddedFailure(error).message)")
        }
        if let storeDirectory, !storeDirectory.hasPrefix("/") {
            throw .usage("\"store_directory\" must be an absolute path")
        }
    }

    /// Checks that the settings can start a sign-in: a client ID, and an issuer or both endpoints. (Getting a
    /// token, the status or signing out needs neither: the saved profile has them.)
    /// - Throws: ``EmbeddedFailure/configuration(_:)`` naming what is missing.
    func checkSignIn() throws(EmbeddedFailure) {
        guard clientID != nil else { throw .configuration("a sign-in needs a \"client_id\" in the settings") }
        guard issuer != nil || (deviceAuthorizationEndpoint != nil && tokenEndpoint != nil) else {
            throw .configuration(
                "a sign-in needs an \"issuer\", or both \"device_authorization_endpoint\" and \"token_endpoint\","
                    + " in the settings")
        }
    }

    /// The typed fields of the settings object.
    private struct Fields {
        let object: JSONObject

        /// The string at `key`, bounded and without NUL; nil when absent or null.
        func string(_ key: String) throws(EmbeddedFailure) -> String? {
            guard let value = object[key], value != .null else { return nil }
            guard case .string(let text) = value else { throw .usage("\"\(key)\" must be a string") }
            guard text.utf8.count <= EmbeddedSettings.maximumStringBytes else {
                throw .usage("\"\(key)\" is longer than \(EmbeddedSettings.maximumStringBytes) bytes")
            }
            guard !text.utf8.contains(0) else { throw .usage("\"\(key)\" contains a NUL character") }
            return text
        }

        /// The absolute URL at `key`; nil when absent or null.
        func url(_ key: String) throws(EmbeddedFailure) -> URL? {
            guard let text = try string(key) else { return nil }
            guard let url = URL(string: text), url.scheme != nil, url.host != nil else {
                throw .usage("\"\(key)\" is not an absolute URL")
            }
            return url
        }

        /// The non-empty strings at `key`, at most ``EmbeddedSettings/maximumListCount``; nil when absent or null.
        func list(_ key: String) throws(EmbeddedFailure) -> [String]? {
            guard let value = object[key], value != .null else { return nil }
            guard case .array(let values) = value else { throw .usage("\"\(key)\" must be an array of strings") }
            guard values.count <= EmbeddedSettings.maximumListCount else {
                throw .usage("\"\(key)\" has more than \(EmbeddedSettings.maximumListCount) entries")
            }
            return try values.map { (value: JSONValue) throws(EmbeddedFailure) -> String in
                guard case .string(let text) = value, !text.isEmpty,
                    text.utf8.count <= EmbeddedSettings.maximumStringBytes
                else { throw .usage("\"\(key)\" must hold non-empty strings of at most 2048 bytes") }
                return text
            }
        }

        /// The boolean at `key`; nil when absent or null.
        func bool(_ key: String) throws(EmbeddedFailure) -> Bool? {
            guard let value = object[key], value != .null else { return nil }
            guard case .bool(let flag) = value else { throw .usage("\"\(key)\" must be true or false") }
            return flag
        }
    }
}
