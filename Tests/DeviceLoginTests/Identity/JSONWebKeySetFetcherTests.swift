import DeviceLoginTesting
import Foundation
import Testing

@testable import DeviceLogin

@Suite struct JSONWebKeySetFetcherTests {
    static let url = URL(string: "https://auth.example.com/jwks")

    func fetch(_ reply: @escaping ScriptedTransport.Reply, url: URL? = url) async throws -> JSONWebKeySet {
        let transport = ScriptedTransport([reply])
        let fetcher = JSONWebKeySetFetcher(transport: transport, headers: [HTTPHeader("X-Tenant", "t1")])
        return try await fetcher.fetch(try #require(url))
    }

    @Test func getsTheSetWithTheClientsHeaders() async throws {
        let transport = ScriptedTransport([ScriptedTransport.json(#"{"keys":[]}"#)])
        let fetcher = JSONWebKeySetFetcher(transport: transport, headers: [HTTPHeader("X-Tenant", "t1")])
        #expect(try await fetcher.fetch(try #require(Self.url)).keys.isEmpty)
        let request = try #require(transport.requests.first)
        #expect(request.method == .get)
        #expect(request.header("Accept") == "application/json")
        #expect(request.header("X-Tenant") == "t1")
    }

    @Test(arguments: [404, 500, 503])
    func anErrorStatusIsATransportError(status: Int) async {
        let error = await expectError(.transport) { _ = try await fetch(ScriptedTransport.status(status)) }
        #expect(error?.message.contains("answered HTTP \(status)") == true)
    }

    @Test func aBodyThatIsNotAKeySetIsAnInvalidResponse() async {
        for body in ["<html>", #"{"keys":"none"}"#, "[]"] {
            _ = await expectError(.invalidResponse) { _ = try await fetch(ScriptedTransport.json(body)) }
        }
        let huge = #"{"keys":[],"x":""# + String(repeating: "a", count: JSONWebKeySet.maximumBytes) + #""}"#
        let error = await expectError(.invalidResponse) { _ = try await fetch(ScriptedTransport.json(huge)) }
        #expect(error?.message.contains("larger than 256 KiB") == true)
    }

    @Test func plainHTTPToAnotherHostIsRefusedUnsent() async {
        let transport = ScriptedTransport([ScriptedTransport.json(#"{"keys":[]}"#)])
        _ = await expectError(.insecureEndpoint) {
            _ = try await JSONWebKeySetFetcher(transport: transport).fetch(
                try #require(URL(string: "http://auth.example.com/jwks")))
        }
        #expect(transport.requests.isEmpty)
        _ = await expectError(.transport) { _ = try await fetch(ScriptedTransport.failure(.connectionFailed)) }
    }
}
