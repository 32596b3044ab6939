/// The device access token request (RFC 8628 §3.4).
public struct DeviceAccessTokenRequest: Sendable, Hashable {
    /// The `grant_type` value: `urn:ietf:params:oauth:grant-type:device_code`.
    public static let grantType = "urn:ietf:params:oauth:grant-type:device_code"

    /// `device_code` from the device authorization response.
    public var deviceCode: String
    /// `resource` (RFC 8707 §2), repeated once per value.
    public var resources: [String]

    /// Creates the request.
    public init(deviceCode: String, resources: [String] = []) {
        self.deviceCode = deviceCode
        self.resources = resources
    }

    /// The form parameters in wire order, without client authentication.
    public var formParameters: [(String, String)] {
        [("grant_type", Self.grantType), ("device_code", deviceCode)] + resources.map { ("resource", $0) }
    }
}
