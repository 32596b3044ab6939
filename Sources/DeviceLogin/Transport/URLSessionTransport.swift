#if canImport(Darwin)
import Foundation

/// The default transport on Apple platforms: HTTP(S) through an ephemeral `URLSession`.
///
/// Like ``CurlTransport`` it sends only `http` and `https` URLs, returns redirects as `3xx` responses instead of
/// following them, bounds the body by ``TransportOptions/maximumResponseBytes``, and throws `CancellationError`
/// when the calling task is cancelled. Where `URLSession` differs:
/// - ``TransportOptions/requestTimeout`` bounds the whole request; there is no separate connect timeout, so
///   ``TransportOptions/connectTimeout`` is not applied;
/// - proxies come from the system's settings;
/// - ``TransportOptions/caFile`` is not supported: a request with one fails with
///   ``TransportError/Kind/tlsFailure`` rather than silently trusting the system's CAs instead.
///
/// ```swift
/// let transport = URLSessionTransport(options: TransportOptions(requestTimeout: 15))
/// let response = try await transport.send(HTTPRequest(method: .get, url: metadataURL))
/// ```
public struct URLSessionTransport: HTTPTransport {
    /// The options every request is sent with.
    public let options: TransportOptions

    /// Creates a transport.
    /// - Parameter options: The request timeout, the response size limit and the user agent.
    public init(options: TransportOptions = .init()) {
        self.options = options
    }

    /// Sends one request through `URLSession` and returns its response.
    /// - Parameter request: The request; its URL must be `http` or `https`.
    /// - Returns: The response, whatever its status, redirects included.
    /// - Throws: ``TransportError`` when no response was received; `CancellationError` when the task is cancelled.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let scheme = request.url.scheme?.lowercased() ?? ""
        guard scheme == "http" || scheme == "https" else {
            throw TransportError(.insecureURL, "refusing a \(scheme) URL: only http and https are supported")
        }
        guard options.caFile == nil else {
            throw TransportError(
                .tlsFailure,
                "URLSessionTransport cannot use a CA file; add the CA to the system's trust settings instead"
            )
        }
        let host = request.url.host ?? "the server"
        let session = URLSession(configuration: configuration(), delegate: RedirectRefusal(), delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        do {
            let (bytes, response) = try await session.bytes(for: urlRequest(for: request))
            guard let http = response as? HTTPURLResponse else {
                throw TransportError(.invalidResponse, "\(host) did not answer with HTTP")
            }
            let limit = options.maximumResponseBytes
            let tooLarge = TransportError(.responseTooLarge, "the response body is larger than the \(limit)-byte limit")
            if http.expectedContentLength > Int64(limit) {
                bytes.task.cancel()
                throw tooLarge
            }
            var body = Data()
            for try await byte in bytes {
                guard body.count < limit else {
                    bytes.task.cancel()
                    throw tooLarge
                }
                body.append(byte)
            }
            return HTTPResponse(status: http.statusCode, headers: Self.headers(of: http), body: body)
        } catch let error as URLError {
            if error.code == .cancelled || Task.isCancelled { throw CancellationError() }
            throw Self.transportError(for: error, host: host)
        }
    }

    private func configuration() -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = options.requestTimeout
        configuration.timeoutIntervalForResource = options.requestTimeout
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        return configuration
    }

    private func urlRequest(for request: HTTPRequest) -> URLRequest {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method.rawValue
        for header in request.headers {
            urlRequest.addValue(header.value, forHTTPHeaderField: header.name)
        }
        if request.header("User-Agent") == nil {
            urlRequest.setValue(options.userAgent, forHTTPHeaderField: "User-Agent")
        }
        urlRequest.httpBody = request.body
        return urlRequest
    }

    /// The response's header fields, sorted by name (URLSession does not keep their order), at most 128.
    private static func headers(of response: HTTPURLResponse) -> [HTTPHeader] {
        let fields = response.allHeaderFields.compactMap { key, value -> HTTPHeader? in
            guard let name = key as? String else { return nil }
            return HTTPHeader(name, "\(value)")
        }
        return Array(fields.sorted { $0.name.lowercased() < $1.name.lowercased() }.prefix(128))
    }

    private static func transportError(for error: URLError, host: String) -> TransportError {
        let detail = error.localizedDescription
        switch error.code {
        case .cannotFindHost, .dnsLookupFailed:
            return TransportError(.dnsFailure, "could not resolve host \(host)")
        case .cannotConnectToHost, .networkConnectionLost, .notConnectedToInternet:
            return TransportError(.connectionFailed, "the connection to \(host) failed: \(detail)")
        case .timedOut:
            return TransportError(.timedOut, "the request to \(host) timed out")
        case .serverCertificateHasBadDate, .serverCertificateUntrusted, .serverCertificateHasUnknownRoot,
            .serverCertificateNotYetValid:
            return TransportError(.certificateVerificationFailed, "TLS with \(host) failed: \(detail)")
        case .secureConnectionFailed, .clientCertificateRejected, .clientCertificateRequired:
            return TransportError(.tlsFailure, "TLS with \(host) failed: \(detail)")
        case .badServerResponse, .cannotParseResponse, .cannotDecodeRawData, .cannotDecodeContentData:
            return TransportError(.invalidResponse, "\(host) did not answer with valid HTTP: \(detail)")
        case .dataLengthExceedsMaximum:
            return TransportError(.responseTooLarge, "the response from \(host) is too large")
        default:
            return TransportError(.other, "the request to \(host) failed: \(detail)")
        }
    }
}

/// Refuses every redirect, so that the `3xx` response itself is returned and a POST is never re-sent elsewhere.
private final class RedirectRefusal: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest
    ) async -> URLRequest? {
        nil
    }
}
#endif
