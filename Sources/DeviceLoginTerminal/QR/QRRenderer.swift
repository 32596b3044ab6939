/// Draws a ``QRMatrix`` as text, with a quiet zone of 4 modules on every side.
///
/// Three choices make a style:
/// - ``Glyphs``: ``Glyphs/halfBlocks`` (`▀ ▄ █` and space, two module rows per line, one column per module:
///   `size + 8` columns) when the locale is UTF-8, else ``Glyphs/ascii`` (one module row per line, two columns per
///   module: `2 × (size + 8)` columns).
/// - ``scale``: how many cells a module takes; 1 by default. At scale *n* a module is *n* half-block pixels wide
///   and tall (`n` columns, `n/2` lines) or *n* ASCII module cells (`2n` columns, `n` lines): the kiosk screen
///   draws larger codes where there is room. The quiet zone grows with it.
/// - ``Paint``: how dark is told from light.
///   - ``Paint/colors``: explicit black on white (`ESC[30;47m`, reset at each line end), right on every theme.
///   - ``Paint/inverseVideo`` and ``Paint/none``, when colour is not allowed. Without colour the renderer cannot
///     know whether the background is dark or light, so one polarity must be chosen, and it is the one that is
///     right on a **dark** background (the default of most terminals, and of the Linux and serial consoles):
///     light modules and the quiet zone are drawn in the foreground colour, dark modules in the background
///     colour. With escapes allowed that is inverse video (`ESC[7m`), whose blank cells fill completely; with no
///     escapes at all, light modules are drawn as block characters (`█`, or `##` in ASCII), the convention of
///     `qrencode -t UTF8`. On a **light** theme these two styles come out inverted (light on dark); the common phone
///     scanners (the iOS camera, Google Lens, ZXing-based apps) read inverted codes, but some other decoders do
///     not: use colour when you can.
///
/// ```swift
/// let renderer = QRRenderer(capabilities: .detect())
/// if renderer.fits(matrix, columns: 80, rows: 24) { print(renderer.render(matrix), terminator: "") }
/// ```
public struct QRRenderer: Sendable, Hashable {
    /// The characters a module is drawn with.
    public enum Glyphs: Sendable, Hashable, CaseIterable {
        /// Unicode half blocks: two module rows per line, one column per module.
        case halfBlocks
        /// ASCII: one module row per line, two columns per module.
        case ascii
    }

    /// How dark modules are told from light ones.
    public enum Paint: Sendable, Hashable, CaseIterable {
        /// Black modules on a white background by SGR colours: right on any theme.
        case colors
        /// Inverse video, no colours: right on dark themes, inverted on light ones.
        case inverseVideo
        /// No escape sequences: light modules as characters; right on dark themes, inverted on light ones.
        case none
    }

    /// The width of the light border around the symbol, in modules (ISO/IEC 18004 asks for 4).
    public static let quietZone = 4

    /// The largest ``scale``.
    public static let maximumScale = 16

    /// The characters used.
    public var glyphs: Glyphs
    /// How many half-block pixels (or ASCII module cells) each module takes across and down: 1 to
    /// ``maximumScale``.
    public var scale: Int {
        didSet { scale = Self.bounded(scale) }
    }
    /// The way dark is told from light.
    public var paint: Paint

    /// Creates a renderer with a given style.
    ///
    /// - Parameters:
    ///   - glyphs: The characters to draw with.
    ///   - paint: The way dark is told from light.
    ///   - scale: How many pixels each module takes across and down; 1 by default, clamped to 1…``maximumScale``.
    public init(glyphs: Glyphs, paint: Paint, scale: Int = 1) {
        self.glyphs = glyphs
        self.paint = paint
        self.scale = Self.bounded(scale)
    }

    /// Creates the renderer that suits a terminal: half blocks for UTF-8, colours when allowed, inverse video when
    /// escapes are allowed without colour, and plain characters otherwise.
    ///
    /// - Parameters:
    ///   - capabilities: The terminal.
    ///   - scale: How many pixels each module takes across and down; 1 by default.
    public init(capabilities: TerminalCapabilities, scale: Int = 1) {
        self.scale = Self.bounded(scale)
        self.glyphs = capabilities.isUTF8 ? .halfBlocks : .ascii
        if capabilities.allowsColor {
            self.paint = .colors
        } else {
            self.paint = capabilities.allowsEscapes ? .inverseVideo : .none
        }
    }

    /// The columns the drawing of `matrix` takes.
    public func width(for matrix: QRMatrix) -> Int {
        let pixels = (matrix.size + 2 * Self.quietZone) * scale
        return glyphs == .halfBlocks ? pixels : 2 * pixels
    }

    /// The lines the drawing of `matrix` takes.
    public func height(for matrix: QRMatrix) -> Int {
        let pixels = (matrix.size + 2 * Self.quietZone) * scale
        return glyphs == .halfBlocks ? (pixels + 1) / 2 : pixels
    }

    /// Whether the drawing of `matrix` fits in a terminal of `columns` × `rows`.
    public func fits(_ matrix: QRMatrix, columns: Int, rows: Int) -> Bool {
        width(for: matrix) <= columns && height(for: matrix) <= rows
    }

    /// The drawing of `matrix`, one string per line, without line feeds.
    ///
    /// - Parameter matrix: The QR code.
    /// - Returns: ``height(for:)`` lines of ``width(for:)`` columns each.
    public func lines(for matrix: QRMatrix) -> [String] {
        let border = Self.quietZone
        let scale = self.scale
        let pixels = 0..<((matrix.size + 2 * border) * scale)
        // Whether the pixel at `y`, `x` of the scaled drawing (quiet zone included) is a dark module. Past the last
        // row (an odd number of pixel rows) it reads as light: more quiet zone.
        func dark(_ y: Int, _ x: Int) -> Bool {
            matrix[row: y / scale - border, column: x / scale - border]
        }
        // In every style but `colors`, what is drawn in the foreground colour (a glyph, or an inverse blank) is
        // the light part; see the type's documentation.
        let inkIsDark = paint != .none
        switch glyphs {
        case .halfBlocks:
            return stride(from: pixels.lowerBound, to: pixels.upperBound, by: 2).map { top in
                var line = ""
                for column in pixels {
                    let upper = dark(top, column) == inkIsDark
                    let lower = (top + 1 < pixels.upperBound && dark(top + 1, column)) == inkIsDark
                    line += HalfBlock.character(upper: upper, lower: lower)
                }
                return wrapped(line)
            }
        case .ascii:
            return pixels.map { row in
                asciiLine(pixels.map { dark(row, $0) })
            }
        }
    }

    /// The drawing of `matrix` as one string, each line ended by a line feed.
    ///
    /// - Parameter matrix: The QR code.
    /// - Returns: The text to write.
    public func render(_ matrix: QRMatrix) -> String {
        lines(for: matrix).map { $0 + "\n" }.joined()
    }

    /// `scale` within 1…``maximumScale``.
    private static func bounded(_ scale: Int) -> Int {
        min(max(scale, 1), maximumScale)
    }

    /// A half-block line with the paint's escapes around it.
    private func wrapped(_ line: String) -> String {
        switch paint {
        case .colors: ANSI.blackOnWhite + line + ANSI.reset
        case .inverseVideo: ANSI.inverse + line + ANSI.reset
        case .none: line
        }
    }

    /// One module row in ASCII: runs of modules with an escape only where the paint changes.
    private func asciiLine(_ dark: [Bool]) -> String {
        switch paint {
        case .none:
            return dark.map { $0 ? "  " : "##" }.joined()
        case .colors, .inverseVideo:
            var line = ""
            var current: Bool?
            for module in dark {
                if module != current {
                    line +=
                        paint == .colors
                        ? (module ? ANSI.blackBackground : ANSI.whiteBackground)
                        : (module ? ANSI.reset : ANSI.inverse)
                    current = module
                }
                line += "  "
            }
            return line + ANSI.reset
        }
    }
}
