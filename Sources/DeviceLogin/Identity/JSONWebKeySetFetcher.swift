#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Fetches a key set from a `jwks_uri` through the transport: `GET`, HTTPS (or loopback) only, HTTP 200, at most
/// ``JSONWebKeySet/maximumBytes``, within ``timeout``.
///
/// The key set only decides a verdict on an ID token the tokens already arrived with, so it gets a wait of its own,
/// much shorter than the transport's (30 seconds by default): a slow or unreachable `jwks_uri` costs a sign-in or a
/// `status` a few seconds and an "undetermined" verdict, never the transport's whole time-out.
public struct JSONWebKeySetFetcher: Sendable {
    /// The longest a fetch waits for the key set: 5 seconds.
    public static let defaultTimeout = Duration.seconds(5)

    let transport: any HTTPTransport
    let allowInsecureHTTP: Bool
    let headers: [HTTPHeader]
    /// How long a fetch waits for the answer before it fails with a time-out.
    public let timeout: Duration
    private let clock: FlowClock

    /// Creates a fetcher.
    /// - Parameters:
    ///   - transport: How the request is sent.
    ///   - allowInsecureHTTP: Whether plain HTTP is allowed to hosts that are not loopback.
    ///   - headers: Extra headers for the request (the client's ``ClientConfiguration/additionalHeaders``).
    ///   - clock: The clock the time-out is measured on; default ``SystemTime/clock``.
    ///   - timeout: How long to wait for the key set; default ``defaultTimeout``.
    public init(
        transport: any HTTPTransport, allowInsecureHTTP: Bool = false, headers: [HTTPHeader] = [],
        clock: any Clock<Duration> = SystemTime.clock, timeout: Duration = defaultTimeout
    ) {
        self.init(
            transport: transport, allowInsecureHTTP: allowInsecureHTTP, headers: headers, flowClock: FlowClock(clock),
            timeout: timeout)
    }

    /// Creates a fetcher that measures its time-out on a clock already in use (a test's).
    package init(
        transport: any HTTPTransport, allowInsecureHTTP: Bool, headers: [HTTPHeader], flowClock: FlowClock,
        timeout: Duration = defaultTimeout
    ) {
        self.transport = transport
        self.allowInsecureHTTP = allowInsecureHTTP
        self.headers = headers
        self.clock = flowClock
        self.timeout = timeout
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
            response = try await sendWithinTimeout(request)
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

    /// Sends `request`, giving up after ``timeout`` on the clock: the request is then cancelled.
    private func sendWithinTimeout(_ request: HTTPRequest) async throws -> HTTPResponse {
        let (transport, clock, timeout) = (self.transport, self.clock, self.timeout)
        return try await withThrowingTaskGroup(of: HTTPResponse?.self) { group in
            group.addTask { try await transport.send(request) }
            group.addTask {
                try await clock.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let response = first else {
                throw TransportError(
                    .timedOut, "the key set did not arrive within \(timeout.components.seconds) seconds")
            }
            return response
        }
    }
}
