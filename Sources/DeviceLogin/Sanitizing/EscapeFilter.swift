/// The scanner behind ``Sanitizer``: a small state machine over Unicode scalars that drops escape sequences whole.
struct EscapeFilter {
    private enum State {
        /// Plain text.
        case text
        /// After ESC.
        case escape
        /// After ESC and one or more intermediate bytes (U+0020–U+002F).
        case escapeIntermediate
        /// Inside a control sequence (CSI): parameters and intermediates until a final byte.
        case controlSequence
        /// Inside an OSC, DCS, SOS, PM or APC string: everything until BEL or ST.
        case controlString
    }

    private var state = State.text

    /// The scalar to show for `scalar` (a space for a line break or tab), or `nil` when it is dropped.
    mutating func visible(_ scalar: Unicode.Scalar) -> Unicode.Scalar? {
        let value = scalar.value
        switch state {
        case .text:
            break
        case .escape:
            switch value {
            case 0x5B: state = .controlSequence // [
            case 0x5D, 0x50, 0x58, 0x5E, 0x5F: state = .controlString // ] P X ^ _
            case 0x20...0x2F: state = .escapeIntermediate
            case 0x30...0x7E: state = .text
            case 0x1B: break
            default:
                // ESC before anything else is an aborted escape: drop the ESC, read the scalar as text.
                state = .text
                return text(scalar)
            }
            return nil
        case .escapeIntermediate:
            switch value {
            case 0x20...0x2F: break
            case 0x30...0x7E: state = .text
            default:
                state = .text
                return text(scalar)
            }
            return nil
        case .controlSequence:
            switch value {
            case 0x20...0x3F: break
            case 0x40...0x7E: state = .text
            case 0x1B: state = .escape
            default:
                // CAN, SUB, any other control or a non-ASCII scalar ends the sequence; read the scalar as text.
                state = .text
                return text(scalar)
            }
            return nil
        case .controlString:
            switch value {
            case 0x07, 0x9C, 0x18, 0x1A: state = .text // BEL, ST, CAN, SUB
            case 0x1B: state = .escape // ESC \ (ST) or a new escape: either way the string ends
            default: break
            }
            return nil
        }
        return text(scalar)
    }

    private mutating func text(_ scalar: Unicode.Scalar) -> Unicode.Scalar? {
        switch scalar.value {
        case 0x1B:
            state = .escape
            return nil
        case 0x9B:
            state = .controlSequence
            return nil
        case 0x90, 0x98, 0x9D, 0x9E, 0x9F:
            state = .controlString
            return nil
        case 0x09...0x0D, 0x2028, 0x2029:
            return " "
        default:
            // The core's one rule for unsafe characters: what it lets through is shown as it is. Of the rest, the
            // no-break, ideographic and other spaces are shown as a plain space; controls, format characters and the
            // characters that draw nothing are dropped.
            guard scalar.isUnsafeToShow else { return scalar }
            return scalar.properties.generalCategory == .spaceSeparator ? " " : nil
        }
    }
}
