import DeviceLogin

/// Renders the sign-in prompt for a device authorization: pure functions from values to text.
///
/// The prompt tells the user where to go and what to type (RFC 8628 §3.3), and helps them notice a sign-in they did
/// not start (§5.4, RFC 10027):
/// - a `Warning:` line (bold and red when colours are on) for each of ``DeviceAuthorization/hostCheck``'s warnings:
///   a sign-in page outside the issuer's domain, a `verification_uri_complete` on another host (then no QR code),
///   an internationalised host (shown in Punycode); each names the hosts; only with the link they are about;
/// - the verification URI, and the host it leads to in plain words ("You will be sent to auth.example.com."),
///   so a user led to an unexpected site can notice (§5.4); a URI that is not a plain http(s) link is refused and
///   not shown;
/// - "Only continue if you started this sign-in on NAME just now.", with ``SignInSettings/machineName`` ("on this computer" when
///   it is unknown);
/// - the user code large enough to read from across a room when the terminal has room (a block-letter banner in
///   UTF-8, letter-spaced otherwise), grouped exactly as the server sent it, and always as plain text on a line of
///   its own, `Code: WDJB-MJHT` (§3.3.1: the code is shown even when a QR code is);
/// - how long the code stays valid;
/// - a QR code of `verification_uri_complete` (or `verification_uri`), in ``QRMode/always``, or in
///   ``QRMode/auto`` when the terminal is large enough to show it together with the rest of the prompt, and never
///   when the two URIs lead to different hosts; otherwise one line says why it was left out.
///
/// The words (and their sanitising) are the sign-in text `SignInText`, the same the kiosk screen (``KioskScreen``)
/// shows; the prompt lays them out a paragraph a line, with the caption and the link on one. Every string from the
/// server goes through ``Sanitizer``. On a pipe (``TerminalCapabilities/isTerminal`` false) the prompt is plain
/// lines: no escapes, no big letters, and no QR code unless ``QRMode/always``.
///
/// ```swift
/// let renderer = PromptRenderer(capabilities: .detect(), qrMode: .auto, machineName: MachineName.current())
/// let text = renderer.render(authorization, secondsLeft: authorization.response.expiresIn)
/// ```
public struct PromptRenderer: SignInLayout {
    /// The terminal the prompt is drawn for, when to show the QR code, and the machine's name.
    public var settings: SignInSettings

    /// Creates a renderer.
    ///
    /// - Parameter settings: The terminal the prompt is drawn for, when to show the QR code, and the machine's name.
    public init(settings: SignInSettings) {
        self.settings = settings
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
        let check = authorization.hostCheck
        let text = textLines(
            SignInText(authorization, check: check, secondsLeft: secondsLeft, countdown: .words, settings: settings))
        return place(qrSection(for: QRTarget(check), below: text), around: text)
    }

    /// The prompt of a sign-in link of the authorization code grant's paste mode, where the link may be opened on
    /// any device: the host check's warnings (a link outside the issuer's domain, an internationalised host), `lead`
    /// (what to do), the link indented on a line of its own, the host it leads to, and "Only continue if you started
    /// this sign-in on NAME just now." — the device flow's words (`SignInText`) — with the QR code of the link above
    /// them by the ``QRMode`` rules, when the host check allows one.
    ///
    /// - Parameters:
    ///   - lead: What to do with the link, in the caller's words.
    ///   - link: The link.
    ///   - issuer: The issuer the sign-in was started with; nil skips the comparison.
    /// - Returns: The lines of the prompt.
    public func lines(lead: String, signInLink link: String, issuer: String?) -> [String] {
        let check = VerificationHostCheck(verificationURI: link, verificationURIComplete: nil, issuer: issuer)
        let text = SignInText(signInLink: check, settings: settings)
        var lines = text.paragraphs(.warning).map { $0.line(capabilities: capabilities) } + [lead]
        for paragraph in text.paragraphs where paragraph.part != .warning {
            let line = paragraph.line(capabilities: capabilities)
            lines.append(paragraph.part == .link ? "  " + line : line)
        }
        return place(qrSection(for: QRTarget(signInLink: check), below: lines), around: lines)
    }

    /// `text` with the QR code above it, or the notice below it.
    private func place(_ section: QRSection, around text: [String]) -> [String] {
        switch section {
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
        SignInText.code(userCode, capabilities: capabilities).text
    }

    /// `Warning: <message>`, the label bold and red when colours are on, bold without colours, plain elsewhere.
    /// `device-login status` repeats a pending sign-in's warnings with it, in the prompt's words.
    /// - Parameter warning: One of ``DeviceAuthorization/hostCheck``'s warnings; its hosts are sanitised here.
    /// - Returns: The line, without a newline.
    public func warningLine(_ warning: VerificationHostCheck.Warning) -> String {
        SignInText.warning(warning, capabilities: capabilities).line(capabilities: capabilities)
    }

    // MARK: - Text

    /// Everything but the QR code, a paragraph a line: the warnings, where to go (the caption and the link on one
    /// line), whether to go on, the code (in large letters above it on a terminal), the time left.
    private func textLines(_ text: SignInText) -> [String] {
        var lines: [String] = []
        var caption: String?
        for paragraph in text.paragraphs {
            let line = paragraph.line(capabilities: capabilities)
            switch paragraph.part {
            case .caption:
                caption = line
                continue
            case .code where capabilities.isTerminal:
                let big = bigCode(text)
                if !big.isEmpty { lines += [""] + big + [""] }
            default:
                break
            }
            lines.append(caption.map { $0 + " " + line } ?? line)
            caption = nil
        }
        return lines
    }

    /// The code in block letters when the font has every character and the terminal is wide enough, else
    /// letter-spaced (bold when escapes are allowed), else nothing.
    private func bigCode(_ text: SignInText) -> [String] {
        let indent = "  "
        let columns = capabilities.columns ?? 80
        let code = text.code
        if capabilities.isUTF8, let banner = BannerFont.lines(for: code),
            indent.count + BannerFont.width(forCount: code.count) <= columns
        {
            return banner.map { indent + $0 }
        }
        let spaced = text.spacedCode
        guard !code.isEmpty, indent.count + spaced.count <= columns else { return [] }
        return [indent + SignInText.Style.bold.apply(to: spaced, capabilities: capabilities)]
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

    private func qrSection(for target: QRTarget, below text: [String]) -> QRSection {
        switch qrMode {
        case .never: return .none
        case .auto where !capabilities.isTerminal: return .none
        case .auto, .always: break
        }
        let matrix: QRMatrix
        let caption: String
        switch target.matrix(errorCorrection: errorCorrection) {
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
