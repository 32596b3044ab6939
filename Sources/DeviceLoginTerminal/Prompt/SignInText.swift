import DeviceLogin

/// The words of a sign-in, decided once for every layout: the paragraphs the inline prompt (``PromptRenderer``) and
/// the kiosk screen (``KioskScreen``) show, each sanitised and in its styles. A layout only places them.
///
/// In order (RFC 8628 §3.3, §5.4, RFC 10027):
/// - a ``Part/warning`` for each of the host check's warnings (a sign-in page outside the issuer's domain, two links
///   on different hosts, a downgraded link, an internationalised host), only when the link they are about is shown;
/// - the ``Part/caption`` "Open this page in a browser:", the ``Part/link`` and, in plain words, the ``Part/host``
///   it leads to; or, when the check refuses the address or it is not a plain http(s) link, one ``Part/refusal``;
/// - ``Part/continueHere``: "Only continue if you started this sign-in on NAME just now.";
/// - the ``Part/code`` as plain text, `Code: WDJB-MJHT` (§3.3.1: always, large letters or not);
/// - the ``Part/countdown``, and, for a layout that shows it, the ``Part/status``.
///
/// Every string from the server or the machine goes through ``Sanitizer`` here, with the terminal's character set.
struct SignInText: Sendable, Hashable {
    /// How a span is drawn.
    enum Style: Sendable, Hashable {
        case plain
        case bold
        /// Bold and red with colours, bold without: the label of a warning.
        case alert

        /// `text` in this style: no escapes where the terminal takes none.
        func apply(to text: String, capabilities: TerminalCapabilities) -> String {
            switch self {
            case .plain: text
            case .bold: ANSI.bold(text, if: capabilities.allowsEscapes)
            case .alert:
                capabilities.allowsColor
                    ? ANSI.bold + ANSI.red + text + ANSI.reset : ANSI.bold(text, if: capabilities.allowsEscapes)
            }
        }
    }

    /// Text in one style; the spaces between words are part of the text.
    struct Span: Sendable, Hashable {
        var text: String
        var style: Style

        init(_ text: String, _ style: Style = .plain) {
            self.text = text
            self.style = style
        }
    }

    /// What a paragraph is for; a layout places and ranks paragraphs by it.
    enum Part: Sendable, Hashable, CaseIterable {
        /// `Warning: …`, the label in ``Style/alert``: one of the host check's warnings, naming the hosts.
        case warning
        /// "Refused to show the sign-in address: …": in place of the caption, link and host.
        case refusal
        /// "Open this page in a browser:".
        case caption
        /// The verification URI, bold.
        case link
        /// "You will be sent to HOST.", the host bold (RFC 8628 §5.4).
        case host
        /// "Only continue if you started this sign-in on NAME just now.", the name bold (RFC 10027).
        case continueHere
        /// `Code: WDJB-MJHT`, never styled: what `Code: (\S+)` finds.
        case code
        /// How long the code stays valid.
        case countdown
        /// What the sign-in is doing.
        case status
    }

    /// One paragraph: its part and its spans.
    struct Paragraph: Sendable, Hashable {
        var part: Part
        var spans: [Span]

        /// The words without styles.
        var text: String { spans.map(\.text).joined() }

        /// The paragraph as one line, each span in its style.
        func line(capabilities: TerminalCapabilities) -> String {
            spans.map { $0.style.apply(to: $0.text, capabilities: capabilities) }.joined()
        }
    }

    /// How the countdown reads.
    enum Countdown: Sendable, Hashable {
        /// "The code expires in 14 min.", and "The code has expired." once it is up: for a prompt written once.
        case words
        /// "The code expires in 14:00.", down to 0:00: for a screen redrawn every second, which shows a screen of its
        /// own once the code expired.
        case clock
    }

    /// What the sign-in is doing, for a layout that says so.
    enum Status: Sendable, Hashable {
        /// "Waiting for approval…".
        case waiting
        /// "Network problem, retrying… REASON"; the reason is sanitised and cut to ``maximumReasonLength``.
        case retrying(reason: String)
    }

    /// The paragraphs, in the order shown.
    let paragraphs: [Paragraph]
    /// The user code, sanitised: what a layout draws in large letters.
    let code: String

    /// The longest machine name shown, in Unicode scalars (Linux allows 64 bytes, POSIX at least 255).
    static let maximumMachineNameLength = 64
    /// The longest warning shown: two hosts of 253 characters and the words around them fit.
    static let maximumWarningLength = 1024
    /// The longest reason for a retry shown.
    static let maximumReasonLength = 160

    /// The text of `authorization`.
    ///
    /// - Parameters:
    ///   - authorization: The device authorization shown.
    ///   - check: `authorization.hostCheck`, made once by the caller (it parses the hosts).
    ///   - secondsLeft: Seconds until the code expires.
    ///   - countdown: How the countdown reads.
    ///   - status: What the sign-in is doing; nil leaves the status out (the prompt's live line says it).
    ///   - settings: The terminal's character set and the machine's name.
    init(
        _ authorization: DeviceAuthorization, check: VerificationHostCheck, secondsLeft: Int, countdown: Countdown,
        status: Status? = nil, settings: SignInSettings
    ) {
        let capabilities = settings.capabilities
        func clean(_ text: String, maxLength: Int = Sanitizer.defaultMaxLength) -> String {
            Self.clean(text, maxLength: maxLength, capabilities: capabilities)
        }
        func paragraph(_ part: Part, _ spans: Span...) -> Paragraph { Paragraph(part: part, spans: spans) }
        let ellipsis = capabilities.isUTF8 ? "…" : "..."
        var paragraphs = Self.whereToGo(check, caption: "Open this page in a browser:", capabilities: capabilities)
        paragraphs.append(Self.continueHere(settings))
        code = clean(authorization.userCode)
        paragraphs.append(Self.code(authorization.userCode, capabilities: capabilities))
        switch countdown {
        case .words where secondsLeft <= 0:
            paragraphs.append(paragraph(.countdown, Span("The code has expired.")))
        case .words:
            paragraphs.append(
                paragraph(.countdown, Span("The code expires in \(TimeText.words(seconds: secondsLeft)).")))
        case .clock:
            paragraphs.append(
                paragraph(.countdown, Span("The code expires in \(TimeText.clock(seconds: max(0, secondsLeft))).")))
        }
        switch status {
        case nil:
            break
        case .waiting:
            paragraphs.append(paragraph(.status, Span("Waiting for approval" + ellipsis)))
        case .retrying(let reason):
            let reason = clean(reason, maxLength: Self.maximumReasonLength)
            paragraphs.append(
                paragraph(.status, Span("Network problem, retrying" + ellipsis + (reason.isEmpty ? "" : " " + reason))))
        }
        self.paragraphs = paragraphs
    }

    /// The text of a sign-in link of the authorization code grant (its paste mode, where the link may be opened on
    /// any device): the host check's warnings, the link and the host it leads to (or the refusal), and "Only
    /// continue if you started this sign-in on NAME just now." — the device flow's words, without a code or a
    /// countdown.
    ///
    /// - Parameters:
    ///   - check: The link's host check against the issuer the sign-in was started with.
    ///   - settings: The terminal's character set and the machine's name.
    init(signInLink check: VerificationHostCheck, settings: SignInSettings) {
        paragraphs =
            Self.whereToGo(check, caption: nil, capabilities: settings.capabilities) + [Self.continueHere(settings)]
        code = ""
    }

    /// The warnings, the caption (when given), the link and its host; or one refusal.
    private static func whereToGo(
        _ check: VerificationHostCheck, caption: String?, capabilities: TerminalCapabilities
    ) -> [Paragraph] {
        func paragraph(_ part: Part, _ spans: Span...) -> Paragraph { Paragraph(part: part, spans: spans) }
        if let refusal = check.refusal {
            let refusal = clean(refusal, capabilities: capabilities)
            return [paragraph(.refusal, Span("Refused to show the sign-in address: " + refusal + "."))]
        }
        guard let uri = check.shownVerificationURI else {
            return [
                paragraph(
                    .refusal,
                    Span("Refused to show the sign-in address: the server sent one that is not a plain http(s) link."))
            ]
        }
        // A warning is about the link: with no link shown, there is nothing for it to warn of.
        return check.warnings.map { warning($0, capabilities: capabilities) }
            + (caption.map { [paragraph(.caption, Span($0))] } ?? [])
            + [
                paragraph(.link, Span(uri.string, .bold)),
                paragraph(.host, Span("You will be sent to "), Span(uri.hostAndPort, .bold), Span(".")),
            ]
    }

    /// "Only continue if you started this sign-in on NAME just now." (RFC 10027), "on this computer" without a name.
    private static func continueHere(_ settings: SignInSettings) -> Paragraph {
        let name = settings.machineName.map {
            clean($0, maxLength: maximumMachineNameLength, capabilities: settings.capabilities)
        }
        guard let name, !name.isEmpty else {
            return Paragraph(
                part: .continueHere,
                spans: [Span("Only continue if you started this sign-in on this computer just now.")])
        }
        return Paragraph(
            part: .continueHere,
            spans: [Span("Only continue if you started this sign-in on "), Span(name, .bold), Span(" just now.")])
    }

    /// The paragraphs for `part`, in order.
    func paragraphs(_ part: Part) -> [Paragraph] {
        paragraphs.filter { $0.part == part }
    }

    /// The code letter-spaced, `W D J B - M J H T`: what a layout shows when block letters do not fit.
    var spacedCode: String {
        code.map(String.init).joined(separator: " ")
    }

    /// `Warning: MESSAGE`, the label in ``Style/alert``, the message sanitised and cut to ``maximumWarningLength``.
    ///
    /// - Parameters:
    ///   - warning: One of the host check's warnings.
    ///   - capabilities: The terminal's character set.
    /// - Returns: The paragraph.
    static func warning(_ warning: VerificationHostCheck.Warning, capabilities: TerminalCapabilities) -> Paragraph {
        let message = clean(warning.message, maxLength: maximumWarningLength, capabilities: capabilities)
        return Paragraph(part: .warning, spans: [Span("Warning:", .alert), Span(" " + message)])
    }

    /// `Code: CODE`, the code sanitised and never styled.
    ///
    /// - Parameters:
    ///   - userCode: The user code as the server sent it.
    ///   - capabilities: The terminal's character set.
    /// - Returns: The paragraph.
    static func code(_ userCode: String, capabilities: TerminalCapabilities) -> Paragraph {
        Paragraph(part: .code, spans: [Span("Code: " + clean(userCode, capabilities: capabilities))])
    }

    /// `text` made safe for the terminal (``Sanitizer``): ASCII only unless it takes UTF-8.
    private static func clean(
        _ text: String, maxLength: Int = Sanitizer.defaultMaxLength, capabilities: TerminalCapabilities
    ) -> String {
        Sanitizer.sanitize(text, maxLength: maxLength, asciiOnly: !capabilities.isUTF8)
    }
}
