#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A device authorization in progress: the server's response plus when it was received and when it expires.
///
/// Returned by ``DeviceFlow/requestAuthorization()``; show ``userCode`` and ``verificationURI`` to the user, then
/// pass it to ``DeviceFlow/pollForToken(_:onEvent:)`` on the same flow.
public struct DeviceAuthorization: Sendable, Hashable {
    /// The response as received (RFC 8628 §3.2).
    public var response: DeviceAuthorizationResponse
    /// The wall-clock time the response arrived (from the flow's `now` closure).
    public var receivedAt: Date
    /// Time on the flow's clock, since the flow was created, when the response arrived.
    public var receivedAtElapsed: Duration

    /// Creates an authorization value.
    public init(response: DeviceAuthorizationResponse, receivedAt: Date, receivedAtElapsed: Duration = .zero) {
        self.response = response
        self.receivedAt = receivedAt
        self.receivedAtElapsed = receivedAtElapsed
    }

    /// The wall-clock time the device code expires: `receivedAt + expires_in`.
    public var expiresAt: Date { receivedAt.addingTimeInterval(TimeInterval(response.expiresIn)) }
    /// The code the user types, as the server sent it.
    public var userCode: String { response.userCode }
    /// Where the user goes.
    public var verificationURI: String { response.verificationURI }
    /// The verification URI with the code in it, if the server gave one.
    public var verificationURIComplete: String? { response.verificationURIComplete }
    /// The URI to encode in a QR code: the complete URI when given, else the plain one (RFC 8628 §3.3.1).
    public var qrURI: String { response.verificationURIComplete ?? response.verificationURI }
    /// The interval polling starts with.
    public var initialInterval: Duration { .seconds(response.effectiveInterval) }
    /// The deadline on the flow's clock: `receivedAtElapsed + expires_in`.
    public var deadlineElapsed: Duration { receivedAtElapsed + .seconds(response.expiresIn) }
}
