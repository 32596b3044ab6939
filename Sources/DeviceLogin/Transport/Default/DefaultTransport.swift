/// Chooses the built-in transport for the platform: libcurl on Linux, URLSession on Apple platforms.
///
/// ```swift
/// let transport = DefaultTransport.make(options: TransportOptions(caFile: "/etc/company-ca.pem"))
/// let response = try await transport.send(HTTPRequest(method: .get, url: metadataURL))
/// ```
public enum DefaultTransport {
    /// Creates the platform's default transport.
    /// - Parameter options: Timeouts, the response size limit, the CA file and the user agent.
    /// - Returns: A ``CurlTransport`` on Linux, a `URLSessionTransport` on Apple platforms.
    public static func make(options: TransportOptions = .init()) -> any HTTPTransport {
        #if canImport(Darwin)
        return URLSessionTransport(options: options)
        #elseif canImport(CCurl)
        return CurlTransport(options: options)
        #else
        #error("DeviceLogin has no default HTTP transport for this platform")
        #endif
    }
}
