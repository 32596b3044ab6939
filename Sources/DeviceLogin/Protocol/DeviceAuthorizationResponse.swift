/// The device authorization response (RFC 8628 §3.2).
///
/// Holds raw wire values: `expiresIn` and `interval` are seconds, not dates; the engine turns them into deadlines
/// with its injected clock.
///
/// Read leniently, on purpose: `verification_url` and `verification_url_complete` for the RFC names (Google, early
/// Microsoft); `expires_in` and `interval` as strings (Microsoft's v1 endpoint, some Keycloak proxies).
public struct DeviceAuthorizationResponse: WireMapped, Hashable {
    /// The longest polling interval taken from a server, in seconds: 3600 (one hour). A larger `interval`, here or
    /// with `slow_down` (``PollScheduler``), is read as this, so a stray huge number cannot stall a flow for ever.
    public static let maximumInterval = WireKind.maximumInterval

    /// The longest device-code lifetime taken from a server: one day, in seconds (RFC 8628's examples use 1800).
    public static let maximumLifetime = 86_400
    /// The longest user code accepted: 64 characters (RFC 8628 §6.1 recommends short codes; real ones have 8 or 9).
    public static let maximumUserCodeLength = 64

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
    /// `interval`: the minimum seconds between polls, as sent but bounded: a fraction rounded up, and anything above
    /// ``maximumInterval`` read as it (nil when absent or not a number).
    public var interval: Int?
    /// Fields not defined by RFC 8628, e.g. Microsoft's `message`.
    public var additionalFields: JSONObject

    /// The fields (RFC 8628 §3.2), in the order they are checked.
    /// ``WireMapped`` reads and writes the message by this table.
    static let wire = WireMapping<Self>(
        start: Self(deviceCode: "", userCode: "", verificationURI: "", expiresIn: 1), unknown: \.additionalFields,
        setUnknown: { $0.additionalFields = $1 },
        missing: { name in
            let what = name == "expires_in" ? "valid expires_in" : name
            return DeviceLoginError(.invalidResponse, "the device authorization response has no \(what)")
        },
        check: { response in
            // A code the person cannot see cannot be typed: refuse it before polling for it (RFC 8628 §3.3).
            guard response.userCode.hasVisibleCharacter, response.userCode.count <= Self.maximumUserCodeLength else {
                throw DeviceLoginError(
                    .invalidResponse,
                    "the server sent a user code that cannot be shown (empty, unprintable or too long)"
                )
            }
        },
        fields: [
            .required("device_code", \.deviceCode, .string) { $0.deviceCode = $1 },
            .required("user_code", \.userCode, .string) { $0.userCode = $1 },
            // Quirk: Google and early Microsoft endpoints send `verification_url`.
            .required("verification_uri", \.verificationURI, .string, aliases: ["verification_url"]) {
                $0.verificationURI = $1
            },
            // Quirk: Google sends `verification_url_complete` in some versions.
            .optional(
                "verification_uri_complete", \.verificationURIComplete, .string, aliases: ["verification_url_complete"]
            ) { $0.verificationURIComplete = $1 },
            // 0 or less is refused: a device code that has already expired.
            // More than a day reads as a day: the local deadline, and the time shown, stay sane.
            .required(
                "expires_in", \.expiresIn, .integer.requiring { $0 > 0 }.clamped(to: 1...Self.maximumLifetime)
            ) { $0.expiresIn = $1 },
            // Absent stays nil, 0 stays 0: `effectiveInterval` applies the RFC's default. More than an hour, even
            // 1e15 or a number too large for an integer, reads as an hour, and 2.5 as 3: never faster than asked.
            .optional("interval", \.interval, .waitSeconds(atMost: Self.maximumInterval)) { $0.interval = $1 },
        ]
    )

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
