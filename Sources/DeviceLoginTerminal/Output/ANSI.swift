/// The few terminal control sequences DeviceLoginTerminal writes, in one place.
///
/// Only ECMA-48 / VT100 sequences that a serial console understands, plus the DEC cursor-visibility mode (VT220).
enum ANSI {
    /// Select Graphic Rendition: all attributes off.
    static let reset = "\u{1B}[0m"
    /// Bold.
    static let bold = "\u{1B}[1m"
    /// Inverse video: foreground and background swapped.
    static let inverse = "\u{1B}[7m"
    /// Black text on a white background (the 8 standard colours every colour terminal has).
    static let blackOnWhite = "\u{1B}[30;47m"
    /// A black background.
    static let blackBackground = "\u{1B}[40m"
    /// A white background.
    static let whiteBackground = "\u{1B}[47m"
    /// Green text.
    static let green = "\u{1B}[32m"
    /// Red text.
    static let red = "\u{1B}[31m"
    /// Carriage return, then erase the whole line: the start of an in-place redraw.
    static let clearLine = "\r\u{1B}[2K"
    /// Hide the cursor (DECTCEM off).
    static let hideCursor = "\u{1B}[?25l"
    /// Show the cursor (DECTCEM on).
    static let showCursor = "\u{1B}[?25h"

    /// `text` in bold when `enabled`, else as is.
    static func bold(_ text: String, if enabled: Bool) -> String {
        enabled ? bold + text + reset : text
    }

    /// The number of terminal columns `text` takes, ignoring the CSI sequences this library writes.
    ///
    /// Counts one column per character: the text it measures is ASCII or block characters.
    static func visibleWidth(_ text: String) -> Int {
        var width = 0
        var inSequence = false
        for scalar in text.unicodeScalars {
            if inSequence {
                if (0x40...0x7E).contains(scalar.value) && scalar != "[" { inSequence = false }
            } else if scalar == "\u{1B}" {
                inSequence = true
            } else if scalar.value >= 0x20 {
                width += 1
            }
        }
        return width
    }
}
