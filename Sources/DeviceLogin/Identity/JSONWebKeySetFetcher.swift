#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Fetches a key set from a `jwks_uri` through the transport: `GET`, HTTPS (or loopback) only, HTTP 200, at most
/// ``JSONWebKeySet/maximumBytes``.
public struct JSONWebKeySetFetcher: Sendable {
    let transport: any HTTPTransport
    let allowInsecureHTTP: Bool
    let headers: [HTTPHeader]

    /// Creates a fetcher.
    /// - Parameters:
    ///   - transport: How the request is sent.
    ///   - allowInsecureHTTP: Whether plain HTTP is allowed to hosts that are not loopback.
    ///   - headers: Extra headers for the request (the client's ``ClientConfiguration/additionalHeaders``).
    public init(transport: any HTTPTransport, allowInsecureHTTP: Bool = false, headers: [HTTPHeader] = []) {
        self.transport = transport
        self.allowInsecureHTTP = allowInsecureHTTP
        self.headers = headers
    }

    /// Fetches and reads the set at `url`.
    /// - Throws: ``DeviceLoginError``: ``DeviceLoginError/Code/insecureEndpoint`` for a plain-HTTP URL not allowed,
    ///   ``DeviceLoginError/Code/transport`` when the request fails or the answer is not HTTP 200,
    ///   ``DeviceLoginError/Code/invalidResponse`` when the body is not a key set; `CancellationError`.
    public func fetch(_ url: URL) async throws -> JSONWebKeySet {
        let request = HTTPRequest(
            method: .get, url: url, headers: [HTTPHeader("Accept", "application/json")] + headers
        )
        let response: HTTPResponse
        do {
            try EndpointPolicy.check(url, allowInsecureHTTP: allowInsecureHTTP)
            response = try await transport.send(request)
        } catch let error as TransportError {
            throw DeviceLoginError.wrapping(error, while: "fetching the issuer's keys (\(url.absoluteString))")
        }
        guard response.status == 200 else {
            throw DeviceLoginError(
                .transport, "the issuer's key set (\(url.absoluteString)) answered HTTP \(response.status)",
                hint: response.status >= 500 ? "the server may be busy or down; try again later" : nil
            )
        }
        do {
            return try JSONWebKeySet(data: response.body)
        } catch {
            throw DeviceLoginError(
                .invalidResponse, "the issuer's key set (\(url.absoluteString)) cannot be read: \(error.message)"
            )
        }
    }
}
