import DeviceLogin
import Foundation
import Testing

@testable import DeviceLoginCLI

/// git's credential protocol, read and written: tables of requests as git sends them, malformed input, and answers.
@Suite("GitCredentialRequest: git's key=value protocol")
struct GitCredentialRequestTests {
    private static func request(
        _ protocolName: String? = nil, host: String? = nil, path: String? = nil, username: String? = nil,
        password: String? = nil, capabilities: [String] = [], wwwAuthenticate: [String] = []
    ) -> GitCredentialRequest {
        var request = GitCredentialRequest()
        request.protocolName = protocolName
        request.host = host
        request.path = path
        request.username = username
        request.password = password
        request.capabilities = capabilities
        request.wwwAuthenticate = wwwAuthenticate
        return request
    }

    /// Inputs and what they hold.
    static let parsed: [(String, GitCredentialRequest)] = [
        ("", request()),
        ("\n", request()),
        ("protocol=https\nhost=git.example.com\n\n", request("https", host: "git.example.com")),
        // git writes no blank line after its request: the end of input ends it; so does a last line without \n.
        ("protocol=https\nhost=git.example.com\n", request("https", host: "git.example.com")),
        ("protocol=https\nhost=git.example.com", request("https", host: "git.example.com")),
        ("protocol=https\r\nhost=git.example.com\r\n\r\n", request("https", host: "git.example.com")),
        (
            "protocol=http\nhost=127.0.0.1:8080\npath=team/app.git\nusername=alice\npassword=pw\n",
            request("http", host: "127.0.0.1:8080", path: "team/app.git", username: "alice", password: "pw")
        ),
        // The lines after the blank line are not the request's.
        ("host=a.example\n\nhost=b.example\nno equals sign\n", request(host: "a.example")),
        ("host=a.example\r\n\r\nhost=b.example\n", request(host: "a.example")),
        // The last value of a key counts; unknown keys, and an empty key, are ignored.
        ("host=a.example\nhost=b.example\n", request(host: "b.example")),
        ("url=https://x.example\nfrobnicate=1\n=value\npassword_expiry_utc=17\nquit=1\n", request()),
        // Only the first '=' separates; a value may hold '=' and spaces and be empty.
        ("password=a=b= c\nusername=\n", request(username: "", password: "a=b= c")),
        // Lists: each line adds; an empty value clears.
        (
            "capability[]=authtype\ncapability[]=state\nwwwauth[]=Basic realm=\"x\"\n",
            request(capabilities: ["authtype", "state"], wwwAuthenticate: ["Basic realm=\"x\""])
        ),
        ("wwwauth[]=Bearer\nwwwauth[]=\nwwwauth[]=Basic\n", request(wwwAuthenticate: ["Basic"])),
        // A lone \r is part of the value (it ends no line).
        ("host=a.example\rhost=b\n", request(host: "a.example\rhost=b")),
        // Values are bytes as they are: a non-ASCII host is kept (and makes no URL).
        ("host=caf\u{E9}\n", request(host: "caf\u{E9}")),
    ]

    @Test("requests as git sends them", arguments: parsed)
    func parses(input: String, expected: GitCredentialRequest) throws {
        #expect(try GitCredentialRequest(parsing: Array(input.utf8)) == expected)
    }

    @Test("bytes that are not UTF-8 become U+FFFD")
    func notUTF8() throws {
        let parsed = try GitCredentialRequest(parsing: Array("host=a".utf8) + [0xFF, 0xFE] + Array("\n".utf8))
        #expect(parsed.host == "a\u{FFFD}\u{FFFD}")
    }

    /// Inputs git's own reader refuses, or that no bound can allow, and the error.
    static let refused: [(NamedInput, CredentialInputError, String)] = [
        (NamedInput("garbage", "garbage\n"), .notKeyValue(line: 1), "line 1 of the request"),
        (
            NamedInput("a line without =", "protocol=https\nhost=a.example\nnot a pair\n"), .notKeyValue(line: 3),
            "line 3 of the request"
        ),
        (NamedInput("a key without =, CRLF", "protocol=https\r\nhost\r\n"), .notKeyValue(line: 2), "line 2"),
        (
            NamedInput("a NUL in a value", "protocol=https\nhost=a\0b\n"), .nulByte("the request"),
            "contains a NUL byte"
        ),
        (NamedInput("a NUL alone", [0]), .nulByte("the request"), "NUL"),
        (NamedInput.megabyteLine(), .tooLong("", limit: 0), "longer than 65536 bytes"),
        (
            NamedInput(
                "one byte over the limit",
                Array("password=".utf8) + Array(repeating: UInt8(ascii: "x"), count: GitCredentialRequest.maximumLength)
            ), .tooLong("", limit: 0), "longer than 65536 bytes"
        ),
    ]

    @Test("malformed input: an error that says what, never quoting the input", arguments: refused)
    func refuses(input: NamedInput, error: CredentialInputError, message: String) throws {
        let thrown = try #require(throws: CredentialInputError.self) { try GitCredentialRequest(parsing: input.bytes) }
        #expect(thrown == error)
        #expect(thrown.message.contains(message), "\(thrown.message)")
        #expect(!thrown.message.contains("garbage") && !thrown.message.contains("pair"))
    }

    @Test("the longest request allowed is read")
    func longest() throws {
        let prefix = Array("password=".utf8)
        let value = Array(repeating: UInt8(ascii: "x"), count: GitCredentialRequest.maximumLength - prefix.count)
        let parsed = try GitCredentialRequest(parsing: prefix + value)
        #expect(parsed.password?.utf8.count == value.count)
    }

    /// Bytes read so far, and whether they hold a whole request.
    static let completeness: [(String, Bool)] = [
        ("", false), ("\n", true), ("\r\n", true), ("\r", false), ("protocol=https", false),
        ("protocol=https\n", false), ("protocol=https\n\n", true), ("protocol=https\r\n\r\n", true),
        ("protocol=https\n\r\n", true), ("protocol=https\n\r", false), ("a=\rb\n", false), ("a=b\nc=d\n\nleft", true),
    ]

    @Test("a blank line completes a request", arguments: completeness)
    func complete(input: String, isComplete: Bool) {
        #expect(GitCredentialRequest.isComplete(Array(input.utf8)) == isComplete)
    }

    @Test("the reader's check, fed a growing buffer, agrees with the whole-buffer check", arguments: completeness)
    func incremental(input: String, isComplete: Bool) {
        let bytes = Array(input.utf8)
        for step in 1...3 {
            let check = GitCredentialRequest.completeness()
            var seen: [UInt8] = []
            var complete = false
            for start in stride(from: 0, to: bytes.count, by: step) where !complete {
                seen += bytes[start..<min(start + step, bytes.count)]
                complete = check(seen)
            }
            #expect(complete == isComplete, "step \(step)")
        }
    }

    @Test("read: stops at the blank line, whatever follows; refuses more than the limit", arguments: [1, 7, 4096])
    func read(chunkSize: Int) async throws {
        let input = "protocol=https\nhost=a.example\n\nhost=b.example\n"
        var (context, _, _) = CLIHarness.context()
        context.stdin = .bytes(Array(input.utf8), chunkSize: chunkSize)
        let request = try await GitCredentialRequest.read(from: context)
        #expect(request == Self.request("https", host: "a.example"))
        context.stdin = .bytes(NamedInput.megabyteLine().bytes, chunkSize: chunkSize)
        let tooLong = context
        await #expect(throws: CredentialInputError.tooLong("", limit: 0)) {
            try await GitCredentialRequest.read(from: tooLong)
        }
    }

    /// git's parts and the URL they make (nil: nothing to serve).
    static let urls: [(GitCredentialRequest, String?)] = [
        (request("https", host: "git.example.com"), "https://git.example.com"),
        (
            request("https", host: "Git.Example.com:8443", path: "team/app.git"),
            "https://git.example.com:8443/team/app.git"
        ),
        (request("http", host: "127.0.0.1:8080", path: "/repo.git"), "http://127.0.0.1:8080/repo.git"),
        (request("https", host: "git.example.com:443"), "https://git.example.com"),
        (request("ssh", host: "git.example.com"), nil),
        (request("cert", host: ""), nil),
        (request("smtp", host: "mail.example.com"), nil),
        (request("HTTPS", host: "git.example.com"), nil),
        (request("https"), nil),
        (request("https", host: ""), nil),
        (request(host: "git.example.com"), nil),
    ]

    @Test("the URL to serve: http(s) with a host", arguments: urls)
    func binding(request: GitCredentialRequest, url: String?) throws {
        #expect(try request.binding()?.description == url)
    }

    @Test(
        "a host that makes no URL is malformed input",
        arguments: [
            ("a b", "make no URL"), ("user@host", "make no URL"), ("host:99999", "make no URL"),
            ("[::1", "make no URL"),
            ("git.example.com/team", "not a host name"), ("git.example.com?x", "not a host name"),
            ("git.example.com#x", "not a host name"),
        ])
    func badHost(host: String, message: String) throws {
        let error = try #require(throws: CredentialInputError.self) {
            try Self.request("https", host: host).binding()
        }
        #expect(error == .invalidServerURL(""))
        #expect(error.message.hasPrefix("the host"))
        #expect(error.message.contains(message))
    }

    @Test("answers: key=value lines in order")
    func encodes() throws {
        let text = try GitCredentialRequest.encode([
            ("username", "oauth2"), ("password", "tok.en-_~+/="), ("password_expiry_utc", "1700000000"),
        ])
        #expect(text == "username=oauth2\npassword=tok.en-_~+/=\npassword_expiry_utc=1700000000\n")
        #expect(try GitCredentialRequest.encode([]) == "")
        #expect(try GitCredentialRequest.encode([("quit", "1")]) == "quit=1\n")
    }

    @Test(
        "a value git could not read back is not written, and the error does not show it",
        arguments: [
            NamedInput("a newline", "to\nken"), NamedInput("a carriage return", "to\rken"),
            NamedInput("a NUL", "to\0ken"), NamedInput("DEL", "to\u{7F}ken"),
            NamedInput("an escape sequence", "to\u{1B}[2Jken"), NamedInput("a trailing newline", "token\n"),
        ])
    func refusesToEncode(value: NamedInput) throws {
        let error = try #require(throws: DeviceLoginError.self) {
            try GitCredentialRequest.encode([
                ("username", "oauth2"), ("password", String(decoding: value.bytes, as: UTF8.self)),
            ])
        }
        #expect(error.code == .invalidResponse)
        #expect(error.message.contains("password"))
        #expect(!error.message.contains("ken"))
    }
}
