/// When the sign-in prompt shows a QR code.
public enum QRMode: String, Sendable, Hashable, CaseIterable {
    /// On a terminal large enough to show it with the rest of the prompt; never on a pipe.
    case auto
    /// Always, whatever the terminal's size, on a pipe too.
    case always
    /// Never.
    case never
}
