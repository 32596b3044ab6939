import DeviceLogin
import DeviceLoginTestSupport
import DeviceLoginTesting
import Foundation
import Testing

@testable import DeviceLoginCLI

@Suite("CurlConfig: curl -K lines that carry exactly the value, and nothing else")
struct CurlConfigTests {
    @Test(
        "a value in double quotes, with backslash and quote escaped",
        arguments: [
            ("abc", #""abc""#),
            ("", #""""#),
            (#"a"b"#, #""a\"b""#),
            (#"a\b"#, #""a\\b""#),
            (#"\""#, #""\\\"""#),
            // A trailing backslash must not escape the closing quote.
            (#"end\"#, #""end\\""#),
            // An attempt to close the quote and start another option stays inside the value.
            (#"x" -H "X-Injected: 1"#, #""x\" -H \"X-Injected: 1""#),
            (#"x"\nurl = "http://evil"#, #""x\"\\nurl = \"http://evil""#),
            // Characters that matter only outside quotes.
            ("# not a comment", ##""# not a comment""##),
            ("=x", #""=x""#),
            (":x", #"":x""#),
            ("a b\u{20}", #""a b ""#),
            ("é", #""é""#),
        ])
    func quoted(value: String, expected: String) {
        #expect(CurlConfig.quoted(value) == expected)
    }

    @Test(
        "a control character is refused, not escaped",
        arguments: ["a\nb", "a\rb", "a\tb", "\u{0}", "a\u{0B}b", "\u{1B}[2J", "\u{7F}", "x\n"])
    func control(value: String) {
        #expect(CurlConfig.quoted(value) == nil)
    }

    @Test("the authorization header: one line, the token quoted")
    func authorization() throws {
        #expect(
            try CurlConfig.authorization(bearer: "eyJhbGciOi.J9.x-y_z")
                == #"header = "Authorization: Bearer eyJhbGciOi.J9.x-y_z""# + "\n")
        #expect(try CurlConfig.authorization(bearer: #"a"b\c"#) == #"header = "Authorization: Bearer a\"b\\c""# + "\n")
    }

    @Test(
        "a token that is empty or not printable ASCII is refused (exit 76), and the error does not show it",
        arguments: ["", "secret\nurl = \"http://evil\"", "secret\u{0}", "secret\u{7F}", "sécret", "secret\t"])
    func refused(token: String) {
        do {
            _ = try CurlConfig.authorization(bearer: token)
            Issue.record("accepted \(token.debugDescription)")
        } catch let error as DeviceLoginError {
            #expect(error.code == .invalidResponse)
            #expect(ExitCode(error) == .protocolError)
            #expect(token.isEmpty || !error.message.contains("secret"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test(
        "BearerToken: printable ASCII, a space included",
        arguments: [
            ("abc", true), ("a b", true), ("~!@#$%^&*()_+{}|:\"<>?`-=[]\\;',./", true), ("", false), ("a\nb", false),
            ("a\u{0}", false), ("\u{7F}", false), ("ü", false), ("\u{1F600}", false),
        ])
    func sendable(token: String, expected: Bool) {
        #expect(BearerToken.isSendable(token) == expected)
    }

    /// curl itself, the reader these lines are for.
    static let curl = URL(fileURLWithPath: "/usr/bin/curl")

    /// Tokens that try to break out of the quoted value, or that curl would read differently unquoted.
    static let awkwardTokens = [
        "plain-token", #"a"b"#, #"a\b"#, #"end\"#, #"\\\""#, #"x" -H "X-Injected: 1"#, #"y" ; header = "X-Injected: 2"#,
        "# hash", "=equals", "spaced  out", #"\t\n"#,
    ]

    @Test(
        "curl -K - reads back exactly the token and no other option",
        .enabled(if: FileManager.default.isExecutableFile(atPath: curl.path), "needs curl at /usr/bin/curl"))
    func realCurl() async throws {
        let model = MockAuthorizationServer(configuration: .init(recording: .full))
        // One server for all the tokens, one curl after the other: each request is told apart by its order.
        let received = try await LoopbackServer.withRunning(model: model) { _ in
            // The listener moves the model's issuer to its own port: the endpoint is known only now.
            let userinfo = try #require(try model.endpoints().userinfo)
            var received: [[HTTPHeader]] = []
            for token in Self.awkwardTokens {
                let before = model.requests.count
                try await Self.runCurl(config: try CurlConfig.authorization(bearer: token), url: userinfo)
                received.append(model.requests.dropFirst(before).filter { $0.endpoint == .userinfo }.flatMap(\.headers))
            }
            return received
        }
        for (token, headers) in zip(Self.awkwardTokens, received) {
            let authorization = headers.filter { $0.name.lowercased() == "authorization" }.map(\.value)
            #expect(authorization == ["Bearer " + token], "\(token)")
            #expect(!headers.contains { $0.name.lowercased().hasPrefix("x-injected") }, "\(token)")
        }
    }

    /// Runs `curl -s -o /dev/null -K - URL` with `config` on its stdin, to completion.
    private static func runCurl(config: String, url: URL) async throws {
        let process = Process()
        process.executableURL = curl
        process.arguments = ["-s", "-o", "/dev/null", "-K", "-", url.absoluteString]
        process.environment = ["NO_PROXY": "*", "PATH": "/usr/bin:/bin"]
        let input = Pipe()
        process.standardInput = input
        let (out, err) = (Pipe(), Pipe())
        process.standardOutput = out
        process.standardError = err
        try process.run()
        try input.fileHandleForWriting.write(contentsOf: Data(config.utf8))
        try input.fileHandleForWriting.close()
        _ = await ChildProcess.finish(process, stdout: out, stderr: err)
    }

    @Test("the command: the config line alone on stdout, nothing on stderr")
    func command() async throws {
        let fixture = try ProfileFixture()
        defer { fixture.remove() }
        try await fixture.save(
            TokenSet(accessToken: "at-curl", expiresAt: Date().addingTimeInterval(3600), issuedAt: Date()),
            name: "work")
        let result = await CLIHarness.run(["curl-config", "--profile", "work"], environment: fixture.environment)
        #expect(result.code == .success, "\(result.stderr)")
        #expect(result.stdout == #"header = "Authorization: Bearer at-curl""# + "\n")
        #expect(result.stderr.isEmpty)
    }

    @Test("the command without a sign-in, or with a token it cannot carry: one line on stderr, nothing on stdout")
    func commandFailures() async throws {
        let fixture = try ProfileFixture()
        defer { fixture.remove() }
        try await fixture.save(nil, name: "signed-out")
        try await fixture.save(
            TokenSet(accessToken: "at\nurl = x", expiresAt: Date().addingTimeInterval(3600), issuedAt: Date()),
            name: "odd")
        for (profile, code) in [
            ("nobody", ExitCode.notSignedIn), ("signed-out", .notSignedIn), ("odd", .protocolError),
        ] {
            let result = await CLIHarness.run(["curl-config", "--profile", profile], environment: fixture.environment)
            #expect(result.code == code, "\(profile): \(result.stderr)")
            #expect(result.stdout.isEmpty, "\(profile)")
            #expect(!result.stderr.contains("url = x"))
            if code == .notSignedIn {
                #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
            }
        }
    }

    @Test("the command takes no arguments")
    func noArguments() async {
        let result = await CLIHarness.run(["curl-config", "https://api.example.com/"])
        #expect(result.code == .usage)
        #expect(result.stdout.isEmpty)
    }
}
