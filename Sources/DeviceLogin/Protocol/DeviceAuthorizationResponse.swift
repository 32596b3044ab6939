/// The device authorization response (RFC 8628 §3.2).
///
/// Holds raw wire values: `expiresIn` and `interval` are seconds, not dates; the engine turns them into deadlines
/// with its injected clock.
public struct DeviceAuthorizationResponse: JSONObjectMessage, Hashable {
    /// The wire names (RFC 8628 §3.2).
    public enum CodingKeys: String, CodingKey, CaseIterable {
        case deviceCode = "device_code"
        case userCode = "user_code"
        case verificationURI = "verification_uri"
        case verificationURIComplete = "verification_uri_complete"
        case expiresIn = "expires_in"
        case interval
        /// Google and early Microsoft endpoints send `verification_url`.
        case verificationURL = "verification_url"
        /// Google sends `verification_url_complete` in some versions.
        case verificationURLComplete = "verification_url_complete"
    }

    /// The interval used when the server sends none (RFC 8628 §3.2: "If no value is provided, clients MUST use 5
    /// as the default").
    public static let defaultInterval = 5

    /// `device_code`: the secret the client polls with. Never print it.
    public var deviceCode: String
    /// `user_code`: the code the user types. Shown as the server sends it (RFC 8628 §6.1).
    public var userCode: String
    /// `verification_uri`: where the user goes.
    public var verificationURI: String
    /// `verification_uri_complete`: the verification URI with the user code in it, for QR codes (§3.3.1).
    public var verificationURIComplete: String?
    /// `expires_in`: seconds the device code stays valid.
    public var expiresIn: Int
    /// `interval`: the minimum seconds between polls, as sent (nil when absent).
    public var interval: Int?
    /// Fields not defined by RFC 8628, e.g. Microsoft's `message`.
    public var additionalFields: JSONObject

    /// Creates a response value.
    public init(
        deviceCode: String,
        userCode: String,
        verificationURI: String,
        verificationURIComplete: String? = nil,
        expiresIn: Int,
        interval: Int? = nil,
        additionalFields: JSONObject = [:]
    ) {
        self.deviceCode = deviceCode
        self.userCode = userCode
        self.verificationURI = verificationURI
        self.verificationURIComplete = verificationURIComplete
        self.expiresIn = expiresIn
        self.interval = interval
        self.additionalFields = additionalFields
    }

    /// Reads the response leniently.
    ///
    /// Tolerated on purpose: `verification_url` for `verification_uri` (Google, early Microsoft); `expires_in` and
    /// `interval` as strings (Microsoft's v1 endpoint, some Keycloak proxies).
    public init(jsonObject object: JSONObject) throws {
        func required(_ key: CodingKeys) throws -> String {
            guard let value = object.string(key.rawValue) else {
                throw DeviceLoginError(
                    .invalidResponse, "the device authorization response has no \(key.rawValue)"
                )
            }
            return value
        }
        deviceCode = try required(.deviceCode)
        userCode = try required(.userCode)
        // Google, early Microsoft: `verification_url`.
        guard let uri = object.string(CodingKeys.verificationURI.rawValue)
            ?? object.string(CodingKeys.verificationURL.rawValue) else {
            throw DeviceLoginError(.invalidResponse, "the device authorization response has no verification_uri")
        }
        verificationURI = uri
        verificationURIComplete = object.string(CodingKeys.verificationURIComplete.rawValue)
            ?? object.string(CodingKeys.verificationURLComplete.rawValue)
        guard let expires = object.integer(CodingKeys.expiresIn.rawValue), expires > 0 else {
            throw DeviceLoginError(
                .invalidResponse, "the device authorization response has no valid expires_in"
            )
        }
        expiresIn = expires
        interval = object.integer(CodingKeys.interval.rawValue)
        additionalFields = object.excluding(CodingKeys.allCases.map(\.rawValue))
    }

    /// The wire form.
    public var jsonObject: JSONObject {
        var object = additionalFields
        object[CodingKeys.deviceCode.rawValue] = .string(deviceCode)
        object[CodingKeys.userCode.rawValue] = .string(userCode)
        object[CodingKeys.verificationURI.rawValue] = .string(verificationURI)
        if let verificationURIComplete {
            object[CodingKeys.verificationURIComplete.rawValue] = .string(verificationURIComplete)
        }
        object[CodingKeys.expiresIn.rawValue] = .number(Double(expiresIn))
        if let interval { object[CodingKeys.interval.rawValue] = .number(Double(interval)) }
        return object
    }

    /// The longest polling interval taken from a server, in seconds: 3600 (one hour). A larger `interval`, here or
    /// with `slow_down` (``PollScheduler``), is read as this, so a stray huge number cannot stall a flow for ever.
    public static let maximumInterval = 3600

    /// The polling interval to start with, in seconds: the server's, or 5 when absent, 0 or negative.
    ///
    /// An `interval` of 0 would mean polling in a tight loop; RFC 8628 gives no meaning to it, so it is read as
    /// absent.
    public var effectiveInterval: Int {
        guard let interval, interval > 0 else { return Self.defaultInterval }
        return min(interval, Self.maximumInterval)
    }

    /// A message the server wrote for the user (Microsoft's `message`), if any.
    public var message: String? {
        additionalFields.string("message")
    }
}

extension DeviceAuthorizationResponse: CustomStringConvertible {
    /// A summary without the device code.
    public var description: String {
        "DeviceAuthorizationResponse(userCode: \(userCode), verificationURI: \(verificationURI), "
            + "expiresIn: \(expiresIn), interval: \(interval.map(String.init) ?? "nil"))"
    }
}
