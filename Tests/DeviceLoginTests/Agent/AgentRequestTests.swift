import Foundation
import Testing

@testable import DeviceLogin

/// The agent protocol's request line (docs/agent.md): what is read, what is refused, and which held profile answers.
@Suite("AgentRequest: the helpers' question to the agent")
struct AgentRequestTests {
    private static func read(_ text: String) -> Result<AgentRequest, AgentProtocolError> {
        Result { () throws(AgentProtocolError) in try AgentRequest(line: Array(text.utf8)) }
    }

    @Test(
        "a version 1 token request is read",
        arguments: [
            (#"{"v":1,"op":"token"}"#, nil, nil, 0),
            (#"{"v":1,"op":"token","profile":"work","min_ttl":60}"#, "work", nil, 60),
            (
                #"{"v":1,"op":"token","url":"https://git.example.test/team/repo.git","min_ttl":0}"#, nil,
                "https://git.example.test/team/repo.git", 0
            ),
            (
                #"{"v":1,"op":"token","profile":null,"url":null,"min_ttl":31536000,"new":"ignored"}"#, nil, nil,
                31_536_000
            ),
        ] as [(String, String?, String?, Int)])
    func reads(line: String, profile: String?, url: String?, lifetime: Int) throws {
        let request = try Self.read(line).get()
        #expect(request.profile == profile)
        #expect(request.url == (try url.map { try URLBinding($0) }))
        #expect(request.minimumLifetime == lifetime)
    }

    @Test(
        "anything else is refused, naming no input",
        arguments: [
            ("", "request is not a JSON object"),
            ("not json", "request is not a JSON object"),
            ("[1]", "request is not a JSON object"),
            (#"{"op":"token"}"#, "unknown version"),
            (#"{"v":"1","op":"token"}"#, "unknown version"),
            (#"{"v":2,"op":"token"}"#, "unknown version"),
            (#"{"v":1}"#, "unknown op"),
            (#"{"v":1,"op":"refresh_token"}"#, "unknown op"),
            (#"{"v":1,"op":"token","profile":"../x"}"#, "invalid profile name"),
            (#"{"v":1,"op":"token","profile":7}"#, "profile is not a string"),
            (#"{"v":1,"op":"token","url":"ftp://x"}"#, "invalid url"),
            (#"{"v":1,"op":"token","url":[]}"#, "url is not a string"),
            (#"{"v":1,"op":"token","min_ttl":-1}"#, "min_ttl out of range"),
            (#"{"v":1,"op":"token","min_ttl":1.5}"#, "min_ttl out of range"),
            (#"{"v":1,"op":"token","min_ttl":31536001}"#, "min_ttl out of range"),
            (#"{"v":1,"op":"token","min_ttl":"60"}"#, "min_ttl is not a number"),
        ])
    func refuses(line: String, reason: String) {
        #expect(Self.read(line) == .failure(AgentProtocolError(reason)))
    }

    @Test("a line of 8 KiB or more is refused before it is parsed")
    func oversized() {
        let padding = String(repeating: " ", count: AgentRequest.maximumLineLength)
        #expect(
            Self.read(#"{"v":1,"op":"token"}"# + padding) == .failure(AgentProtocolError("request longer than 8 KiB")))
    }

    @Test("the line written is read back as the same request")
    func roundTrip() throws {
        let request = AgentRequest(
            profile: "work", url: try URLBinding("https://git.example.test/team"), minimumLifetime: 60)
        #expect(
            request.line == #"{"v":1,"op":"token","profile":"work","url":"https://git.example.test/team","min_ttl":60}"#
                + "\n")
        #expect(try Self.read(String(request.line.dropLast())).get() == request)
    }

    @Test("dpop, erase and list are read, written and read back the same")
    func operations() throws {
        let dpop = try Self.read(
            #"{"v":1,"op":"dpop","profile":"api","htm":"post","htu":"https://api.example.test/v1?q=1","nonce":"n-1"}"#
        ).get()
        let url = try #require(URL(string: "https://api.example.test/v1?q=1"))
        #expect(dpop.operation == .proof(method: "POST", url: url, nonce: "n-1") && dpop.profile == "api")
        #expect(
            try Self.read(#"{"v":1,"op":"dpop","htu":"https://api.example.test/"}"#).get().operation
                == .proof(method: "GET", url: try #require(URL(string: "https://api.example.test/")), nonce: nil))
        let erase = try Self.read(#"{"v":1,"op":"erase","url":"https://git.example.test/team","access_token":"at"}"#)
            .get()
        let team = try URLBinding("https://git.example.test/team")
        #expect(erase.operation == .erase(accessToken: "at") && erase.url == team)
        #expect(try Self.read(#"{"v":1,"op":"list"}"#).get().operation == .list)
        for request in [dpop, erase, AgentRequest(profile: nil, url: nil, minimumLifetime: 0, operation: .list)] {
            #expect(try Self.read(String(request.line.dropLast())).get() == request)
        }
    }

    @Test(
        "a dpop or erase request out of bounds is refused",
        arguments: [
            (#"{"v":1,"op":"dpop"}"#, "invalid htu"),
            (#"{"v":1,"op":"dpop","htu":"ftp://x/"}"#, "invalid htu"),
            (#"{"v":1,"op":"dpop","htu":"https://x/a b"}"#, "invalid htu"),
            (#"{"v":1,"op":"dpop","htu":7}"#, "htu is not a string"),
            (#"{"v":1,"op":"dpop","htu":"https://x/","htm":"GE T"}"#, "invalid htm"),
            (#"{"v":1,"op":"dpop","htu":"https://x/","htm":""}"#, "invalid htm"),
            (#"{"v":1,"op":"dpop","htu":"https://x/","nonce":"a\"b"}"#, "invalid nonce"),
            (#"{"v":1,"op":"dpop","htu":"https://x/","nonce":""}"#, "invalid nonce"),
            (#"{"v":1,"op":"erase"}"#, "erase lacks access_token"),
            (#"{"v":1,"op":"erase","access_token":""}"#, "erase lacks access_token"),
        ])
    func refusesOperations(line: String, reason: String) {
        #expect(Self.read(line) == .failure(AgentProtocolError(reason)))
    }

    typealias Held = (name: String, bindings: [URLBinding], allowInsecureHTTP: Bool)

    @Test("the profile named answers; without one, the URL's; without either, default")
    func choice() throws {
        let team = try URLBinding("https://git.example.test/team")
        let host = try URLBinding("https://git.example.test")
        let plain = try URLBinding("http://git.example.test/team")
        let held: [Held] = [("default", [host], false), ("team", [team], false), ("lax", [], true)]
        func choose(_ profile: String?, _ url: URLBinding?) -> AgentRequest.Choice {
            AgentRequest(profile: profile, url: url, minimumLifetime: 0).choice(among: held)
        }
        #expect(choose("team", nil) == .profile("team"))
        #expect(choose("gone", nil) == .missing("gone"))
        #expect(choose(nil, nil) == .profile("default"))
        #expect(choose(nil, try URLBinding("https://git.example.test/team/app.git")) == .profile("team"))
        #expect(choose(nil, try URLBinding("https://git.example.test/other")) == .profile("default"))
        #expect(choose(nil, try URLBinding("https://elsewhere.example.test/")) == .none)
        #expect(choose("team", plain) == .plainHTTP("team"))
        #expect(choose("lax", plain) == .profile("lax"))
        #expect(
            AgentRequest(profile: nil, url: team, minimumLifetime: 0).choice(among: [
                ("a", [team], false), ("b", [team], false),
            ]) == .tie(["a", "b"], team))
        #expect(AgentRequest(profile: nil, url: nil, minimumLifetime: 0).choice(among: []) == .missing("default"))
    }
}
