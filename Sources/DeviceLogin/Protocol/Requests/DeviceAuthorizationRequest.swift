/// The device authorization request (RFC 8628 §3.1).
///
/// > RFC 8628 §3.1: "The client makes a device authorization request to the device authorization endpoint by
/// > including the following parameters using the application/x-www-form-urlencoded format"
public struct DeviceAuthorizationRequest: Sendable, Hashable {
    /// `scope` (RFC 6749 §3.3), sent space-separated; omitted when empty.
    public var scopes: [String]
    /// `resource` (RFC 8707 §2), repeated once per value.
    public var resources: [String]
    /// Extra parameters, sent after the standard ones (e.g. Auth0's `audience`).
    public var additionalParameters: [FormParameter]

    /// Creates the request.
    public init(scopes: [String] = [], resources: [String] = [], additionalParameters: [FormParameter] = []) {
        self.scopes = scopes
        self.resources = resources
        self.additionalParameters = additionalParameters
    }

    /// The form parameters, in wire order, without client authentication (added by the client configuration).
    public var formParameters: [(String, String)] {
        var pairs: [(String, String)] = []
        if !scopes.isEmpty { pairs.append(("scope", scopes.joined(separator: " "))) }
        for resource in resources { pairs.append(("resource", resource)) }
        pairs.append(contentsOf: additionalParameters.map(\.pair))
        return pairs
    }
}
