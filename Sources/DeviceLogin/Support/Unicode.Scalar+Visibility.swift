extension Unicode.Scalar {
    /// Whether the scalar draws nothing where text is shown: a control, format, private-use, unassigned or surrogate
    /// code point; a default-ignorable one (the Hangul fillers U+115F, U+1160, U+3164 and U+FFA0, the combining
    /// grapheme joiner U+034F, variation selectors); or the blank Braille pattern U+2800, which renders as empty
    /// space.
    ///
    /// The one definition shared by the check that a user code can be shown (`String.hasVisibleCharacter`)
    /// and ``isUnsafeToShow``. Spaces and line separators are not in it: they draw nothing but keep words apart, so
    /// each caller says what they mean to it.
    package var drawsNothing: Bool {
        let properties = properties
        switch properties.generalCategory {
        case .control, .format, .privateUse, .unassigned, .surrogate:
            return true
        default:
            return properties.isDefaultIgnorableCodePoint || value == 0x2800
        }
    }

    /// Whether the scalar can change how a terminal or a log shows text, or hide from the person reading it, so
    /// that no output path writes it raw: the one rule for unsafe characters.
    ///
    /// It holds for every C0 control, DEL and C1 control (escape sequences start with them); the line and paragraph
    /// separators U+2028 and U+2029 (line breaks to JavaScript and to some terminals); the tag block
    /// U+E0000–U+E007F (invisible ASCII), assigned or not; every scalar that ``drawsNothing`` (format characters —
    /// bidi controls, zero-width characters, the byte order mark —, default-ignorable code points, private-use and
    /// unassigned code points, the blank Braille pattern); and every space but U+0020 (general category Zs: the
    /// no-break, ideographic and other spaces look like a space but are not one to a search or a comparison).
    ///
    /// The sanitiser (``Sanitizer``) drops each of them or shows it as a plain space (tab, line breaks and the
    /// spaces); the JSON writer (`JSONWriter`) writes each as a `\uXXXX` escape. Everything else is shown as it is.
    package var isUnsafeToShow: Bool {
        switch value {
        case 0x20...0x7E: return false
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0xE0000...0xE007F: return true
        default: return drawsNothing || properties.generalCategory == .spaceSeparator
        }
    }
}
