import Foundation

@testable import DeviceLogin

/// Values shared by the token tests.
enum Fixtures {
    static let start = Date(timeIntervalSince1970: 1_700_000_000)
    static let issuer = "https://auth.example.com"
    static let clientID = "cli"
    static let api = "https://api.example.com"

    static func url(_ path: String) -> URL {
        URL(string: issuer + path) ?? URL(fileURLWithPath: "/")
    }

    static var endpoints: ServerEndpoints {
        ServerEndpoints(
            issuer: issuer, deviceAuthorization: url("/device"), token: url("/token"), revocation: url("/revoke"),
            userinfo: url("/userinfo"), isOpenIDProvider: true
        )
    }

    static func profile(name: String = "default", endpoints: ServerEndpoints = endpoints) throws -> Profile {
        try Profile(name: name, endpoints: endpoints, clientID: clientID, scopes: ["openid", "offline_access"])
    }

    static let client = ClientConfiguration(clientID: clientID)

    /// Tokens received at `start`, expiring after `expiresIn` seconds.
    static func tokens(
        access: String = "AT-1", refresh: String? = "RT-1", idToken: String? = nil, expiresIn: TimeInterval = 3600,
        receivedAt: Date = start
    ) -> TokenSet {
        TokenSet(
            accessToken: access, expiresAt: receivedAt.addingTimeInterval(expiresIn), refreshToken: refresh,
            idToken: idToken, scope: "openid offline_access", issuedAt: receivedAt
        )
    }

    static func record(name: String = "default", tokens: TokenSet?) throws -> ProfileRecord {
        ProfileRecord(profile: try profile(name: name), tokens: tokens)
    }

    /// A token endpoint answer.
    static func tokenJSON(access: String, refresh: String? = nil, expiresIn: Int = 3600, idToken: String? = nil)
        -> String
    {
        var fields = ["\"access_token\":\"\(access)\"", "\"token_type\":\"Bearer\"", "\"expires_in\":\(expiresIn)"]
        if let refresh { fields.append("\"refresh_token\":\"\(refresh)\"") }
        if let idToken { fields.append("\"id_token\":\"\(idToken)\"") }
        return "{" + fields.joined(separator: ",") + "}"
    }

    /// An unsigned JWT with these claims.
    static func jwt(_ claims: JSONObject, header: JSONObject = ["alg": .string("RS256"), "typ": .string("JWT")])
        -> String
    {
        func part(_ object: JSONObject) -> String {
            let data = (try? JSONValue.encode(object)) ?? Data()
            return data.base64EncodedString()
                .replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        return part(header) + "." + part(claims) + ".c2lnbmF0dXJl"
    }

    /// The claims of a valid ID token for `clientID`, issued at `start`, living an hour.
    static func idClaims(subject: String = "user-1") -> JSONObject {
        [
            "iss": .string(issuer), "sub": .string(subject), "aud": .string(clientID),
            "exp": .number(start.timeIntervalSince1970 + 3600), "iat": .number(start.timeIntervalSince1970),
        ]
    }

    /// A fresh temporary directory (mode 0700) that the test removes.
    static func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "device-login-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(
            atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]
        )
        return path
    }
}

/// A store that counts calls and can run a hook when saving, around another store.
final class CountingStore: TokenStore, @unchecked Sendable {
    private let lock = NSLock()
    private let inner: any TokenStore
    private var counts: [String: Int] = [:]
    private let onSave: @Sendable (ProfileRecord) -> Void

    init(_ inner: any TokenStore, onSave: @escaping @Sendable (ProfileRecord) -> Void = { _ in }) {
        self.inner = inner
        self.onSave = onSave
    }

    func count(_ operation: String) -> Int { lock.withLock { counts[operation, default: 0] } }
    private func note(_ operation: String) { lock.withLock { counts[operation, default: 0] += 1 } }

    func load(profile name: String) async throws -> ProfileRecord? {
        note("load")
        return try await inner.load(profile: name)
    }

    func save(_ record: ProfileRecord) async throws {
        note("save")
        try await inner.save(record)
        onSave(record)
    }

    func remove(profile name: String) async throws {
        note("remove")
        try await inner.remove(profile: name)
    }

    func profileNames() async throws -> [String] {
        try await inner.profileNames()
    }

    func withExclusiveAccess<Value: Sendable>(
        profile name: String, _ body: @Sendable () async throws -> Value
    ) async throws -> Value {
        note("lock")
        return try await inner.withExclusiveAccess(profile: name, body)
    }
}
