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
    /// The server the sign-in was started with, which ``hostCheck`` compares the verification URI with: the
    /// issuer identifier, or the device authorization endpoint's URL when the endpoints were given by hand; nil
    /// when unknown.
    public var issuer: String?
    /// Where polling stood when this authorization was saved by another process, for a flow that resumes it
    /// (``DeviceFlow/resuming(_:progress:)``); nil for a new one, whose first poll waits one interval.
    public var progress: PollingProgress? {
        get { resumption?.progress }
        set { resumption = newValue.map(Resumption.init) }
    }
    // Frame size: an authorization stays in the polling task's frames for as long as the flow polls (see the notes
    // in DeviceFlow). Boxed, a progress adds one reference (8 bytes) to every flow instead of its 56 or so.
    private var resumption: Resumption?

    /// Creates an authorization value.
    /// - Parameters:
    ///   - response: The device authorization response.
    ///   - receivedAt: The wall-clock time it arrived.
    ///   - receivedAtElapsed: The time on the flow's clock when it arrived.
    ///   - issuer: The server the sign-in was started with, for ``hostCheck``; nil skips that comparison.
    public init(
        response: DeviceAuthorizationResponse, receivedAt: Date, receivedAtElapsed: Duration = .zero,
        issuer: String? = nil
    ) {
        self.response = response
        self.receivedAt = receivedAt
        self.receivedAtElapsed = receivedAtElapsed
        self.issuer = issuer
    }

    /// The wall-clock time the device code expires: `receivedAt + expires_in`.
    public var expiresAt: Date { receivedAt.addingTimeInterval(TimeInterval(response.expiresIn)) }
    /// The code the user types, as the server sent it.
    public var userCode: String { response.userCode }
    /// Where the user goes.
    public var verificationURI: String { response.verificationURI }
    /// The verification URI with the code in it, if the server gave one.
    public var verificationURIComplete: String? { response.verificationURIComplete }
    /// The URI to encode in a QR code: the complete URI when given, else the plain one (RFC 8628 §3.3.1). A
    /// prompt should first ask ``hostCheck`` whether a QR code may be drawn at all.
    public var qrURI: String { response.verificationURIComplete ?? response.verificationURI }
    /// Where the verification URIs lead, checked against ``issuer`` (RFC 8628 §5.4): the warnings to show before
    /// the person enters the code, the addresses in the form to show them, and whether a QR code may be drawn.
    ///
    /// ```swift
    /// let check = authorization.hostCheck
    /// for warning in check.warnings { print("Warning: " + warning.message) }
    /// print("Open \(check.verificationURI) and enter \(authorization.userCode)")
    /// ```
    public var hostCheck: VerificationHostCheck {
        VerificationHostCheck(
            verificationURI: response.verificationURI, verificationURIComplete: response.verificationURIComplete,
            issuer: issuer
        )
    }
    /// The interval polling starts with.
    public var initialInterval: Duration { .seconds(response.effectiveInterval) }
    /// The deadline on the flow's clock: `receivedAtElapsed + expires_in`.
    public var deadlineElapsed: Duration { receivedAtElapsed + .seconds(response.expiresIn) }

    /// The box of ``progress``: immutable, so sharing it between copies is sharing a value.
    private final class Resumption: Sendable, Hashable {
        let progress: PollingProgress

        init(_ progress: PollingProgress) {
            self.progress = progress
        }

        static func == (lhs: Resumption, rhs: Resumption) -> Bool { lhs.progress == rhs.progress }

        func hash(into hasher: inout Hasher) { hasher.combine(progress) }
    }
}
