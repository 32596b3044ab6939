/// The Unicode half-block characters that draw two pixel rows in one character cell.
enum HalfBlock {
    /// The character whose upper and lower halves are inked as given: `█`, `▀`, `▄` or a space.
    static func character(upper: Bool, lower: Bool) -> String {
        switch (upper, lower) {
        case (true, true): "█"
        case (true, false): "▀"
        case (false, true): "▄"
        case (false, false): " "
        }
    }
}
