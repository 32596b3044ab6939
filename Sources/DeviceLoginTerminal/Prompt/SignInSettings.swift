/// How a sign-in is shown, for the inline prompt (``PromptRenderer``) and the kiosk screen (``KioskScreen``) alike:
/// the terminal, the QR code and the machine name the text names.
///
/// ```swift
/// let settings = SignInSettings(capabilities: .detect(), qrMode: .never, machineName: "build-box")
/// let prompt = PromptRenderer(settings: settings)
/// let screen = KioskScreen(settings: settings)
/// ```
public struct SignInSettings: Sendable, Hashable {
    /// The terminal drawn on: its character set, whether escapes and colours are allowed, and (for the prompt) its
    /// size. The kiosk screen is given its size with each frame.
    public var capabilities: TerminalCapabilities
    /// When a QR code is shown: ``QRMode/never`` shows none; ``QRMode/always`` shows one whenever the link allows
    /// it; ``QRMode/auto`` shows one when it fits (the prompt: only on a terminal large enough for it and the text).
    public var qrMode: QRMode
    /// The QR code's error correction level.
    public var errorCorrection: QRMatrix.ErrorCorrection
    /// This machine's name, in "Only continue if you started this sign-in on NAME just now"; nil says "on this
    /// computer". Sanitised before it is shown.
    public var machineName: String?

    /// Creates settings.
    ///
    /// - Parameters:
    ///   - capabilities: The terminal drawn on.
    ///   - qrMode: When a QR code is shown; ``QRMode/auto`` by default.
    ///   - errorCorrection: The QR code's error correction level; ``QRMatrix/ErrorCorrection/medium`` by default.
    ///   - machineName: This machine's name; ``MachineName/current()`` by default. Tests give a fixed one.
    public init(
        capabilities: TerminalCapabilities,
        qrMode: QRMode = .auto,
        errorCorrection: QRMatrix.ErrorCorrection = .medium,
        machineName: String? = MachineName.current()
    ) {
        self.capabilities = capabilities
        self.qrMode = qrMode
        self.errorCorrection = errorCorrection
        self.machineName = machineName
    }
}
