import Testing

@testable import DeviceLogin

/// The agent protocol's reply line: written and read back; what is refused; nothing unsafe in a message.
@Suite("AgentReply: the agent's answer")
struct AgentReplyTests {
    private static func read(_ text: String) -> Result<AgentReply, AgentProtocolError> {
        Result { () throws(AgentProtocolError) in try AgentReply(line: Array(text.utf8)) }
    }

    @Test("a token, none and a failure are written as one line and read back the same")
    func roundTrip() throws {
        let token = AgentReply.token(
            AgentReply.Token(
                profile: "work", accessToken: "at-1", tokenType: "Bearer", expiresAt: 1_796_630_400, username: "alice"))
        #expect(
            token.line
                == #"{"v":1,"ok":true,"profile":"work","access_token":"at-1","token_type":"Bearer","expires_at":1796630400,"username":"alice"}"#
                + "\n")
        let failure = AgentReply.failure(
            AgentReply.Failure(AgentReply.Failure.signInNeeded, profile: "work", message: "no tokens"))
        for reply in [token, .none, failure] {
            #expect(try Self.read(String(reply.line.dropLast())).get() == reply)
        }
    }

    @Test("a DPoP token with its proof, erase's answer and list's profiles are read back the same")
    func newReplies() throws {
        let proven = AgentReply.token(
            AgentReply.Token(
                profile: "api", accessToken: "at", tokenType: "DPoP", expiresAt: nil, username: nil, proof: "p.r.f"))
        #expect(
            proven.line
                == #"{"v":1,"ok":true,"profile":"api","access_token":"at","token_type":"DPoP","dpop_proof":"p.r.f"}"#
                + "\n")
        let listed = AgentReply.profiles([
            AgentReply.Listed(name: "work", username: "alice", bindings: ["https://git.example.test/team"]),
            AgentReply.Listed(name: "default", username: nil, bindings: []),
        ])
        for reply in [proven, .erased(true), .erased(false), listed, .profiles([])] {
            #expect(try Self.read(String(reply.line.dropLast())).get() == reply)
        }
        #expect(
            Self.read(#"{"v":1,"ok":true,"profiles":[{"name":"a"}]}"#)
                == .failure(AgentProtocolError("a listed profile lacks its name or bindings")))
        #expect(
            Self.read(#"{"v":1,"ok":true,"profiles":[{"name":"a","bindings":[1]}]}"#)
                == .failure(AgentProtocolError("a binding is not a string")))
    }

    @Test("a message is sanitised where it is written: no escape reaches the helper's terminal")
    func sanitised() throws {
        let reply = AgentReply.failure(
            AgentReply.Failure(AgentReply.Failure.unavailable, profile: nil, message: "bad\u{1B}[2Jserver\u{202E}"))
        guard case .failure(let failure) = try Self.read(String(reply.line.dropLast())).get() else {
            Issue.record("not a failure")
            return
        }
        #expect(!failure.message.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{202E}" })
        #expect(failure.message.contains("server"))
    }

    @Test(
        "replies that break the protocol are refused",
        arguments: [
            ("", "reply is not a JSON object"),
            (#"{"v":2,"ok":true,"none":true}"#, "unknown version"),
            (#"{"v":1}"#, "reply lacks ok"),
            (#"{"v":1,"ok":true}"#, "reply lacks a token"),
            (#"{"v":1,"ok":true,"profile":"p","access_token":"","token_type":"Bearer"}"#, "reply lacks a token"),
            (
                #"{"v":1,"ok":true,"profile":"p","access_token":"a","token_type":"Bearer","expires_at":-1}"#,
                "expires_at out of range"
            ),
            (#"{"v":1,"ok":false}"#, "reply lacks an error"),
        ])
    func refuses(line: String, reason: String) {
        #expect(Self.read(line) == .failure(AgentProtocolError(reason)))
    }

    @Test("a reply of 32 KiB or more is refused")
    func oversized() {
        let line = #"{"v":1,"ok":true,"none":true}"# + String(repeating: " ", count: AgentReply.maximumLineLength)
        #expect(Self.read(line) == .failure(AgentProtocolError("reply longer than 32 KiB")))
    }
}
