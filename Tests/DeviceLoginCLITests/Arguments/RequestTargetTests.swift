import Foundation
import Testing

@testable import DeviceLoginCLI

@Suite("RequestTarget: --url and --method for a DPoP proof")
struct RequestTargetTests {
    private func options(_ pairs: [(String, String)]) -> ParsedOptions {
        var options = ParsedOptions()
        for (name, value) in pairs { options.append(value, for: name) }
        return options
    }

    @Test(
        "a URL and a method, upper-cased, GET by default",
        arguments: [
            ([("url", "https://api.example.com/v1/items?page=2")], "GET"),
            ([("url", "http://127.0.0.1:8080/x"), ("method", "post")], "POST"),
            ([("url", "https://api.example.com/"), ("method", "PATCH")], "PATCH"),
            ([("url", "https://api.example.com/"), ("method", "M-SEARCH")], "M-SEARCH"),
        ])
    func accepted(pairs: [(String, String)], method: String) throws {
        let target = try #require(try RequestTarget.read(options(pairs), command: "curl-config"))
        #expect(target.method == method)
        #expect(target.url.absoluteString == pairs[0].1)
    }

    @Test("neither option: no target")
    func none() throws {
        #expect(try RequestTarget.read(options([]), command: "curl-config") == nil)
    }

    @Test(
        "refused: a method without a URL, a URL that is not absolute http(s), a method that is no HTTP token",
        arguments: [
            [("method", "GET")], [("url", "api.example.com/x")], [("url", "ftp://host/x")], [("url", "/relative")],
            [("url", "https://host/a b")], [("url", "https://host/x\n")],
            [("url", "https://host/"), ("method", "GE T")],
            [("url", "https://host/"), ("method", "GET\r\nX: y")], [("url", "https://host/"), ("method", "")],
            [("url", "https://host/"), ("method", String(repeating: "A", count: 33))],
        ])
    func refused(pairs: [(String, String)]) {
        #expect(throws: UsageError.self) { try RequestTarget.read(options(pairs), command: "curl-config") }
    }

    @Test(
        "a refusal names the option, never its value: a URL may hold a password or a token",
        arguments: [
            [("url", "ftp://alice:hunter2@host/x")], [("url", "https://host/x?access_token=hunter2 x")],
            [("url", "hunter2")], [("url", "https://host/"), ("method", "hunter2 x")],
        ])
    func refusalQuotesNothing(pairs: [(String, String)]) throws {
        let error = try #require(throws: UsageError.self) {
            try RequestTarget.read(options(pairs), command: "curl-config")
        }
        #expect(!error.message.contains("hunter2"), "\(error.message)")
        #expect(!error.message.contains("HUNTER2"), "\(error.message)")
    }

    @Test("other option names, for exec")
    func otherNames() throws {
        let target = try RequestTarget.read(
            options([("dpop-url", "https://h/x"), ("dpop-method", "delete")]), url: "dpop-url", method: "dpop-method",
            command: "exec")
        #expect(target == RequestTarget(method: "DELETE", url: try #require(URL(string: "https://h/x"))))
        #expect(throws: UsageError("--dpop-method needs --dpop-url, the URL of the request", command: "exec")) {
            try RequestTarget.read(
                options([("dpop-method", "GET")]), url: "dpop-url", method: "dpop-method", command: "exec")
        }
    }
}
