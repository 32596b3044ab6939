import DeviceLogin

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An `HTTPTransport` that hands requests straight to a ``MockAuthorizationServer``: no sockets, no real time.
///
/// It behaves like a real transport where the engine can tell: a request to another host fails as a connection
/// failure; a dropped connection throws `TransportError` `connectionFailed`; a body over the limit throws
/// `responseTooLarge`; cancellation throws `CancellationError`, also while a scripted delay is being waited out
/// on the server's clock.
///
/// ```swift
/// let server = MockAuthorizationServer(clock: clock)
/// let transport = InProcessTransport(server: server)
/// let response = try await transport.send(HTTPRequest(method: .get, url: discoveryURL))
/// ```
public struct InProcessTransport: HTTPTransport {
    /// The server answering.
    public let server: MockAuthorizationServer
    /// The largest body returned; a larger one throws `TransportError` `responseTooLarge`, as the real
    /// transports do.
    public let maximumResponseBytes: Int

    /// Creates a transport.
    /// - Parameters:
    ///   - server: The server answering.
    ///   - maximumResponseBytes: The body limit; `TransportOptions.defaultMaximumResponseBytes` by default.
    public init(
        server: MockAuthorizationServer,
        maximumResponseBytes: Int = TransportOptions.defaultMaximumResponseBytes
    ) {
        self.server = server
        self.maximumResponseBytes = maximumResponseBytes
    }

    /// Sends a request to the server and returns its answer.
    /// - Parameter request: The request; its URL must be under the server's issuer origin.
    /// - Returns: The server's response, whatever its status.
    /// - Throws: `TransportError` `connectionFailed` for another origin or a dropped connection,
    ///   `responseTooLarge` over the limit; `CancellationError` when the task is cancelled.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try Task.checkCancellation()
        let host = request.url.host ?? ""
        guard let answer = await server.handle(request, fromOrigin: IssuerLayout.origin(of: request.url)) else {
            throw TransportError(.connectionFailed, "could not connect to \(host): no mock server there")
        }
        try Task.checkCancellation()
        guard let response = answer.response else {
            throw TransportError(.connectionFailed, "the connection to \(host) was closed before a response")
        }
        guard response.body.count <= maximumResponseBytes else {
            throw TransportError(
                .responseTooLarge, "the response from \(host) is larger than \(maximumResponseBytes) bytes"
            )
        }
        return response
    }
}
