import DeviceLogin
import Testing

@testable import DeviceLoginC

@Suite("EmbeddedSettings: the v1 JSON settings of dl_client_new")
struct EmbeddedSettingsTests {
    private func settings(_ text: String) throws(EmbeddedFailure) -> EmbeddedSettings {
        try EmbeddedSettings(json: Array(text.utf8))
    }

    @Test("every key is read")
    func everyKey() throws {
        let read = try settings(
            """
            {"v": 1, "issuer": "https://auth.example.com", "client_id": "app",
             "device_authorization_endpoint": "https://auth.example.com/device",
             "token_endpoint": "https://auth.example.com/token", "revocation_endpoint": "https://auth.example.com/r",
             "scopes": ["openid", "offline_access"], "resources": ["https://api.example.com"], "profile": "work",
             "store_directory": "/var/lib/tool", "allow_insecure_http": true, "ca_file": "/etc/ca.pem",
             "client_secret_file": null}
            """)
        #expect(read.issuer == "https://auth.example.com")
        #expect(read.clientID == "app")
        #expect(read.deviceAuthorizationEndpoint?.absoluteString == "https://auth.example.com/device")
        #expect(read.tokenEndpoint?.absoluteString == "https://auth.example.com/token")
        #expect(read.revocationEndpoint?.absoluteString == "https://auth.example.com/r")
        #expect(read.scopes == ["openid", "offline_access"])
        #expect(read.resources == ["https://api.example.com"])
        #expect(read.profile == "work")
        #expect(read.storeDirectory == "/var/lib/tool")
        #expect(read.allowInsecureHTTP)
        #expect(read.caFile == "/etc/ca.pem")
        #expect(read.clientSecretFile == nil)
    }

    @Test("the defaults: profile default, no scopes, the CLI's store, HTTPS only")
    func defaults() throws {
        let read = try settings(#"{"v":1}"#)
        #expect(read.profile == Profile.defaultName)
        #expect(read.scopes == nil && read.resources.isEmpty && read.storeDirectory == nil)
        #expect(!read.allowInsecureHTTP)
        #expect(throws: EmbeddedFailure.self) { try read.checkSignIn() }
    }

    @Test(
        "bad settings are a usage error that says why",
        arguments: [
            ("", "not valid JSON"),
            ("[]", "must be a JSON object"),
            (#"{"issuer":"https://a.example"}"#, #""v": 1"#),
            (#"{"v":2}"#, #""v": 1"#),
            (#"{"v":"1"}"#, #""v": 1"#),
            (#"{"v":1,"isuer":"https://a.example"}"#, "unknown settings key \"isuer\""),
            (#"{"v":1,"client_id":7}"#, "\"client_id\" must be a string"),
            (#"{"v":1,"client_id":""}"#, "must not be empty"),
            (#"{"v":1,"client_id":"a\u0000b"}"#, "NUL"),
            (#"{"v":1,"scopes":"openid"}"#, "must be an array of strings"),
            (#"{"v":1,"scopes":[""]}"#, "non-empty strings"),
            (#"{"v":1,"allow_insecure_http":"yes"}"#, "true or false"),
            (#"{"v":1,"token_endpoint":"/token"}"#, "absolute URL"),
            (#"{"v":1,"store_directory":"tokens"}"#, "absolute path"),
            (#"{"v":1,"profile":"../etc"}"#, "\"profile\""),
            (#"{"v":1,"v":1}"#, "not valid JSON"),
        ])
    func refused(text: String, reason: String) {
        do {
            _ = try settings(text)
            Issue.record("accepted: \(text)")
        } catch {
            #expect(error.status == ExitStatus.usage.rawValue)
            #expect(error.message.contains(reason), "\(error.message)")
        }
    }

    @Test("sizes are bounded: 64 KiB of settings, 2048-byte strings, 64 scopes")
    func bounds() throws {
        let padding = String(repeating: " ", count: EmbeddedSettings.maximumBytes - 7)
        #expect(throws: Never.self) { try settings(#"{"v":1}"# + padding) }
        #expect(throws: EmbeddedFailure.usage("the settings are longer than 65536 bytes")) {
            try settings(#"{"v":1}"# + padding + " ")
        }
        let long = String(repeating: "a", count: EmbeddedSettings.maximumStringBytes + 1)
        #expect(throws: EmbeddedFailure.self) { try settings(#"{"v":1,"client_id":"\#(long)"}"#) }
        let scopes = (0...EmbeddedSettings.maximumListCount).map { "\"s\($0)\"" }.joined(separator: ",")
        #expect(throws: EmbeddedFailure.self) { try settings(#"{"v":1,"scopes":[\#(scopes)]}"#) }
    }

    @Test("invalid UTF-8 is refused, not repaired")
    func invalidUTF8() {
        let bytes: [UInt8] = Array(#"{"v":1,"client_id":""#.utf8) + [0xFF, 0xFE] + Array(#""}"#.utf8)
        #expect(throws: EmbeddedFailure.self) { try EmbeddedSettings(json: bytes) }
    }

    @Test("a sign-in needs a client ID and an issuer or both endpoints")
    func signInNeeds() throws {
        #expect(throws: Never.self) {
            try settings(#"{"v":1,"client_id":"a","issuer":"https://a.example"}"#).checkSignIn()
        }
        let endpoints = #""device_authorization_endpoint":"https://a.example/d","token_endpoint":"https://a.example/t""#
        #expect(throws: Never.self) { try settings(#"{"v":1,"client_id":"a",\#(endpoints)}"#).checkSignIn() }
        for text in [
            #"{"v":1,"issuer":"https://a.example"}"#,
            #"{"v":1,"client_id":"a","token_endpoint":"https://a.example/t"}"#,
        ] {
            do {
                try settings(text).checkSignIn()
                Issue.record("a sign-in would start with \(text)")
            } catch {
                #expect(error.status == ExitStatus.configuration.rawValue)
            }
        }
    }
}
