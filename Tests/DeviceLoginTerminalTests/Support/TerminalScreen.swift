import Foundation

/// A tiny model of a terminal showing rendered text, written independently of the renderer: it reads the
/// characters and the SGR sequences the way a terminal does and says what colour each half of each cell shows.
///
/// Tests use it to turn a rendering back into modules and into a picture, so what is checked (and what zbar reads)
/// is the drawing itself.
struct TerminalScreen {
    /// Grey levels of a theme's default foreground and background, and of the standard black and white.
    struct Theme {
        var foreground: UInt8
        var background: UInt8
        static let dark = Theme(foreground: 220, background: 24)
        static let light = Theme(foreground: 30, background: 245)
        static let black: UInt8 = 0
        static let white: UInt8 = 229
    }

    /// The grey of the upper and lower half of every cell, line by line.
    let cells: [[(upper: UInt8, lower: UInt8)]]

    /// Reads `lines` as a terminal with `theme` shows them. Unknown characters or sequences are a test failure,
    /// unless `withText`: then bold and red are read too, and any other character (a letter) as a cell inked in its
    /// upper half, about as much ink as a glyph leaves; a whole screen (the kiosk's) can be pictured so.
    init(lines: [String], theme: Theme, withText: Bool = false) throws {
        var cells: [[(upper: UInt8, lower: UInt8)]] = []
        for line in lines {
            var foreground: UInt8? = nil
            var background: UInt8? = nil
            var inverse = false
            var row: [(upper: UInt8, lower: UInt8)] = []
            var scalars = line.unicodeScalars[...]
            while let scalar = scalars.popFirst() {
                if scalar == "\u{1B}" {
                    guard scalars.popFirst() == "[" else { throw ScreenError.unexpected(line) }
                    var parameters = ""
                    while let next = scalars.popFirst(), next != "m" {
                        guard next.properties.numericType != nil || next == ";" else {
                            throw ScreenError.unexpected(line)
                        }
                        parameters.unicodeScalars.append(next)
                    }
                    let codes = parameters.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) ?? 0 }
                    for code in codes {
                        switch code {
                        case 0: (foreground, background, inverse) = (nil, nil, false)
                        case 7: inverse = true
                        case 27: inverse = false
                        case 30: foreground = Theme.black
                        case 37: foreground = Theme.white
                        case 40: background = Theme.black
                        case 47: background = Theme.white
                        case 1 where withText, 22 where withText: break
                        case 31 where withText, 32 where withText: foreground = theme.foreground
                        default: throw ScreenError.unexpected(line)
                        }
                    }
                    continue
                }
                var ink = foreground ?? theme.foreground
                var paper = background ?? theme.background
                if inverse { swap(&ink, &paper) }
                switch scalar {
                case "█": row.append((ink, ink))
                case "▀": row.append((ink, paper))
                case "▄": row.append((paper, ink))
                case " ": row.append((paper, paper))
                case "#": row.append((ink, ink)) // a '#' covers about half its cell; read as ink
                default:
                    guard withText, scalar.value >= 0x20 else { throw ScreenError.unexpected(line) }
                    row.append((ink, paper))
                }
            }
            cells.append(row)
        }
        self.cells = cells
    }

    enum ScreenError: Error {
        case unexpected(String)
    }

    /// Whether a grey reads as dark.
    static func isDark(_ grey: UInt8) -> Bool { grey < 128 }

    /// The modules of a half-block rendering (one column and half a line per module), quiet zone included.
    func halfBlockModules() -> [[Bool]] {
        cells.flatMap { row in [row.map { Self.isDark($0.upper) }, row.map { Self.isDark($0.lower) }] }
    }

    /// The modules of an ASCII rendering (two columns and one line per module), quiet zone included; `nil` when the
    /// two cells of a module disagree.
    func asciiModules() -> [[Bool]]? {
        var modules: [[Bool]] = []
        for row in cells {
            guard row.count % 2 == 0 else { return nil }
            var moduleRow: [Bool] = []
            for index in stride(from: 0, to: row.count, by: 2) {
                let left = Self.isDark(row[index].upper)
                let right = Self.isDark(row[index + 1].upper)
                guard left == right, row[index].upper == row[index].lower else { return nil }
                moduleRow.append(left)
            }
            modules.append(moduleRow)
        }
        return modules
    }

    /// The screen as a greyscale picture: each cell `cellWidth` pixels wide and `2 × halfHeight` tall.
    func picture(cellWidth: Int, halfHeight: Int) -> GreyImage {
        let columns = cells.map(\.count).max() ?? 0
        var image = GreyImage(width: columns * cellWidth, height: cells.count * 2 * halfHeight, fill: 255)
        for (line, row) in cells.enumerated() {
            for (column, cell) in row.enumerated() {
                image.fill(
                    x: column * cellWidth, y: line * 2 * halfHeight, width: cellWidth, height: halfHeight,
                    grey: cell.upper)
                image.fill(
                    x: column * cellWidth, y: (line * 2 + 1) * halfHeight, width: cellWidth,
                    height: halfHeight, grey: cell.lower)
            }
        }
        return image
    }
}

/// A greyscale picture that can be written as a binary PGM (P5) file.
struct GreyImage {
    let width: Int
    let height: Int
    private(set) var pixels: [UInt8]

    init(width: Int, height: Int, fill: UInt8) {
        self.width = width
        self.height = height
        self.pixels = Array(repeating: fill, count: width * height)
    }

    /// A QR matrix drawn with `scale` pixels per module and a light quiet zone of `quietZone` modules.
    init(modules: [[Bool]], scale: Int, quietZone: Int) {
        let side = (modules.count + 2 * quietZone) * scale
        self.init(width: side, height: side, fill: 255)
        for (row, values) in modules.enumerated() {
            for (column, dark) in values.enumerated() where dark {
                fill(
                    x: (column + quietZone) * scale, y: (row + quietZone) * scale, width: scale, height: scale,
                    grey: 0)
            }
        }
    }

    mutating func fill(x: Int, y: Int, width: Int, height: Int, grey: UInt8) {
        for row in y..<(y + height) {
            for column in x..<(x + width) {
                pixels[row * self.width + column] = grey
            }
        }
    }

    /// The PGM bytes: header, then one byte per pixel.
    var pgm: Data {
        Data("P5\n\(width) \(height)\n255\n".utf8) + Data(pixels)
    }
}
