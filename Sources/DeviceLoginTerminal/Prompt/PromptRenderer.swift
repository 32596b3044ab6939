import DeviceLogin

/// Renders the sign-in prompt for a device authorization: pure functions from values to text.
///
/// The prompt tells the user where to go and what to type (RFC 8628 §3.3), and helps them notice a sign-in they did
/// not start (§5.4, RFC 10027):
/// - a `Warning:` line (bold and red when colours are on) for each of ``DeviceAuthorization/hostCheck``'s warnings:
///   a sign-in page outside the issuer's domain, a `verification_uri_complete` on another host (then no QR code),
///   an internationalised host (shown in Punycode); each names the hosts;
/// - the verification URI, and the host it leads to in plain words ("You will be sent to auth.example.com."),
///   so a user led to an unexpected site can notice (§5.4); a URI that is not a plain http(s) link is refused and
///   not shown;
/// - "Only continue if you started this sign-in on NAME just now.", with ``machineName`` ("on this computer" when
///   it is unknown);
/// - the user code large enough to read from across a room when the terminal has room (a block-letter banner in
///   UTF-8, letter-spaced otherwise), grouped exactly as the server sent it, and always as plain text on a line of
///   its own, `Code: WDJB-MJHT` (§3.3.1: the code is shown even when a QR code is);
/// - how long the code stays valid;
/// - a QR code of `verification_uri_complete` (or `verification_uri`), in ``QRMode/always``, or in
///   ``QRMode/auto`` when the terminal is large enough to show it together with the rest of the prompt, and never
///   when the two URIs lead to different hosts; otherwise one line says why it was left out.
///
/// Every string from the server goes through ``Sanitizer``. On a pipe (``TerminalCapabilities/isTerminal`` false)
/// the prompt is plain lines: no escapes, no big letters, and no QR code unless ``QRMode/always``.
///
/// ```swift
/// let renderer = PromptRenderer(capabilities: .detect(), qrMode: .auto, machineName: MachineName.current())
/// let text = renderer.render(authorization, secondsLeft: authorization.response.expiresIn)
/// ```
public struct PromptRenderer: Sendable, Hashable {
    /// The terminal the prompt is drawn for.
    public var capabilities: TerminalCapabilities
    /// When to show the QR code.
    public var qrMode: QRMode
    /// The QR code's error correction level.
    public var errorCorrection: QRMatrix.ErrorCorrection
    /// This machine's name, in "Only continue if you started this sign-in on NAME just now"; nil says "on this
    /// computer". Sanitised before it is shown.
    public var machineName: String?

    /// Creates a renderer.
    ///
    /// - Parameters:
    ///   - capabilities: The terminal the prompt is drawn for.
    ///   - qrMode: When to show the QR code; ``QRMode/auto`` by default.
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

    /// The prompt as text to write, each line ended by a line feed.
    ///
    /// - Parameters:
    ///   - authorization: The device authorization to show.
    ///   - secondsLeft: Seconds until the code expires.
    /// - Returns: The prompt.
    public func render(_ authorization: DeviceAuthorization, secondsLeft: Int) -> String {
        lines(for: authorization, secondsLeft: secondsLeft).map { $0 + "\n" }.joined()
    }

    /// The prompt, one string per line, without line feeds.
    ///
    /// - Parameters:
    ///   - authorization: The device authorization to show.
    ///   - secondsLeft: Seconds until the code expires.
    /// - Returns: The lines of the prompt.
    public func lines(for authorization: DeviceAuthorization, secondsLeft: Int) -> [String] {
        let text = textLines(for: authorization, secondsLeft: secondsLeft)
        switch qrSection(for: authorization, below: text) {
        case .none:
            return text
        case .notice(let notice):
            return text + [notice]
        case .shown(let qrLines, let caption):
            return qrLines + [caption, ""] + text
        }
    }

    /// The one-line text written for the user code: what `Code: (\S+)` finds in the output.
    ///
    /// - Parameter userCode: The user code as the server sent it; it is sanitised here.
    /// - Returns: `Code: ` followed by the code.
    public func codeLine(_ userCode: String) -> String {
        "Code: " + clean(userCode)
    }

    // MARK: - Text

    private var styled: Bool { capabilities.allowsEscapes }

    private func clean(_ text: String) -> String {
        Sanitizer.sanitize(text, asciiOnly: !capabilities.isUTF8)
    }

    /// The longest machine name shown, in Unicode scalars (Linux allows 64 bytes, POSIX at least 255).
    static let maximumMachineNameLength = 64
    /// The longest warning shown: two hosts of 253 characters and the words around them fit.
    static let maximumWarningLength = 1024

    /// Everything but the QR code: the warnings, where to go, whether to go on, the code, the time left.
    private func textLines(for authorization: DeviceAuthorization, secondsLeft: Int) -> [String] {
        var lines: [String] = []
        let check = authorization.hostCheck
        if let refusal = check.refusal {
            lines.append("Refused to show the sign-in address: " + clean(refusal) + ".")
        } else if let uri = check.shownVerificationURI {
            lines += check.warnings.map(warningLine)
            lines.append("Open this page in a browser: " + ANSI.bold(uri.string, if: styled))
            lines.append("You will be sent to " + ANSI.bold(uri.hostAndPort, if: styled) + ".")
        } else {
            lines.append("Refused to show the sign-in address: the server sent one that is not a plain http(s) link.")
        }
        lines.append(continueLine)
        if capabilities.isTerminal {
            let big = bigCode(clean(authorization.userCode))
            if !big.isEmpty { lines += [""] + big + [""] }
        }
        lines.append(codeLine(authorization.userCode))
        if secondsLeft > 0 {
            lines.append("The code expires in \(TimeText.words(seconds: secondsLeft)).")
        } else {
            lines.append("The code has expired.")
        }
        return lines
    }

    /// `Warning: <message>`, the label bold and red when colours are on, bold without colours, plain elsewhere.
    /// `device-login status` repeats a pending sign-in's warnings with it, in the prompt's words.
    /// - Parameter warning: One of ``DeviceAuthorization/hostCheck``'s warnings; its hosts are sanitised here.
    /// - Returns: The line, without a newline.
    public func warningLine(_ warning: VerificationHostCheck.Warning) -> String {
        let label =
            capabilities.allowsColor
            ? ANSI.bold + ANSI.red + "Warning:" + ANSI.reset : ANSI.bold("Warning:", if: styled)
        let message = Sanitizer.sanitize(
            warning.message, maxLength: Self.maximumWarningLength, asciiOnly: !capabilities.isUTF8
        )
        return label + " " + message
    }

    /// "Only continue if you started this sign-in on NAME just now." (RFC 10027: say to decline a sign-in the
    /// person did not start here and now).
    var continueLine: String {
        let name = machineName.map {
            Sanitizer.sanitize($0, maxLength: Self.maximumMachineNameLength, asciiOnly: !capabilities.isUTF8)
        }
        guard let name, !name.isEmpty else {
            return "Only continue if you started this sign-in on this computer just now."
        }
        return "Only continue if you started this sign-in on " + ANSI.bold(name, if: styled) + " just now."
    }

    /// The code in block letters when the font has every character and the terminal is wide enough, else
    /// letter-spaced (bold when escapes are allowed), else nothing.
    private func bigCode(_ code: String) -> [String] {
        let indent = "  "
        let columns = capabilities.columns ?? 80
        if capabilities.isUTF8, let banner = BannerFont.lines(for: code),
            indent.count + BannerFont.width(forCount: code.count) <= columns
        {
            return banner.map { indent + $0 }
        }
        let spaced = code.map(String.init).joined(separator: " ")
        guard !code.isEmpty, indent.count + spaced.count <= columns else { return [] }
        return [indent + ANSI.bold(spaced, if: styled)]
    }

    // MARK: - QR code

    private enum QRSection {
        /// Nothing about a QR code.
        case none
        /// One line saying why there is no QR code.
        case notice(String)
        /// The QR code's lines and a caption.
        case shown([String], caption: String)
    }

    private func qrSection(for authorization: DeviceAuthorization, below text: [String]) -> QRSection {
        switch qrMode {
        case .never: return .none
        case .auto where !capabilities.isTerminal: return .none
        case .auto, .always: break
        }
        let matrix: QRMatrix
        let caption: String
        switch QRTarget(authorization.hostCheck).matrix(errorCorrection: errorCorrection) {
        case .failure(let refusal): return .notice(refusal.notice)
        case .success(let made): (matrix, caption) = made
        }
        let renderer = QRRenderer(capabilities: capabilities)
        let shown = QRSection.shown(renderer.lines(for: matrix), caption: caption)
        guard qrMode == .auto else { return shown }
        let force = "use --qr always to force"
        guard let columns = capabilities.columns, let rows = capabilities.rows else {
            return .notice("QR code hidden: terminal size unknown; \(force)")
        }
        // The QR code, its caption and a blank line, the text below it, and the live status line: all of it must
        // be on screen at once, or the address and the code scroll away.
        // Rows a line wraps to, rounded up; `columns` is at least 1 and bounded, so this cannot overflow.
        let textRows = ([caption, ""] + text).reduce(0) { sum, line in
            let width = ANSI.visibleWidth(line)
            return sum + (width == 0 ? 1 : 1 + (width - 1) / columns)
        }
        let neededColumns = renderer.width(for: matrix)
        let neededRows = renderer.height(for: matrix) + textRows + 1
        guard neededColumns <= columns, neededRows <= rows else {
            let sizes = "terminal is \(columns)x\(rows), needs \(neededColumns)x\(neededRows)"
            return .notice("QR code hidden: \(sizes); \(force)")
        }
        return shown
    }
}
