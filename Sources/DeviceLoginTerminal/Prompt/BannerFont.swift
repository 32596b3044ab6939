/// A 5 × 7 pixel font for user codes, drawn with half blocks: four lines tall, six columns per character.
///
/// Covers what user codes are made of (RFC 8628 §6.1 suggests base-20 letters or digits, grouped with dashes):
/// A–Z, 0–9, `-` and space. The zero is slashed so it cannot be taken for the letter O.
enum BannerFont {
    /// Pixel rows of a glyph.
    static let height = 7
    /// Pixel columns of a glyph.
    static let width = 5
    /// Text lines a banner takes: two pixel rows per line.
    static let lineCount = (height + 1) / 2

    /// The largest scale drawn: a banner of 16 × 7 half-block pixels a character row is already 56 lines tall.
    static let maximumScale = 16

    /// The banner for `text`, or `nil` when a character is not in the font.
    ///
    /// - Parameters:
    ///   - text: The text, e.g. "WDJB-MJHT".
    ///   - scale: How many columns and half lines each pixel of the font takes (1 to ``maximumScale``); 1 by
    ///     default, the prompt's size. Half blocks are about as wide as they are tall, so letters keep their shape.
    /// - Returns: ``lineCount(scale:)`` lines of ``width(forCount:scale:)`` columns; `nil` also for a scale out of
    ///   range.
    static func lines(for text: String, scale: Int = 1) -> [String]? {
        let glyphs = text.map { glyph(for: $0) }
        guard (1...maximumScale).contains(scale), !glyphs.isEmpty, glyphs.allSatisfy({ $0 != nil }) else {
            return nil
        }
        let pixels = glyphs.compactMap { $0 }
        let gap = [Bool](repeating: false, count: scale)
        let tall = height * scale
        // One pixel row of the scaled banner: each glyph pixel repeated `scale` times, `scale` blank columns between.
        func row(_ y: Int) -> [Bool] {
            guard y < tall else { return [Bool](repeating: false, count: width(forCount: pixels.count, scale: scale)) }
            let cells = pixels.map { glyph in glyph[y / scale].flatMap { [Bool](repeating: $0, count: scale) } }
            return Array(cells.joined(separator: gap))
        }
        return stride(from: 0, to: tall, by: 2).map { top in
            zip(row(top), row(top + 1)).map { HalfBlock.character(upper: $0, lower: $1) }.joined()
        }
    }

    /// The width of the banner for `count` characters.
    static func width(forCount count: Int, scale: Int = 1) -> Int {
        count > 0 ? scale * (count * (width + 1) - 1) : 0
    }

    /// Text lines a banner drawn at `scale` takes.
    static func lineCount(scale: Int) -> Int {
        (height * scale + 1) / 2
    }

    /// The pixels of `character`, row by row, or `nil` when the font lacks it.
    private static func glyph(for character: Character) -> [[Bool]]? {
        guard let rows = glyphs[character] else { return nil }
        return rows.map { row in row.map { $0 == "#" } }
    }

    private static let glyphs: [Character: [String]] = [
        "A": [".###.", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"],
        "B": ["####.", "#...#", "#...#", "####.", "#...#", "#...#", "####."],
        "C": [".###.", "#...#", "#....", "#....", "#....", "#...#", ".###."],
        "D": ["####.", "#...#", "#...#", "#...#", "#...#", "#...#", "####."],
        "E": ["#####", "#....", "#....", "####.", "#....", "#....", "#####"],
        "F": ["#####", "#....", "#....", "####.", "#....", "#....", "#...."],
        "G": [".###.", "#...#", "#....", "#.###", "#...#", "#...#", ".####"],
        "H": ["#...#", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"],
        "I": [".###.", "..#..", "..#..", "..#..", "..#..", "..#..", ".###."],
        "J": ["..###", "...#.", "...#.", "...#.", "...#.", "#..#.", ".##.."],
        "K": ["#...#", "#..#.", "#.#..", "##...", "#.#..", "#..#.", "#...#"],
        "L": ["#....", "#....", "#....", "#....", "#....", "#....", "#####"],
        "M": ["#...#", "##.##", "#.#.#", "#.#.#", "#...#", "#...#", "#...#"],
        "N": ["#...#", "#...#", "##..#", "#.#.#", "#..##", "#...#", "#...#"],
        "O": [".###.", "#...#", "#...#", "#...#", "#...#", "#...#", ".###."],
        "P": ["####.", "#...#", "#...#", "####.", "#....", "#....", "#...."],
        "Q": [".###.", "#...#", "#...#", "#...#", "#.#.#", "#..#.", ".##.#"],
        "R": ["####.", "#...#", "#...#", "####.", "#.#..", "#..#.", "#...#"],
        "S": [".####", "#....", "#....", ".###.", "....#", "....#", "####."],
        "T": ["#####", "..#..", "..#..", "..#..", "..#..", "..#..", "..#.."],
        "U": ["#...#", "#...#", "#...#", "#...#", "#...#", "#...#", ".###."],
        "V": ["#...#", "#...#", "#...#", "#...#", "#...#", ".#.#.", "..#.."],
        "W": ["#...#", "#...#", "#...#", "#.#.#", "#.#.#", "#.#.#", ".#.#."],
        "X": ["#...#", "#...#", ".#.#.", "..#..", ".#.#.", "#...#", "#...#"],
        "Y": ["#...#", "#...#", ".#.#.", "..#..", "..#..", "..#..", "..#.."],
        "Z": ["#####", "....#", "...#.", "..#..", ".#...", "#....", "#####"],
        "0": [".###.", "#...#", "#..##", "#.#.#", "##..#", "#...#", ".###."],
        "1": ["..#..", ".##..", "..#..", "..#..", "..#..", "..#..", ".###."],
        "2": [".###.", "#...#", "....#", "...#.", "..#..", ".#...", "#####"],
        "3": ["#####", "...#.", "..#..", "...#.", "....#", "#...#", ".###."],
        "4": ["...#.", "..##.", ".#.#.", "#..#.", "#####", "...#.", "...#."],
        "5": ["#####", "#....", "####.", "....#", "....#", "#...#", ".###."],
        "6": ["..##.", ".#...", "#....", "####.", "#...#", "#...#", ".###."],
        "7": ["#####", "....#", "...#.", "..#..", ".#...", ".#...", ".#..."],
        "8": [".###.", "#...#", "#...#", ".###.", "#...#", "#...#", ".###."],
        "9": [".###.", "#...#", "#...#", ".####", "....#", "...#.", ".##.."],
        "-": [".....", ".....", ".....", "#####", ".....", ".....", "....."],
        " ": [".....", ".....", ".....", ".....", ".....", ".....", "....."],
    ]
}
