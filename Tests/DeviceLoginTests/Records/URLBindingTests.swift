import Foundation
import Testing

@testable import DeviceLogin

@Suite("URLBinding: the URL prefixes a profile serves")
struct URLBindingTests {
    @Test(
        "parsing: scheme, host without case, default ports, path segments",
        arguments: [
            ("https://git.example.com", "https", "git.example.com", 443, [String]()),
            ("https://Git.Example.COM/", "https", "git.example.com", 443, []),
            ("http://127.0.0.1:8080/team/app.git", "http", "127.0.0.1", 8080, ["team", "app.git"]),
            ("HTTPS://git.example.com:443//team//", "https", "git.example.com", 443, ["team"]),
            ("registry.example.com", "https", "registry.example.com", 443, []),
            ("registry.example.com:5000/v2", "https", "registry.example.com", 5000, ["v2"]),
            ("https://index.docker.io/v1/", "https", "index.docker.io", 443, ["v1"]),
            ("https://[::1]:8443/api?x=1#y", "https", "[::1]", 8443, ["api"]),
        ])
    func parsing(text: String, scheme: String, host: String, port: Int, path: [String]) throws {
        let binding = try URLBinding(text)
        #expect(binding.scheme == scheme)
        #expect(binding.host == host)
        #expect(binding.port == port)
        #expect(binding.pathSegments == path)
    }

    @Test(
        "refused: other schemes, user information, bad ports and hosts, over-long text",
        arguments: [
            "ssh://git.example.com", "ftp://x", "https://user:secret@git.example.com", "https://",
            "https://:443", "https://host:0", "https://host:65536", "https://host:12ab", "https://host:999999",
            "https://ho st", "https://host\n.example", "https://[::1", "https://[::1]x",
            "https://" + String(repeating: "a", count: URLBinding.maximumLength),
        ])
    func refused(text: String) {
        #expect(throws: DeviceLoginError.self) { try URLBinding(text) }
    }

    @Test("a refusal says why")
    func refusalMessage() {
        do {
            _ = try URLBinding("https://host:99999")
            Issue.record("accepted a port out of range")
        } catch let error as DeviceLoginError {
            #expect(error.code == .configuration)
            #expect(error.message.contains("the port must be a number from 1 to 65535"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("the canonical text shows a port only when it is not the default, and reads back the same")
    func description() throws {
        #expect(try URLBinding("HTTPS://Git.Example.com:443/team/").description == "https://git.example.com/team")
        #expect(try URLBinding("http://127.0.0.1:8080").description == "http://127.0.0.1:8080")
        #expect(try URLBinding("registry.example.com").description == "https://registry.example.com")
        let binding = try URLBinding("http://[::1]:8080/a/b")
        #expect(try URLBinding(binding.description) == binding)
    }

    @Test(
        "matching: same scheme, host and port; the path at segment boundaries; the length is the segments matched",
        arguments: [
            ("https://git.example.com", "https://git.example.com/team/app.git", 0),
            ("https://git.example.com/team", "https://git.example.com/team/app.git", 1),
            ("https://git.example.com/team", "https://git.example.com/team", 1),
            ("https://git.example.com/team/app.git", "https://git.example.com/team/app.git", 2),
            ("https://git.example.com/team", "https://git.example.com/teamwork/app.git", nil),
            ("https://git.example.com/team", "https://git.example.com/", nil),
            ("https://git.example.com", "http://git.example.com", nil),
            ("https://git.example.com", "https://git.example.com:8443", nil),
            ("https://git.example.com:443", "https://GIT.example.com", 0),
            ("https://git.example.com", "https://other.example.com", nil),
            ("https://example.com", "https://git.example.com", nil),
        ] as [(String, String, Int?)])
    func matching(binding: String, url: String, expected: Int?) throws {
        #expect(try URLBinding(binding).matchLength(try URLBinding(url)) == expected)
    }

    @Test(
        "normalised as RFC 3986 §6.2.2 says: case, percent-encoding, dot segments (§5.2.4), default ports, empty path",
        arguments: [
            // §6.2.2.1: scheme and host without case; percent-encoding hex digits upper-cased.
            ("HTTPS://www.Example.COM/a%c2%b1b", "https://www.example.com/a%C2%B1b"),
            // §6.2.2.2: percent-encoded unreserved characters decoded; reserved ones kept encoded.
            ("https://example.com/%7Euser/%61%62%2Dc%5f%2E", "https://example.com/~user/ab-c_."),
            ("https://example.com/a%2Fb/c%3bd", "https://example.com/a%2Fb/c%3Bd"),
            ("https://git.example.com/%74eam-b", "https://git.example.com/team-b"),
            // Characters a path may not hold as they are: encoded, so text and encoding compare equal.
            ("https://example.com/caf\u{E9}/a b", "https://example.com/caf%C3%A9/a%20b"),
            ("https://example.com/x\u{1B}[31m", "https://example.com/x%1B%5B31m"),
            // §6.2.2.3 and §5.2.4: dot segments removed, encoded ones too; none climbs above the root.
            ("https://example.com/a/b/c/./../../g", "https://example.com/a/g"),
            ("https://example.com/mid/content=5/../6", "https://example.com/mid/6"),
            ("https://git.example.com/team-b/../team-a", "https://git.example.com/team-a"),
            ("https://git.example.com/team-b/%2e%2E/team-a", "https://git.example.com/team-a"),
            ("https://example.com/../../x/.", "https://example.com/x"),
            // §6.2.3: the default port and an empty path are the same as none and "/".
            ("http://example.com:80", "http://example.com"),
            ("https://example.com:443/", "https://example.com"),
            ("http://example.com:443", "http://example.com:443"),
        ])
    func normalised(text: String, expected: String) throws {
        let binding = try URLBinding(text)
        #expect(binding.description == expected)
        #expect(try URLBinding(binding.description) == binding, "normalising twice changes nothing")
    }

    @Test(
        "a binding serves the URLs that normalise under it, at a segment boundary, and no others",
        arguments: [
            ("https://git.example.com/team-b", "https://git.example.com/team-b/../team-a", nil),
            ("https://git.example.com/team-a", "https://git.example.com/team-b/../team-a", 1),
            ("https://git.example.com/team-b", "https://git.example.com/%74eam-b/app.git", 1),
            ("https://git.example.com/%74eam-b", "https://git.example.com/team-b", 1),
            ("https://git.example.com/team-a", "https://git.example.com/team-ab", nil),
            ("https://git.example.com/team-a", "https://git.example.com/team-a%2Fx", nil),
            ("https://git.example.com/a%2fb", "https://git.example.com/a%2Fb/c", 1),
            ("https://git.example.com/a%2Fb", "https://git.example.com/a/b", nil),
            ("https://git.example.com/team", "https://git.example.com/./team/./app.git", 1),
            ("https://git.example.com/team", "https://git.example.com/team/../../team", 1),
            ("https://git.example.com/team/app", "https://git.example.com/team/app/..", nil),
        ] as [(String, String, Int?)])
    func normalisedMatching(binding: String, url: String, expected: Int?) throws {
        #expect(try URLBinding(binding).matchLength(try URLBinding(url)) == expected)
    }

    @Test(
        "a '%' not followed by two hex digits is refused: no reading of it is the right one",
        arguments: ["https://example.com/a%", "https://example.com/a%4", "https://example.com/a%zz/b"])
    func badPercentEncoding(text: String) {
        #expect(throws: DeviceLoginError.self) { try URLBinding(text) }
    }

    @Test(
        "a refusal names what is wrong, never the text: it may hold a password",
        arguments: [
            "https://alice:hunter2@git.example.com", "alice:hunter2@registry.example.com", "ftp://hunter2.example",
            "https://hunter2.example:99999", "https://hunter2.example:12ab", "https://[hunter2",
            "https://hunter2 .example", "https://hunter2.example/%zz", "https://:hunter2",
            "https://" + String(repeating: "hunter2", count: 400),
        ])
    func refusalQuotesNothing(text: String) throws {
        let error = try #require(throws: DeviceLoginError.self) { try URLBinding(text) }
        #expect(!error.message.contains("hunter2"), "\(error.message)")
        #expect(!(error.hint ?? "").contains("hunter2"))
        #expect(!error.message.contains("alice"))
    }

    @Test("git's parts: protocol, host with a port, and a path without its leading slash")
    func gitParts() throws {
        let url = try URLBinding(scheme: "https", host: "git.example.com:8443", path: "team/app.git")
        #expect(url == (try URLBinding("https://git.example.com:8443/team/app.git")))
        #expect(try URLBinding(scheme: "http", host: "127.0.0.1") == (try URLBinding("http://127.0.0.1")))
        #expect(throws: DeviceLoginError.self) { try URLBinding(scheme: "ssh", host: "git.example.com") }
    }

    @Test("a profile keeps its bindings and user name through its file; a bad binding in the file is refused")
    func profileFile() throws {
        let endpoints = ServerEndpoints(
            deviceAuthorization: URL(string: "https://auth.example.com/device")!,
            token: URL(string: "https://auth.example.com/token")!)
        let profile = try Profile(
            name: "work", endpoints: endpoints, clientID: "cli",
            bindings: [try URLBinding("https://git.example.com/team"), try URLBinding("registry.example.com:5000")],
            username: "x-access-token")
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys // "username" last: the old-file case below removes it with its comma
        let data = try encoder.encode(profile)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains(#""bindings":["https:\/\/git.example.com\/team","https:\/\/registry.example.com:5000"]"#))
        let read = try JSONDecoder().decode(Profile.self, from: data)
        #expect(read == profile)
        #expect(read.effectiveUsername == "x-access-token")
        #expect(read.matchLength(try URLBinding("https://git.example.com/team/app.git")) == 1)
        #expect(read.matchLength(try URLBinding("https://git.example.com/other")) == nil)

        let bad = text.replacingOccurrences(of: "https:\\/\\/git.example.com\\/team", with: "ssh:\\/\\/x")
        #expect(throws: (any Error).self) { try JSONDecoder().decode(Profile.self, from: Data(bad.utf8)) }
        let old = try JSONDecoder().decode(
            Profile.self, from: Data(text.replacingOccurrences(of: #","username":"x-access-token""#, with: "").utf8))
        #expect(old.username == nil)
        #expect(old.effectiveUsername == Profile.defaultUsername)
    }

    @Test("user names: none empty, none over 256 characters, no control characters (a newline would add a line)")
    func usernames() throws {
        try Profile.validate(username: "oauth2")
        try Profile.validate(username: "x-access-token")
        for bad in ["", "a\nb", "a\rb", "a\u{0}b", String(repeating: "u", count: 257)] {
            #expect(throws: DeviceLoginError.self) { try Profile.validate(username: bad) }
        }
        let endpoints = ServerEndpoints(
            deviceAuthorization: URL(string: "https://auth.example.com/device")!,
            token: URL(string: "https://auth.example.com/token")!)
        #expect(throws: DeviceLoginError.self) {
            try Profile(endpoints: endpoints, clientID: "cli", username: "a\nb")
        }
        let many = try (0...Profile.maximumBindings).map { try URLBinding("https://h\($0).example.com") }
        #expect(throws: DeviceLoginError.self) { try Profile(endpoints: endpoints, clientID: "cli", bindings: many) }
    }
}
