import DeviceLogin
import Foundation
import Testing

@testable import DeviceLoginCLI

/// Docker's credential-helper protocol, read and written: server URLs as Docker and docker-py send them, `store`'s
/// JSON, malformed input, and the exact answers.
@Suite("DockerCredentialProtocol: docker-credential-helpers' wire format")
struct DockerCredentialProtocolTests {
    /// Inputs of `get` and `erase` and the server URL they name.
    static let urls: [(String, String)] = [
        ("registry.example.com", "registry.example.com"),
        ("registry.example.com\n", "registry.example.com"),
        ("  registry.example.com:5000 \r\n", "registry.example.com:5000"),
        ("\thttps://index.docker.io/v1/\n\n", "https://index.docker.io/v1/"),
        ("http://127.0.0.1:5000", "http://127.0.0.1:5000"),
    ]

    @Test("the server URL, without the white space around it", arguments: urls)
    func serverURL(input: String, url: String) throws {
        #expect(try DockerCredentialProtocol.serverURL(parsing: Array(input.utf8)) == url)
    }

    /// Inputs of `get` and `erase` that name no server, and the error.
    static let badURLs: [(NamedInput, CredentialInputError, String)] = [
        (NamedInput("nothing", ""), .noServerURL, "no server URL on standard input"),
        (NamedInput("white space", " \n\r\n\t"), .noServerURL, "no server URL"),
        (
            NamedInput("a NUL", "registry.example.com\0"), .nulByte(""),
            "the server URL on standard input contains a NUL"
        ),
        (NamedInput.megabyteLine(), .tooLong("", limit: 0), "longer than \(DockerCredentialProtocol.maximumURLLength)"),
        (NamedInput("two lines", "a.example\nb.example"), .invalidServerURL(""), "contains a space, a control"),
        (NamedInput("a space", "a.example b"), .invalidServerURL(""), "a space"),
        (NamedInput("an escape", "a.example\u{1B}[2J"), .invalidServerURL(""), "a control character"),
        (NamedInput("not UTF-8", [0x61, 0xFF, 0x62]), .invalidServerURL(""), "not UTF-8"),
    ]

    @Test("no server URL, or one with white space or controls inside: an error", arguments: badURLs)
    func refusesServerURL(input: NamedInput, error: CredentialInputError, message: String) throws {
        let thrown = try #require(throws: CredentialInputError.self) {
            try DockerCredentialProtocol.serverURL(parsing: input.bytes)
        }
        #expect(thrown == error)
        #expect(thrown.message.contains(message), "\(thrown.message)")
    }

    @Test(
        "server URLs as bindings: a registry host means https",
        arguments: [
            ("registry.example.com", "https://registry.example.com"),
            ("Registry.Example.com:5000/v2", "https://registry.example.com:5000/v2"),
            ("https://index.docker.io/v1/", "https://index.docker.io/v1"),
            ("http://127.0.0.1:5000", "http://127.0.0.1:5000"),
        ])
    func binding(url: String, binding: String) throws {
        #expect(try DockerCredentialProtocol.binding(url).description == binding)
    }

    @Test(
        "a server URL that is no registry: an error", arguments: ["ftp://a.example", "user@a.example", "a.example:0"])
    func badBinding(url: String) throws {
        let error = try #require(throws: CredentialInputError.self) { try DockerCredentialProtocol.binding(url) }
        #expect(error == .invalidServerURL(""))
        #expect(error.message.hasPrefix("invalid URL"))
    }

    @Test("store's credentials: docker-credential-helpers' JSON, unknown fields ignored")
    func credentials() throws {
        let input = #"{"ServerURL":"registry.example.com","Username":"ada","Secret":"s3cret","Extra":1}"# + "\n"
        #expect(
            try DockerCredentialProtocol.credentials(parsing: Array(input.utf8))
                == DockerCredentialProtocol.Credentials(
                    serverURL: "registry.example.com", username: "ada", secret: "s3cret"))
    }

    /// `store` inputs that are not its JSON, and what the error says.
    static let badCredentials: [(NamedInput, CredentialInputError, String)] = [
        (NamedInput("garbage", "garbage"), .invalidJSON(""), "not a JSON object with ServerURL, Username and Secret"),
        (NamedInput("nothing", ""), .invalidJSON(""), "not a JSON object"),
        (NamedInput("truncated JSON", #"{"ServerURL":"a.example","Username":"u","Secret":"#), .invalidJSON(""), "JSON"),
        (NamedInput("an array", #"["a.example","u","s"]"#), .invalidJSON(""), "JSON object"),
        (NamedInput("no Secret", #"{"ServerURL":"a.example","Username":"u"}"#), .invalidJSON(""), "JSON object"),
        (NamedInput("a number", #"{"ServerURL":"a.example","Username":"u","Secret":5}"#), .invalidJSON(""), "JSON"),
        (NamedInput("an empty URL", #"{"ServerURL":"","Username":"u","Secret":"s"}"#), .invalidJSON(""), "ServerURL"),
        (
            NamedInput("an empty user", #"{"ServerURL":"a.example","Username":"","Secret":"s"}"#), .invalidJSON(""),
            "Username"
        ),
        (
            NamedInput("a NUL", "{\"ServerURL\":\"a\0\"}"), .nulByte(""),
            "the credentials on standard input contains a NUL"
        ),
        (NamedInput.megabyteLine(after: #"{"Secret":""#), .tooLong("", limit: 0), "longer than 65536 bytes"),
    ]

    @Test("store's input that is not its JSON: an error that never quotes it", arguments: badCredentials)
    func refusesCredentials(input: NamedInput, error: CredentialInputError, message: String) throws {
        let thrown = try #require(throws: CredentialInputError.self) {
            try DockerCredentialProtocol.credentials(parsing: input.bytes)
        }
        #expect(thrown == error)
        #expect(thrown.message.contains(message), "\(thrown.message)")
        #expect(!thrown.message.contains("a.example") && !thrown.message.contains("garbage"))
    }

    @Test("get's answer: one line of JSON with the three fields")
    func answer() throws {
        let text = try DockerCredentialProtocol.credentials(
            serverURL: "https://registry.example.com/v2", username: "oauth2", secret: "tok\"en")
        #expect(
            text == #"{"Secret":"tok\"en","ServerURL":"https://registry.example.com/v2","Username":"oauth2"}"# + "\n")
        let decoded = try JSONDecoder().decode(DockerCredentialProtocol.Credentials.self, from: Data(text.utf8))
        #expect(decoded.secret == "tok\"en")
    }

    @Test("list's answer: URL to user name, the first of a URL given twice")
    func list() throws {
        #expect(try DockerCredentialProtocol.list([]) == "{}\n")
        let text = try DockerCredentialProtocol.list([
            ("https://registry.example.com", "oauth2"), ("http://127.0.0.1:5000", "ada"),
            ("https://registry.example.com", "bob"),
        ])
        #expect(text == #"{"http://127.0.0.1:5000":"ada","https://registry.example.com":"oauth2"}"# + "\n")
    }

    @Test("the not-found answer is docker-credential-helpers' own message")
    func notFound() {
        #expect(DockerCredentialProtocol.notFound == "credentials not found in native keychain")
    }
}
