/// A way of laying out a sign-in's text (`SignInText`): the inline prompt (``PromptRenderer``) or the full-screen
/// kiosk view (``KioskScreen``). Both are made from the same ``SignInSettings`` and say the same words; only where
/// the words go differs.
public protocol SignInLayout: Sendable, Hashable {
    /// How the sign-in is shown.
    var settings: SignInSettings { get set }

    /// Creates a layout with `settings`.
    ///
    /// - Parameter settings: How the sign-in is shown.
    init(settings: SignInSettings)
}

extension SignInLayout {
    /// Creates a layout from the parts of ``SignInSettings``.
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
        self.init(
            settings: SignInSettings(
                capabilities: capabilities, qrMode: qrMode, errorCorrection: errorCorrection, machineName: machineName))
    }

    /// The terminal drawn on (``SignInSettings/capabilities``).
    public var capabilities: TerminalCapabilities {
        get { settings.capabilities }
        set { settings.capabilities = newValue }
    }

    /// When a QR code is shown (``SignInSettings/qrMode``).
    public var qrMode: QRMode {
        get { settings.qrMode }
        set { settings.qrMode = newValue }
    }

    /// The QR code's error correction level (``SignInSettings/errorCorrection``).
    public var errorCorrection: QRMatrix.ErrorCorrection {
        get { settings.errorCorrection }
        set { settings.errorCorrection = newValue }
    }

    /// This machine's name (``SignInSettings/machineName``).
    public var machineName: String? {
        get { settings.machineName }
        set { settings.machineName = newValue }
    }
}
