/// Settings shared by the built-in transports. A `Sendable` value with documented defaults.
public struct TransportOptions: Sendable, Hashable {
    /// The default largest response body accepted: 1 MiB.
    public static let defaultMaximumResponseBytes = 1 << 20

    /// Seconds allowed to establish a connection (TCP and TLS). Default 10.
    public var connectTimeout: Double
    /// Seconds allowed for a whole request. Default 30.
    public var requestTimeout: Double
    /// The largest response body accepted; a larger one fails with ``TransportError/Kind/responseTooLarge``.
    public var maximumResponseBytes: Int
    /// A PEM file of CA certificates to trust instead of the system's, if any.
    public var caFile: String?
    /// The `User-Agent` header sent with every request.
    public var userAgent: String

    /// Creates transport options; every parameter has a documented default.
    public init(
        connectTimeout: Double = 10,
        requestTimeout: Double = 30,
        maximumResponseBytes: Int = TransportOptions.defaultMaximumResponseBytes,
        caFile: String? = nil,
        userAgent: String = "device-login/\(DeviceLoginVersion.string)"
    ) {
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        self.maximumResponseBytes = maximumResponseBytes
        self.caFile = caFile
        self.userAgent = userAgent
    }
}
