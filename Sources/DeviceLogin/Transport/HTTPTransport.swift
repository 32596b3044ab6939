/// The one thing the core library needs from HTTP: send a request, get a response.
///
/// Transports are given to the engine and token state at initialisation, never reached through a global.
/// Implementations must:
/// - honour task cancellation promptly, throwing `CancellationError`;
/// - return every HTTP status as a response (4xx and 5xx are not errors at this level);
/// - throw ``TransportError`` for failures below HTTP (DNS, connection, TLS, timeouts, size limits);
/// - never follow redirects on POST.
///
/// ```swift
/// struct Recording: HTTPTransport {
///     func send(_ request: HTTPRequest) async throws -> HTTPResponse {
///         HTTPResponse(status: 200, body: Data("{}".utf8))
///     }
/// }
/// ```
public protocol HTTPTransport: Sendable {
    /// Sends one request and returns its response.
    /// - Parameter request: The request to send.
    /// - Returns: The response, whatever its status.
    /// - Throws: ``TransportError`` when no response was received; `CancellationError` when the task is cancelled.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse
}
