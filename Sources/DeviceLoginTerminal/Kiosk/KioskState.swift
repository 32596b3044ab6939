/// What the kiosk screen says besides the code: the sign-in's progress, or what happens after the code expired.
public enum KioskState: Sendable, Hashable {
    /// Waiting for the person to approve: the code, where to go, the QR code and the countdown.
    case waiting
    /// A poll failed in a way that may pass (network, HTTP 5xx, 429); polling goes on. The reason is sanitised
    /// before it is shown.
    case retrying(reason: String)
    /// The code expired; no code and no QR code are shown any more, only what happens next.
    case expired(next: AfterExpiry)
    /// A new code is being requested.
    case requestingCode

    /// What follows an expired code.
    public enum AfterExpiry: Sendable, Hashable {
        /// A key press requests a new code (the default: a person asks for each code).
        case pressKey
        /// A new code is requested by itself (`--renew`, for unattended kiosks).
        case automatic
        /// Nothing: the sign-in ends (no keyboard to ask for a new code).
        case end
    }
}
