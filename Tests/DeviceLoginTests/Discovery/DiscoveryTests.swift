import Foundation
import Testing

@testable import DeviceLogin

/// A transport answering from a table of URL → response, recording what was asked.
private final class TableTransport: HTTPTransport, @unchecked Sendable {
    private let table: [String: HTTPResponse]
    init(_ table: [String: HTTPResponse]) { self.table = table }
    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        table[request.url.absoluteString] ?? HTTPResponse(status: 404)
    }
}

@Suite("Discovery: OIDC Discovery and RFC 8414")
struct DiscoveryTests {
    private func document(_ issuer: String, device: Bool = true) -> HTTPResponse {
        var object: JSONObject = [
            "issuer": .string(issuer), "token_endpoint": .string(issuer + "/token"),
            "scopes_supported": .array([.string("openid")]),
        ]
        if device { object["device_authorization_endpoint"] = .string(issuer + "/device") }
        return HTTPResponse(status: 200, body: (try? JSONValue.encode(object)) ?? Data())
    }

    @Test("metadata URLs: OIDC first, then RFC 8414 with the path after the well-known segment")
    func urls() {
        #expect(
            Discovery.metadataURLs(for: URL(string: "https://a.example/")!).map(\.absoluteString) == [
                "https://a.example/.well-known/openid-configuration",
                "https://a.example/.well-known/oauth-authorization-server",
            ])
        #expect(
            Discovery.metadataURLs(for: URL(string: "https://a.example/tenant/x")!).map(\.absoluteString) == [
                "https://a.example/tenant/x/.well-known/openid-configuration",
                "https://a.example/.well-known/oauth-authorization-server/tenant/x",
                "https://a.example/.well-known/openid-configuration/tenant/x",
            ])
    }

    @Test("falls back to RFC 8414 for a path-style issuer")
    func pathStyleFallback() async throws {
        let issuer = "https://a.example/tenant"
        let transport = TableTransport([
            "https://a.example/.well-known/oauth-authorization-server/tenant": document(issuer)
        ])
        let metadata = try await Discovery(transport: transport).metadata(issuer: issuer)
        let endpoints = try ServerEndpoints(metadata: metadata)
        #expect(endpoints.deviceAuthorization?.absoluteString == "https://a.example/tenant/device")
        #expect(endpoints.isOpenIDProvider)
    }

    @Test("an issuer mismatch is refused")
    func issuerMismatch() async {
        let transport = TableTransport([
            "https://a.example/.well-known/openid-configuration": document("https://evil.example")
        ])
        await #expect(throws: DeviceLoginError(.discovery, "")) {
            try await Discovery(transport: transport).metadata(issuer: "https://a.example")
        }
    }

    @Test("metadata without a device endpoint (django-oauth-toolkit) needs it by hand")
    func missingDeviceEndpoint() throws {
        let metadata = try AuthorizationServerMetadata(jsonObject: [
            "issuer": .string("https://a.example"), "token_endpoint": .string("https://a.example/token"),
        ])
        #expect(throws: DeviceLoginError(.discovery, "")) { try ServerEndpoints(metadata: metadata) }
        let endpoints = try ServerEndpoints(
            metadata: metadata, deviceAuthorization: URL(string: "https://a.example/o/device-authorization/")
        )
        #expect(endpoints.deviceAuthorization?.absoluteString == "https://a.example/o/device-authorization/")
        #expect(endpoints.token.absoluteString == "https://a.example/token")
    }

    @Test("plain HTTP is refused for a remote issuer, allowed for loopback")
    func httpsPolicy() async throws {
        await #expect(throws: DeviceLoginError(.insecureEndpoint, "")) {
            try await Discovery(transport: TableTransport([:])).metadata(issuer: "http://a.example")
        }
        let transport = TableTransport([
            "http://127.0.0.1:8080/.well-known/openid-configuration": document("http://127.0.0.1:8080")
        ])
        let metadata = try await Discovery(transport: transport).metadata(issuer: "http://127.0.0.1:8080")
        #expect(metadata.issuer == "http://127.0.0.1:8080")
    }

    @Test("no metadata anywhere: one error listing what each URL answered")
    func nothingFound() async {
        do {
            _ = try await Discovery(transport: TableTransport([:])).metadata(issuer: "https://a.example")
            Issue.record("expected an error")
        } catch let error as DeviceLoginError {
            #expect(error.code == .discovery)
            #expect(error.message.contains("HTTP 404"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("every metadata location failing with 5xx is a server failure, not a wrong issuer")
    func serverOutage() async {
        let outage = HTTPResponse(status: 503)
        let transport = TableTransport([
            "https://a.example/.well-known/openid-configuration": outage,
            "https://a.example/.well-known/oauth-authorization-server": outage,
        ])
        await #expect(throws: DeviceLoginError(.transport, "")) {
            try await Discovery(transport: transport).metadata(issuer: "https://a.example")
        }
    }

    @Test("endpoints are stored with snake_case names")
    func storedNames() throws {
        let endpoints = ServerEndpoints(
            issuer: "https://a", deviceAuthorization: URL(string: "https://a/d"),
            token: try #require(URL(string: "https://a/t")), isOpenIDProvider: true
        )
        let data = try JSONEncoder().encode(endpoints)
        let object = try JSONValue.decodeObject(from: data)
        #expect(Set(object.keys) == ["issuer", "device_authorization_endpoint", "token_endpoint", "openid_provider"])
        #expect(try JSONDecoder().decode(ServerEndpoints.self, from: data) == endpoints)
    }
}
