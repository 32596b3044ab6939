#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Fetches authorization server metadata (OpenID Connect Discovery 1.0 §4, RFC 8414 §3).
///
/// ```swift
/// let metadata = try await Discovery(transport: transport).metadata(issuer: "https://auth.example.com")
/// let endpoints = try ServerEndpoints(metadata: metadata)
/// ```
public struct Discovery: Sendable {
    private let transport: any HTTPTransport
    private let allowInsecureHTTP: Bool

    /// Creates a discovery client.
    /// - Parameters:
    ///   - transport: How requests are sent.
    ///   - allowInsecureHTTP: Whether plain HTTP is allowed to hosts that are not loopback.
    public init(transport: any HTTPTransport, allowInsecureHTTP: Bool = false) {
        self.transport = transport
        self.allowInsecureHTTP = allowInsecureHTTP
    }

    /// The metadata URLs to try for an issuer, in order.
    ///
    /// OpenID Connect appends `/.well-known/openid-configuration` to the issuer; RFC 8414 §3.1 inserts
    /// `/.well-known/oauth-authorization-server` between the host and the path. For an issuer without a path both
    /// coincide in shape; for a path-style issuer (`https://host/tenant`) the RFC 8414 form and the OIDC form
    /// differ, and both are tried, OIDC first.
    public static func metadataURLs(for issuer: URL) -> [URL] {
        var base = issuer.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        var urls: [URL] = []
        if let oidc = URL(string: base + "/.well-known/openid-configuration") { urls.append(oidc) }
        if var components = URLComponents(url: issuer, resolvingAgainstBaseURL: false) {
            var path = components.path
            while path.hasSuffix("/") { path.removeLast() }
            components.path = "/.well-known/oauth-authorization-server" + path
            components.query = nil
            components.fragment = nil
            if let url = components.url { urls.append(url) }
            if !path.isEmpty {
                // RFC 8414 §5: OIDC-style placement under a path-style issuer for the other well-known name,
                // which some servers (Keycloak behind a proxy) serve.
                components.path = "/.well-known/openid-configuration" + path
                if let url = components.url { urls.append(url) }
            }
        }
        return urls
    }

    /// Fetches and checks the metadata for `issuer`.
    ///
    /// Tries each of ``metadataURLs(for:)`` until one answers with a document; checks that the document's
    /// `issuer` equals the issuer asked for (ignoring a trailing slash).
    /// - Parameter issuer: The issuer identifier.
    /// - Returns: The metadata.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/discovery`` or
    ///   ``DeviceLoginError/Code/insecureEndpoint``; `CancellationError` when cancelled.
    public func metadata(issuer: String) async throws -> AuthorizationServerMetadata {
        guard let issuerURL = URL(string: issuer), issuerURL.host != nil else {
            throw DeviceLoginError(.configuration, "the issuer \"\(issuer)\" is not an absolute URL")
        }
        do {
            try EndpointPolicy.check(issuerURL, allowInsecureHTTP: allowInsecureHTTP)
        } catch let error as TransportError {
            throw DeviceLoginError(.insecureEndpoint, error.message, transportError: error)
        }
        var failures: [String] = []
        var serverFailures = 0
        let urls = Self.metadataURLs(for: issuerURL)
        for url in urls {
            let request = HTTPRequest(method: .get, url: url, headers: [HTTPHeader("Accept", "application/json")])
            let response: HTTPResponse
            do {
                response = try await transport.send(request)
            } catch let error as TransportError {
                throw DeviceLoginError(
                    .discovery, "could not fetch the server's metadata from \(url.absoluteString): \(error.message)",
                    hint: "check the issuer URL and the network", transportError: error
                )
            }
            guard response.status == 200 else {
                failures.append("\(url.absoluteString) answered HTTP \(response.status)")
                if response.status >= 500 || response.status == 429 { serverFailures += 1 }
                continue
            }
            let metadata: AuthorizationServerMetadata
            do {
                metadata = try AuthorizationServerMetadata(jsonObject: JSONValue.decodeObject(from: response.body))
            } catch {
                failures.append("\(url.absoluteString) did not answer with a metadata document")
                continue
            }
            guard Self.sameIssuer(metadata.issuer, issuer) else {
                throw DeviceLoginError(
                    .discovery,
                    "the metadata at \(url.absoluteString) is for issuer \(metadata.issuer), not \(issuer)",
                    hint: "use the issuer exactly as the server names it"
                )
            }
            return metadata
        }
        if serverFailures == urls.count {
            // Every location failed on the server's side: an outage, not a wrong issuer.
            throw DeviceLoginError(
                .transport, "the server failed to serve its metadata: " + failures.joined(separator: "; "),
                hint: "try again later"
            )
        }
        throw DeviceLoginError(
            .discovery, "no metadata found for \(issuer): " + failures.joined(separator: "; "),
            hint: "check the issuer, or give the endpoints by hand"
        )
    }

    /// Whether two issuer identifiers are the same, ignoring one trailing slash (RFC 8414 §3.3 asks for identity;
    /// some servers add or drop the slash).
    static func sameIssuer(_ a: String, _ b: String) -> Bool {
        func trim(_ s: String) -> String { s.hasSuffix("/") ? String(s.dropLast()) : s }
        return trim(a) == trim(b)
    }
}
