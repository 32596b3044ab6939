import DeviceLogin

/// Renders the full-screen kiosk view of a device authorization: a pure function from the screen's size, the
/// authorization, the time left and the ``KioskState`` to the lines of the screen.
///
/// The screen says what the prompt says, in the same words (the sign-in text `SignInText`, made once per frame), laid
/// out to fill the terminal and be read from a distance:
/// - each of ``DeviceAuthorization/hostCheck``'s warnings (a sign-in page outside the issuer's domain, two links on
///   different hosts, an internationalised host), in bold red with colours, when the link they are about is shown;
/// - the verification URI and, in plain words, the host the person will be sent to (RFC 8628 §5.4);
/// - "Only continue if you started this sign-in on NAME just now." (RFC 10027);
/// - the user code in block letters as large as fits (``BannerFont`` at a scale, broken after a dash when it must
///   be), and always as plain text, `Code: WDJB-MJHT` (§3.3.1);
/// - the countdown, and what the sign-in is doing;
/// - a QR code of `verification_uri_complete` (or `verification_uri`) as large as fits, always with its 4-module
///   quiet zone, beside the text when there is room and above it otherwise; none when ``QRTarget`` refuses one (two
///   links on different hosts), with the line that says why, and none with ``QRMode/never``.
///
/// Among the layouts that fit, the one that shows both the QR code and the large code wins, then the larger QR
/// code, then the larger letters. Everything is centred. On a screen too small for all the text in plain letters,
/// parts are left out by ``Rank``, least important first, and the code stays: wherever anything is drawn, the code
/// is, whole when the screen has a cell for each of its characters. Once the code has expired the screen shows
/// neither the code nor the QR code, only what happens next.
///
/// ```swift
/// let screen = KioskScreen(capabilities: .detect(), machineName: MachineName.current())
/// output.write(KioskScreen.enter + screen.frame(for: authorization, secondsLeft: 840, state: .waiting,
///                                               columns: 80, rows: 24))
/// ```
public struct KioskScreen: SignInLayout {
    /// The terminal drawn on (its character set and whether colours are allowed; its size is not used: the size is
    /// given with each frame), whether a QR code is drawn (``QRMode/never`` draws none; ``QRMode/auto`` and
    /// ``QRMode/always`` draw one when it fits), and the machine's name.
    public var settings: SignInSettings

    /// Creates a renderer.
    ///
    /// - Parameter settings: The terminal drawn on, whether a QR code is drawn, and the machine's name.
    public init(settings: SignInSettings) {
        self.settings = settings
    }

    /// Switches to the alternate screen (DEC private mode 1049: `smcup`), clears it and hides the cursor.
    public static let enter = "\u{1B}[?1049h\u{1B}[H\u{1B}[2J\u{1B}[?25l"
    /// Resets attributes, shows the cursor and leaves the alternate screen (`rmcup`): the shell's screen comes back
    /// as it was. The last bytes are `ESC [ ? 1049 l`.
    public static let leave = ANSI.reset + ANSI.showCursor + "\u{1B}[?1049l"

    /// The screen, `rows` lines of at most `columns` columns, without line feeds.
    ///
    /// - Parameters:
    ///   - authorization: The device authorization shown.
    ///   - secondsLeft: Seconds until the code expires.
    ///   - state: What the sign-in is doing.
    ///   - columns: The terminal's width (at least 1 is used).
    ///   - rows: The terminal's height (at least 1 is used).
    /// - Returns: Exactly `rows` lines.
    public func lines(
        for authorization: DeviceAuthorization, secondsLeft: Int, state: KioskState, columns: Int, rows: Int
    ) -> [String] {
        let columns = min(max(columns, 1), TerminalCapabilities.maximumDimension)
        let rows = min(max(rows, 1), TerminalCapabilities.maximumDimension)
        let content: Block
        switch state {
        case .waiting, .retrying:
            content = codeScreen(authorization, secondsLeft: secondsLeft, state: state, columns: columns, rows: rows)
        case .expired(let next):
            content = messageScreen(expired: true, next: next, columns: columns, rows: rows)
        case .requestingCode:
            content = messageScreen(expired: false, next: .automatic, columns: columns, rows: rows)
        }
        let top = max(0, (rows - content.lines.count) / 2)
        let left = String(repeating: " ", count: max(0, (columns - content.width) / 2))
        var screen = [String](repeating: "", count: top)
        screen += content.lines.map { $0.isEmpty ? "" : left + $0 }
        if screen.count < rows { screen += [String](repeating: "", count: rows - screen.count) }
        return Array(screen.prefix(rows))
    }

    /// The screen as text to write: the cursor sent home, then each line over the last frame's, the rest of each
    /// line erased. Draws over the previous frame without clearing the screen first, so a redraw does not flicker.
    ///
    /// - Parameters: As ``lines(for:secondsLeft:state:columns:rows:)``.
    /// - Returns: The frame.
    public func frame(
        for authorization: DeviceAuthorization, secondsLeft: Int, state: KioskState, columns: Int, rows: Int
    ) -> String {
        let lines = lines(for: authorization, secondsLeft: secondsLeft, state: state, columns: columns, rows: rows)
        // A line that fills the row leaves the cursor on its last column: erasing there would erase that column.
        let ended = lines.map { ANSI.visibleWidth($0) < columns ? $0 + Self.eraseToEnd : $0 }
        return "\u{1B}[H" + ended.joined(separator: "\r\n")
    }

    /// Erase from the cursor to the end of the line (EL 0).
    private static let eraseToEnd = "\u{1B}[K"

    // MARK: - Layout

    /// Lines and the width of the widest.
    private struct Block {
        var lines: [String]
        var width: Int

        init(_ lines: [String]) {
            self.lines = lines
            self.width = lines.map(ANSI.visibleWidth).max() ?? 0
        }
    }

    /// Columns between the QR code and the text beside it.
    static let gap = 3
    /// The narrowest text column worth placing beside a QR code.
    static let minimumTextWidth = 24

    /// A layout that fits: the QR code's scale (0: none), where it goes, and the text drawn for it.
    private struct Plan {
        var qrScale: Int
        var sideBySide: Bool
        var bannerScale: Int
        var text: [String]

        /// Both the QR code and the large code first, then the larger QR code, then the larger letters.
        var score: (Int, Int, Int) {
            ((qrScale > 0 ? 1 : 0) + (bannerScale > 0 ? 1 : 0), qrScale, bannerScale)
        }
    }

    private func codeScreen(
        _ authorization: DeviceAuthorization, secondsLeft: Int, state: KioskState, columns: Int, rows: Int
    ) -> Block {
        let margin = columns >= 60 ? 2 : 0
        let usable = columns - 2 * margin
        // Checked and worded once per frame: the check parses the hosts, and the search below lays the text out many
        // times.
        let check = authorization.hostCheck
        let status: SignInText.Status =
            switch state {
            case .retrying(let reason): .retrying(reason: reason)
            default: .waiting
            }
        let words = SignInText(
            authorization, check: check, secondsLeft: secondsLeft, countdown: .clock, status: status, settings: settings
        )
        var matrix: QRMatrix?
        var notice: String?
        if qrMode != .never {
            switch QRTarget(check).matrix(errorCorrection: errorCorrection) {
            case .success(let made): matrix = made.0
            case .failure(let refusal): notice = refusal.notice
            }
        }
        // The search asks for the same width and scale again and again (the text above a QR code of each scale
        // is as wide as the screen): each is laid out once per frame.
        var laidOut: [TextKey: [Section]?] = [:]
        let banners = Banners()
        let sections = { (width: Int, banner: Int) -> [Section]? in
            let key = TextKey(width: width, banner: banner)
            if let known = laidOut[key] { return known }
            let laid = textSections(words, notice: notice, width: width, banner: banner, banners: banners)
            laidOut[key] = .some(laid)
            return laid
        }
        let text = { (width: Int, banner: Int) -> [String]? in sections(width, banner)?.flatMap(\.lines) }
        // The text alone, as large as fits; on a screen too small even for the plain text, the parts that matter most.
        var best =
            bestText(width: usable, rows: rows, text: text).map {
                Plan(qrScale: 0, sideBySide: false, bannerScale: $0.scale, text: $0.lines)
            }
            ?? Plan(
                qrScale: 0, sideBySide: false, bannerScale: 0,
                text: compactText(
                    sections(usable, 0) ?? [], code: words.code, width: usable, rows: rows))
        if let matrix {
            for scale in 1...QRRenderer.maximumScale {
                let renderer = QRRenderer(capabilities: capabilities, scale: scale)
                let (qrWidth, qrHeight) = (renderer.width(for: matrix), renderer.height(for: matrix))
                guard qrWidth <= usable, qrHeight <= rows else { break }
                let beside = usable - qrWidth - Self.gap
                if beside >= Self.minimumTextWidth, let fit = bestText(width: beside, rows: rows, text: text) {
                    let plan = Plan(qrScale: scale, sideBySide: true, bannerScale: fit.scale, text: fit.lines)
                    if plan.score > best.score { best = plan }
                }
                if let fit = bestText(width: usable, rows: rows - qrHeight - 1, text: text) {
                    let plan = Plan(qrScale: scale, sideBySide: false, bannerScale: fit.scale, text: fit.lines)
                    if plan.score > best.score { best = plan }
                }
            }
        }
        guard let matrix, best.qrScale > 0 else { return Block(best.text) }
        let qr = QRRenderer(capabilities: capabilities, scale: best.qrScale)
        let qrLines = qr.lines(for: matrix)
        let qrWidth = qr.width(for: matrix)
        let block = Block(best.text)
        if best.sideBySide {
            let height = max(qrLines.count, block.lines.count)
            let qrTop = (height - qrLines.count) / 2
            let textTop = (height - block.lines.count) / 2
            let blank = String(repeating: " ", count: qrWidth)
            return Block(
                (0..<height).map { row in
                    let left = qrLines.indices.contains(row - qrTop) ? qrLines[row - qrTop] : blank
                    let right = block.lines.indices.contains(row - textTop) ? block.lines[row - textTop] : ""
                    return right.isEmpty ? left : left + String(repeating: " ", count: Self.gap) + right
                })
        }
        let width = max(qrWidth, block.width)
        let qrIndent = String(repeating: " ", count: (width - qrWidth) / 2)
        let textIndent = String(repeating: " ", count: (width - block.width) / 2)
        return Block(qrLines.map { qrIndent + $0 } + [""] + block.lines.map { $0.isEmpty ? "" : textIndent + $0 })
    }

    /// A text layout asked for during one frame's search.
    private struct TextKey: Hashable {
        var width: Int
        var banner: Int
    }

    /// The block letters drawn during one frame's search: layouts of different widths break the code into the same
    /// pieces, and each piece at each scale is drawn once.
    private final class Banners {
        private struct Key: Hashable {
            var text: String
            var scale: Int
        }
        private var drawn: [Key: [String]?] = [:]

        func lines(for text: String, scale: Int) -> [String]? {
            let key = Key(text: text, scale: scale)
            if let known = drawn[key] { return known }
            let lines = BannerFont.lines(for: text, scale: scale)
            drawn[key] = .some(lines)
            return lines
        }
    }

    /// The text with the largest letters that fits in `width` × `rows`: banner scales from the largest whose
    /// widest piece fits down to 1, then the plain code (scale 0); `nil` when not even that fits.
    private func bestText(
        width: Int, rows: Int, text: (Int, Int) -> [String]?
    ) -> (scale: Int, lines: [String])? {
        guard width >= 1, rows >= 1 else { return nil }
        for scale in stride(from: BannerFont.maximumScale, through: 0, by: -1) {
            // Too wide for even one letter at this scale: no need to lay the text out.
            if scale > 0, BannerFont.width(forCount: 1, scale: scale) > width { continue }
            if let lines = text(width, scale), lines.count <= rows { return (scale, lines) }
        }
        return nil
    }

    // MARK: - Text

    /// What a screen too small for the whole text keeps, most important first: each part is drawn only when it and
    /// every more important one that fits leave room for it. The large letters and the QR code go before any of
    /// these, since they are drawn only beside or below the whole text.
    enum Rank: Int, CaseIterable, Sendable {
        /// The user code as plain text: the one thing the screen is for (RFC 8628 §3.3.1). `Code: WDJB-MJHT`, or the
        /// code alone when that takes too many rows, or as much of it as fits, ending with an ellipsis.
        case code
        /// The warnings, the link, the host it leads to and "Only continue if you started this sign-in on NAME just
        /// now.", all or nothing: a link is never shown without the words that help the person judge it (RFC 8628
        /// §5.4, RFC 10027), and a warning is about the link.
        case link
        /// "The code expires in 14:00.": a person can still enter a code without it.
        case countdown
        /// "Waiting for approval…", or the network problem.
        case state
        /// "Open this page in a browser:", only above the link.
        case caption
        /// Why no QR code is drawn.
        case notice
        /// The code letter-spaced.
        case letters
        /// The blank lines between parts.
        case spacing
    }

    /// A part of the code screen's text, and its rank.
    private struct Section {
        var rank: Rank
        var lines: [String]
    }

    /// The text of a screen too small for all of it: the most important parts that fit, in the order shown, without
    /// blank lines (see ``Rank``).
    private func compactText(_ sections: [Section], code: String, width: Int, rows: Int) -> [String] {
        var sections = sections.filter { $0.rank != .spacing }
        func count(_ rank: Rank) -> Int { sections.filter { $0.rank == rank }.reduce(0) { $0 + $1.lines.count } }
        if count(.code) > rows {
            for index in sections.indices where sections[index].rank == .code {
                sections[index].lines = bareCode(code, width: width, rows: rows)
            }
        }
        var kept = Set<Rank>()
        var used = 0
        for rank in Rank.allCases where rank != .caption || kept.contains(.link) {
            let needed = count(rank)
            guard used + needed <= rows else { continue }
            kept.insert(rank)
            used += needed
        }
        return sections.filter { kept.contains($0.rank) }.flatMap(\.lines)
    }

    /// The code alone, broken into lines of `width` characters; cut to `rows` lines with an ellipsis at the end when
    /// it needs more.
    private func bareCode(_ code: String, width: Int, rows: Int) -> [String] {
        let width = max(1, width)
        var text = code
        if code.count > width * rows {
            let room = max(0, width * rows - ellipsis.count)
            text = String(code.prefix(room)) + ellipsis
        }
        var lines: [String] = []
        var rest = Substring(text)
        while !rest.isEmpty, lines.count < rows {
            lines.append(String(rest.prefix(width)))
            rest = rest.dropFirst(width)
        }
        return lines
    }

    private var ellipsis: String { capabilities.isUTF8 ? "…" : "..." }

    /// The rank of the paragraphs of `part`.
    private static func rank(_ part: SignInText.Part) -> Rank {
        switch part {
        case .warning, .refusal, .link, .host, .continueHere: .link
        case .caption: .caption
        case .code: .code
        case .countdown: .countdown
        case .status: .state
        }
    }

    /// The text of the code screen at `width`, in parts, with the code in block letters at `banner` (0: plain
    /// letters); `nil` when the block letters cannot be drawn at that scale (too wide, a character not in the font,
    /// ASCII).
    private func textSections(
        _ words: SignInText, notice: String?, width: Int, banner: Int, banners: Banners
    ) -> [Section]? {
        var sections: [Section] = []
        func add(_ rank: Rank, _ text: KioskText) {
            sections.append(Section(rank: rank, lines: text.lines(width: width, capabilities: capabilities)))
        }
        let blank = Section(rank: .spacing, lines: [""])
        for paragraph in words.paragraphs {
            switch paragraph.part {
            case .code:
                let big = bigCode(words, width: width, scale: banner, banners: banners)
                if banner > 0, big.isEmpty { return nil }
                if !big.isEmpty { sections += [blank, Section(rank: .letters, lines: big)] }
                sections.append(blank)
            case .countdown:
                sections.append(blank)
            default:
                break
            }
            add(Self.rank(paragraph.part), KioskText(paragraph))
        }
        if let notice {
            sections.append(blank)
            add(.notice, KioskText(notice))
        }
        return sections
    }

    /// The code in block letters at `scale`, broken after dashes and spaces into as few rows as fit `width`, a blank
    /// line between rows; at scale 0 the code letter-spaced (bold) when it fits. Empty when it cannot be drawn so.
    private func bigCode(_ words: SignInText, width: Int, scale: Int, banners: Banners) -> [String] {
        let code = words.code
        guard scale > 0 else {
            let spaced = words.spacedCode
            guard !code.isEmpty, spaced.count <= width else { return [] }
            return [SignInText.Style.bold.apply(to: spaced, capabilities: capabilities)]
        }
        guard capabilities.isUTF8 else { return [] }
        var groups: [String] = []
        var group = ""
        for character in code {
            group.append(character)
            if character == "-" || character == " " {
                groups.append(group)
                group = ""
            }
        }
        if !group.isEmpty { groups.append(group) }
        var rows: [String] = []
        for group in groups {
            if let last = rows.last, BannerFont.width(forCount: (last + group).count, scale: scale) <= width {
                rows[rows.count - 1] = last + group
            } else {
                guard BannerFont.width(forCount: group.count, scale: scale) <= width else { return [] }
                rows.append(group)
            }
        }
        var lines: [String] = []
        for (index, row) in rows.enumerated() {
            guard let banner = banners.lines(for: row, scale: scale) else { return [] }
            lines += (index > 0 ? [""] : []) + banner
        }
        return lines
    }

    /// The screen after the code expired, or while a new one is requested: no code, no QR code.
    private func messageScreen(expired: Bool, next: KioskState.AfterExpiry, columns: Int, rows: Int) -> Block {
        var message: [String] = []
        if expired {
            message.append("This sign-in code has expired.")
            switch next {
            case .pressKey: message.append("Press any key for a new code, or Ctrl-C to quit.")
            case .automatic: message.append("A new code will be requested" + ellipsis)
            case .end: message.append("Start the sign-in again for a new code.")
            }
        } else {
            message.append("Requesting a new code" + ellipsis)
        }
        var banner: [String] = []
        if expired, capabilities.isUTF8 {
            let word = "EXPIRED"
            let scale = stride(from: BannerFont.maximumScale, through: 1, by: -1).first {
                BannerFont.width(forCount: word.count, scale: $0) <= columns
                    && BannerFont.lineCount(scale: $0) + 1 + message.count <= rows
            }
            if let scale, let lines = BannerFont.lines(for: word, scale: scale) { banner = lines + [""] }
        }
        let text = message.flatMap { KioskText($0).lines(width: columns, capabilities: capabilities) }
        let width = max(banner.map(ANSI.visibleWidth).max() ?? 0, text.map(ANSI.visibleWidth).max() ?? 0)
        // Each line centred on its own.
        func centred(_ line: String) -> String {
            String(repeating: " ", count: max(0, (width - ANSI.visibleWidth(line)) / 2)) + line
        }
        return Block(banner.map(centred) + text.map(centred))
    }
}
