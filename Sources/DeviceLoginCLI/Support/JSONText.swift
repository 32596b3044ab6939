/// JSON text on its way to stdout: the same JSON value, with nothing in it that a terminal would act on.
enum JSONText {
    /// JSON text with DEL, C1 controls and invisible format characters (bidi overrides, zero-width marks) written
    /// as `\uXXXX` escapes: the same JSON value, but nothing a terminal would act on. `JSONEncoder` already escapes
    /// U+0000–U+001F; these it passes through raw.
    static func escapingControls(_ json: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in json.unicodeScalars {
            if needsEscape(scalar) {
                let hex = String(scalar.value, radix: 16, uppercase: true)
                let padded = String(repeating: "0", count: max(0, 4 - hex.count)) + hex
                out.append(contentsOf: ("\\u" + padded).unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x7F...0x9F, 0x061C, 0x200B...0x200F, 0x202A...0x202E, 0x2060...0x2069, 0xFEFF: return true
        default: return false
        }
    }
}
