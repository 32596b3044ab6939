/// Makes text from a server safe to write to a terminal.
///
/// Every string that comes from the authorization server (user code, verification URI, error descriptions, a
/// transport failure's reason) passes through ``sanitize(_:maxLength:asciiOnly:)`` before it reaches the terminal,
/// so that a hostile or broken server cannot move the cursor, rewrite what is on screen, set the window title,
/// plant a hidden hyperlink (OSC 8), write the clipboard (OSC 52), reorder text with bidi controls or flood the
/// screen.
///
/// What it removes:
/// - C0 controls (U+0000–U+001F), DEL (U+007F) and C1 controls (U+0080–U+009F). Tab, line feed, vertical tab,
///   form feed, carriage return and the Unicode line and paragraph separators become one space each, so words stay
///   apart in a single-line field.
/// - Whole escape sequences, not just their ESC: CSI (`ESC [ … final`, and 8-bit CSI U+009B), OSC (`ESC ] … BEL`
///   or `… ST`, and U+009D) including OSC 8 hyperlinks and OSC 52 clipboard writes, DCS, SOS, PM and APC strings
///   (7-bit and 8-bit), and two- and three-character escapes such as `ESC c` (full reset) or `ESC ( 0`. An
///   unterminated string swallows the rest of the text, as it would on a terminal.
/// - Every Unicode format character (general category Cf): the bidi embeddings, overrides and isolates
///   (U+202A–U+202E, U+2066–U+2069), the marks U+200E, U+200F and U+061C, zero-width space, non-joiner and joiner
///   (U+200B–U+200D), word joiner and invisible operators (U+2060–U+2064), the byte order mark (U+FEFF), the soft
///   hyphen (U+00AD) and the tag characters (U+E0000–U+E007F) used to smuggle invisible ASCII.
/// - Every other character that draws nothing: default-ignorable code points outside Cf (the Hangul fillers U+115F,
///   U+1160, U+3164 and U+FFA0, the combining grapheme joiner U+034F, variation selectors), the blank Braille
///   pattern U+2800, private-use and unassigned code points. No-break, ideographic and other spaces (category Zs)
///   become a plain space.
/// - Combining marks (general category M: Mn, Mc, Me) past the ``maximumCombiningMarks``-th on one base character.
///   Marks stack above and below their base, so hundreds of them on one letter ("Zalgo" text) draw over the lines
///   around it — over a user code or a host name — and cost the terminal time to lay out. A mark that follows a
///   removed character counts against the base before it: hiding a character between marks does not reset the count.
///
/// Leading and trailing spaces are trimmed, and the result is at most `maxLength` Unicode scalars: longer text is
/// cut and ends with an ellipsis.
///
/// ```swift
/// let shown = Sanitizer.sanitize("WDJB-\u{1B}]52;c;ZXZpbA==\u{07}MJHT")  // "WDJB-MJHT"
/// ```
public enum Sanitizer {
    /// The default bound on a sanitised string, in Unicode scalars.
    public static let defaultMaxLength = 512

    /// The most combining marks kept on one base character; further marks on it are removed.
    ///
    /// Four is what written languages need and little more: Vietnamese puts at most two marks on a vowel (in NFD,
    /// "ệ" is e, dot below, circumflex), a Devanagari syllable three (nukta, vowel sign, candrabindu), pointed Hebrew
    /// with cantillation four (shin dot, dagesh, vowel, accent), a Tibetan stack three or four. Unicode's
    /// Stream-Safe Text Format (UAX #15 §13) allows 30 non-starters in a row, but that bound is for buffers, not
    /// for the eye: at 30 marks a letter already covers the lines above and below it. Hangul jamo, emoji
    /// modifiers (skin tones) and regional indicators (flags) are not marks and are not counted.
    public static let maximumCombiningMarks = 4

    /// Returns `text` with every control, escape sequence and invisible format character removed.
    ///
    /// - Parameters:
    ///   - text: Text from the server.
    ///   - maxLength: The most Unicode scalars to return, the ellipsis included (at least 1).
    ///   - asciiOnly: Replace each remaining non-ASCII character with `?` and end a cut string with `...`, for a
    ///     terminal whose locale is not UTF-8.
    /// - Returns: Single-line text that is safe to print.
    public static func sanitize(_ text: String, maxLength: Int = defaultMaxLength, asciiOnly: Bool = false) -> String {
        let limit = max(1, maxLength)
        var filter = EscapeFilter()
        var kept = String.UnicodeScalarView()
        var keptCount = 0
        var pendingSpaces = 0
        var truncated = false
        var marksOnBase = 0
        for scalar in text.unicodeScalars {
            guard let visible = filter.visible(scalar) else { continue }
            if visible.isCombiningMark {
                marksOnBase += 1
                if marksOnBase > maximumCombiningMarks { continue }
            } else {
                marksOnBase = 0
            }
            if visible == " " {
                // Held back until something visible follows, so trailing spaces never appear.
                if keptCount > 0 { pendingSpaces += 1 }
                continue
            }
            let replacement: Unicode.Scalar = asciiOnly && !visible.isASCII ? "?" : visible
            if keptCount + pendingSpaces + 1 > limit {
                truncated = true
                break
            }
            kept.append(contentsOf: repeatElement(" ", count: pendingSpaces))
            kept.append(replacement)
            keptCount += pendingSpaces + 1
            pendingSpaces = 0
        }
        guard truncated else { return String(kept) }
        // The ellipsis counts against the bound too: "..." is cut to fit a bound of 1 or 2.
        let ellipsis = String((asciiOnly ? "..." : "…").prefix(limit))
        let room = max(0, limit - ellipsis.unicodeScalars.count)
        var cut = String(String.UnicodeScalarView(kept.prefix(room)))
        while cut.last == " " { cut.removeLast() }
        return cut + ellipsis
    }

    /// The URI when it is an absolute `http` or `https` URI with a host and nothing dangerous in it, else `nil`.
    ///
    /// A URI that fails this check must be neither printed nor encoded in a QR code; see ``SafeURI`` for the exact
    /// rules (no `javascript:`, `file:` or `data:`, no spaces, controls, non-ASCII or user info).
    ///
    /// - Parameter text: A URI from the server.
    /// - Returns: `text` unchanged when it is safe.
    public static func safeURI(_ text: String) -> String? {
        SafeURI(text)?.string
    }
}

extension Unicode.Scalar {
    /// Whether this is a combining mark (general category Mn, Mc or Me), drawn on the character before it.
    fileprivate var isCombiningMark: Bool {
        switch properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: true
        default: false
        }
    }
}
