import DeviceLogin
import Foundation

/// A fresh private `DEVICE_LOGIN_HOME` with profiles saved in it, for the commands that read one.
struct ProfileFixture {
    static let issuer = "https://auth.example.test"
    static let clientID = "cli"

    let home: URL

    /// The environment that points the commands at this home.
    var environment: [String: String] { ["DEVICE_LOGIN_HOME": home.path] }

    init() throws {
        home = try BinaryHarness.temporaryHome()
    }

    /// Saves a profile of a public client of ``issuer`` (with a userinfo endpoint) holding `tokens`.
    @discardableResult
    func save(_ tokens: TokenSet?, name: String = Profile.defaultName) async throws -> ProfileRecord {
        let endpoints = ServerEndpoints(
            issuer: Self.issuer, deviceAuthorization: try Self.url("/device"), token: try Self.url("/token"),
            revocation: try Self.url("/revoke"), userinfo: try Self.url("/userinfo"), isOpenIDProvider: true
        )
        let profile = try Profile(name: name, issuer: Self.issuer, endpoints: endpoints, clientID: Self.clientID)
        let record = ProfileRecord(profile: profile, tokens: tokens)
        try await FileTokenStore(directory: home.path).save(record)
        return record
    }

    /// Removes the home and everything in it.
    func remove() {
        try? FileManager.default.removeItem(at: home)
    }

    private static func url(_ path: String) throws -> URL {
        guard let url = URL(string: issuer + path) else { throw CocoaError(.fileReadUnknown) }
        return url
    }

    /// An unsigned JWT (`alg: none`) with the given claims, as an ID token to decode.
    static func idToken(_ claims: [String: Any]) throws -> String {
        func encode(_ data: Data) -> String {
            data.base64EncodedString().replacingOccurrences(of: "=", with: "")
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        }
        let payload = try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])
        return encode(Data(#"{"alg":"none"}"#.utf8)) + "." + encode(payload) + "."
    }
}
