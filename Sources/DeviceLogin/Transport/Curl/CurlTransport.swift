#if canImport(CCurl)
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The default transport on Linux: HTTP(S) through libcurl.
///
/// Every request of the process runs on one long-lived thread (never on Swift's cooperative pool) that drives all
/// transfers with a single libcurl multi handle (see `CurlWorker`), and is bridged back to the calling task;
/// cancelling the task throws `CancellationError` at once and aborts the transfer. Connections are kept alive and
/// reused by later requests to the same server with the same proxy and TLS settings, whichever transport sends them.
///
/// What it does, so callers need not:
/// - only `http` and `https` URLs, and libcurl is restricted to those two protocols;
/// - redirects are not followed: a `3xx` comes back as a response;
/// - ``TransportOptions/connectTimeout`` and ``TransportOptions/requestTimeout`` bound the connection and the
///   whole request; ``TransportOptions/maximumResponseBytes`` bounds the body, which fails with
///   ``TransportError/Kind/responseTooLarge`` as soon as it is exceeded; headers are bounded too;
/// - ``TransportOptions/caFile`` replaces the system's CA certificates;
/// - proxies come from `https_proxy`, `http_proxy`, `all_proxy` and `no_proxy` as curl reads them (upper-case
///   `HTTP_PROXY` is ignored on purpose); see `ProxySettings`;
/// - the request's headers and body are sent as given: libcurl adds only `Host`, `Content-Length` and, when the
///   request has none, `User-Agent` from the options; it adds no `Accept`, `Content-Type` or `Expect`.
///
/// It does not apply ``EndpointPolicy``; the engine does that before a request is built.
///
/// ```swift
/// let transport = CurlTransport(options: TransportOptions(requestTimeout: 15))
/// let response = try await transport.send(HTTPRequest(method: .get, url: metadataURL))
/// ```
public struct CurlTransport: HTTPTransport {
    /// The options every request is sent with.
    public let options: TransportOptions
    private let environment: @Sendable (String) -> String?

    /// Creates a transport.
    /// - Parameter options: Timeouts, the response size limit, the CA file and the user agent.
    public init(options: TransportOptions = .init()) {
        self.init(options: options) { name in getenv(name).map { String(cString: $0) } }
    }

    /// Creates a transport that reads proxy variables from `environment` instead of the process's.
    init(options: TransportOptions, environment: @escaping @Sendable (String) -> String?) {
        self.options = options
        self.environment = environment
    }

    /// Sends one request through libcurl and returns its response.
    /// - Parameter request: The request; its URL must be `http` or `https`.
    /// - Returns: The response, whatever its status, redirects included.
    /// - Throws: ``TransportError`` when no response was received (its ``TransportError/kind`` says why);
    ///   `CancellationError` when the task is cancelled.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let scheme = request.url.scheme?.lowercased() ?? ""
        guard scheme == "http" || scheme == "https" else {
            throw TransportError(
                .insecureURL,
                "refusing a \(scheme.isEmpty ? "scheme-less" : scheme) URL: only http and https are supported"
            )
        }
        let setup = CurlTransfer.Setup(
            options: options,
            proxy: ProxySettings(scheme: scheme, environment: environment),
            headerLines: try Self.headerLines(for: request)
        )
        try Task.checkCancellation()
        return try await CurlWorker.shared().perform(request, setup: setup)
    }

    /// The request's header fields as libcurl header lines, plus the lines that stop libcurl adding its own.
    ///
    /// A field with an empty value is written `Name;` (libcurl's spelling for "send it empty"); `Accept:`,
    /// `Content-Type:` and `Expect:` with nothing after the colon remove libcurl's defaults. The empty `Expect`
    /// keeps libcurl from sending `Expect: 100-continue` and waiting for the server before sending a body.
    /// - Throws: ``TransportError`` of kind ``TransportError/Kind/other`` when a field could break the request
    ///   framing (a line break or NUL in it, or a name that is not an HTTP token). The message never quotes a value.
    static func headerLines(for request: HTTPRequest) throws(TransportError) -> [String] {
        var lines: [String] = []
        for header in request.headers {
            guard isToken(header.name) else {
                throw TransportError(.other, "a request header has a name that is not an HTTP token")
            }
            guard !header.value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else {
                throw TransportError(.other, "the value of request header \(header.name) contains a line break")
            }
            lines.append(header.value.isEmpty ? "\(header.name);" : "\(header.name): \(header.value)")
        }
        let suppressed = request.method == .post ? ["Accept", "Content-Type", "Expect"] : ["Accept", "Expect"]
        for name in suppressed where request.header(name) == nil {
            lines.append("\(name):")
        }
        return lines
    }

    /// Whether `name` is an HTTP field name (RFC 9110 §5.6.2 `token`), checked on its bytes: every request's every
    /// header passes here.
    private static func isToken(_ name: String) -> Bool {
        !name.isEmpty
            && name.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"):
                    true
                default:
                    "!#$%&'*+-.^_`|~".utf8.contains(byte)
                }
            }
    }
}
#endif
