import Foundation
import Testing

@testable import DeviceLogin

/// A stored endpoint is checked by our own parser and made into a `URL` only on use: every endpoint Foundation
/// writes must pass the check (or a profile this library saved would read as corrupt), every text that passes must
/// be one `URL(string:)` takes, and damage must be refused.
@Suite("EndpointURL: stored endpoints checked without Foundation's parser")
struct EndpointURLTests {
    /// Texts as Foundation writes URLs (`absoluteString`): each passes, and makes the same URL again.
    @Test(arguments: [
        "https://auth.example.test/device",
        "http://127.0.0.1:8080/realms/dev/protocol/openid-connect/auth/device",
        "https://[::1]:8443/token",
        "https://[2001:db8::7]/oauth2/v2.0/token?api-version=2&x=%20y",
        "https://user:p%40ss@auth.example.test/t#frag",
        "https://login.microsoftonline.com/organizations/oauth2/v2.0/devicecode",
        "https://auth.example.test/a/b;c=d/~e_f.g-h!$&'()*+,=:@",
        "file:///device",
        "HTTPS://EXAMPLE.TEST/Path",
        "https://auth.example.test",
    ])
    func readsWhatFoundationWrites(_ text: String) throws {
        let url = try #require(URL(string: text))
        let written = url.absoluteString
        let stored = try #require(EndpointURL(stored: written))
        #expect(stored.url == url)
        #expect(stored.text == written)
        #expect(stored == EndpointURL(url))
    }

    /// What Foundation makes of odd input (it percent-encodes what RFC 3986 does not allow) still passes when
    /// written.
    @Test(arguments: [
        "https://auth.example.test/a b", "https://auth.example.test/ü?q=ä", "https://auth.example.test/<x>",
    ])
    func readsWhatFoundationEncodes(_ input: String) throws {
        guard let url = URL(string: input) else { return } // Foundation may refuse it outright: nothing stored.
        let stored = try #require(EndpointURL(stored: url.absoluteString))
        #expect(stored.url.absoluteString == url.absoluteString)
    }

    /// Damage: no scheme, characters RFC 3986 does not allow, a broken percent-encoding, a bad port, an
    /// unterminated IP literal, two fragments, control characters, too long.
    @Test(arguments: [
        "", "auth.example.test/device", "://x", "1https://x", "https://auth example.test/", "https://x/a b",
        "https://x/%", "https://x/%4", "https://x/%zz", "https://x:80a/", "https://x:123456/", "https://[::1/x",
        "https://[::g]/", "https://x/#a#b", "https://x/\u{7}", "https://x/\u{fc}", "https://x/\"", "https://x/<",
        "https://x/" + String(repeating: "a", count: EndpointURL.maximumLength),
    ])
    func refusesDamage(_ text: String) {
        #expect(EndpointURL(stored: text) == nil)
    }

    /// A stored profile's endpoints round-trip through the store's one reader, and read without making a URL
    /// until asked for one.
    @Test func roundTripsThroughTheStoredForm() throws {
        let endpoints = ServerEndpoints(
            issuer: "https://auth.example.test",
            deviceAuthorization: URL(string: "https://auth.example.test/device?x=%20")!,
            token: URL(string: "https://[::1]:8443/token")!, revocation: URL(string: "https://auth.example.test/r")!,
            userinfo: nil, isOpenIDProvider: true, jwks: URL(string: "https://auth.example.test/jwks#k")!,
            idTokenSigningAlgorithms: ["ES256"], scopesSupported: ["openid"])
        let encoded = try JSONEncoder().encode(endpoints)
        let decoded = try JSONDecoder().decode(ServerEndpoints.self, from: encoded)
        #expect(decoded == endpoints)
        #expect(decoded.token == endpoints.token)
        #expect(decoded.deviceAuthorization?.absoluteString == "https://auth.example.test/device?x=%20")
        #expect(decoded.userinfo == nil)
        // The written form is the URLs' text, as when the endpoints were stored as `URL`s.
        let object = try #require(try JSONSerialization.jsonObject(with: encoded) as? [String: Any])
        #expect(object["token_endpoint"] as? String == "https://[::1]:8443/token")
        #expect(object["userinfo_endpoint"] == nil)
    }

    /// A stored endpoint that is not a URI makes the record corrupt, with the field named and its value not
    /// quoted.
    @Test func aDamagedStoredEndpointNamesItsField() throws {
        let text =
            #"{"device_authorization_endpoint": "https://x/%zz", "token_endpoint": "https://x/t", "openid_provider": false}"#
        #expect {
            _ = try JSONDecoder().decode(ServerEndpoints.self, from: Data(text.utf8))
        } throws: { error in
            let message = (error as? DeviceLoginError)?.message ?? "\(error)"
            return message.contains("device_authorization_endpoint") && !message.contains("%zz")
        }
    }
}
