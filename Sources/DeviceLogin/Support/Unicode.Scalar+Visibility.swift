extension Unicode.Scalar {
    /// Whether the scalar draws nothing where text is shown: a control, format, private-use, unassigned or surrogate
    /// code point; a default-ignorable one (the Hangul fillers U+115F, U+1160, U+3164 and U+FFA0, the combining
    /// grapheme joiner U+034F, variation selectors); or the blank Braille pattern U+2800, which renders as empty
    /// space.
    ///
    /// The one definition shared by the check that a user code can be shown (`String.hasVisibleCharacter`)
    /// and the terminal's sanitiser. Spaces and line separators are not in it: they draw nothing but keep words
    /// apart, so each caller says what they mean to it.
    package var drawsNothing: Bool {
        let properties = properties
        switch properties.generalCategory {
        case .control, .format, .privateUse, .unassigned, .surrogate:
            return true
        default:
            return properties.isDefaultIgnorableCodePoint || value == 0x2800
        }
    }
}
