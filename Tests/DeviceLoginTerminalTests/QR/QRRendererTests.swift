import DeviceLoginTerminal
import Testing

@Suite("QRRenderer")
struct QRRendererTests {
    static let styles: [QRRenderer] = QRRenderer.Glyphs.allCases.flatMap { glyphs in
        QRRenderer.Paint.allCases.map { QRRenderer(glyphs: glyphs, paint: $0) }
    }

    /// Reads the modules back from a rendering as a terminal with `theme` shows it, and strips the quiet zone after
    /// checking that it is light and at least 4 modules wide.
    private func readBack(_ renderer: QRRenderer, _ lines: [String], theme: TerminalScreen.Theme) throws -> QRMatrix? {
        let screen = try TerminalScreen(lines: lines, theme: theme)
        let grid = try #require(renderer.glyphs == .halfBlocks ? screen.halfBlockModules() : screen.asciiModules())
        let quiet = QRRenderer.quietZone
        let size = try #require(grid.first?.count) - 2 * quiet
        // Half blocks draw an odd number of module rows on whole lines: one extra light row at the bottom.
        let extraRows = grid.count - (size + 2 * quiet)
        try #require(extraRows == (renderer.glyphs == .halfBlocks ? 1 : 0))
        for (row, values) in grid.enumerated() {
            let inSymbol = row >= quiet && row < quiet + size
            let border = inSymbol ? Array(values.prefix(quiet) + values.suffix(quiet)) : values
            guard border.allSatisfy({ !$0 }) else { return nil }
        }
        return QRMatrix(size: size, modules: grid[quiet..<(quiet + size)].flatMap { $0[quiet..<(quiet + size)] })
    }

    @Test("Size: half blocks take size + 8 columns and half as many lines; ASCII twice the columns")
    func size() throws {
        let matrix = try QRMatrix(encoding: Fixtures.completeURI)
        let half = QRRenderer(glyphs: .halfBlocks, paint: .colors)
        #expect(half.width(for: matrix) == 41 && half.height(for: matrix) == 21)
        #expect(half.lines(for: matrix).count == 21)
        #expect(half.fits(matrix, columns: 41, rows: 21))
        #expect(!half.fits(matrix, columns: 40, rows: 21) && !half.fits(matrix, columns: 41, rows: 20))
        let ascii = QRRenderer(glyphs: .ascii, paint: .none)
        #expect(ascii.width(for: matrix) == 82 && ascii.height(for: matrix) == 41)
        #expect(ascii.lines(for: matrix).allSatisfy { $0.count == 82 })
    }

    @Test("Exact bytes of the first lines in each paint")
    func exactBytes() throws {
        let matrix = try QRMatrix(encoding: "A") // 21 modules: 29 columns with the quiet zone
        func lines(_ glyphs: QRRenderer.Glyphs, _ paint: QRRenderer.Paint) -> [String] {
            QRRenderer(glyphs: glyphs, paint: paint).lines(for: matrix)
        }
        let blank = String(repeating: " ", count: 29)
        #expect(lines(.halfBlocks, .colors)[0] == "\u{1B}[30;47m\(blank)\u{1B}[0m")
        #expect(lines(.halfBlocks, .inverseVideo)[0] == "\u{1B}[7m\(blank)\u{1B}[0m")
        #expect(lines(.halfBlocks, .none)[0] == String(repeating: "█", count: 29))
        // Line 2 holds module rows 0 and 1 of the symbol: the top of the finder patterns.
        #expect(lines(.halfBlocks, .colors)[2].hasPrefix("\u{1B}[30;47m    █▀▀▀▀▀█ "))
        #expect(lines(.halfBlocks, .none)[2].hasPrefix("████ ▄▄▄▄▄ █"))
        #expect(lines(.ascii, .none)[4].hasPrefix("########              ##"))
        #expect(lines(.ascii, .colors)[4].hasPrefix("\u{1B}[47m        \u{1B}[40m              \u{1B}[47m  "))
        #expect(lines(.ascii, .inverseVideo)[4].hasPrefix("\u{1B}[7m        \u{1B}[0m              \u{1B}[7m  "))
        #expect(lines(.ascii, .colors)[4].hasSuffix("\u{1B}[0m"))
    }

    @Test("Round trip: the drawing read back on a dark theme is libqrencode's matrix", arguments: styles)
    func roundTripDarkTheme(renderer: QRRenderer) throws {
        let long = "https://a.example/" + String(repeating: "x", count: 300)
        for text in [Fixtures.completeURI, Fixtures.verificationURI, long] {
            let matrix = try QRMatrix(encoding: text)
            #expect(try readBack(renderer, renderer.lines(for: matrix), theme: .dark) == matrix)
        }
    }

    @Test("On a light theme colours still read right; the no-colour styles come out inverted, as documented")
    func lightTheme() throws {
        let matrix = try QRMatrix(encoding: Fixtures.completeURI)
        for renderer in Self.styles {
            let screen = try TerminalScreen(lines: renderer.lines(for: matrix), theme: .light)
            let grid = try #require(renderer.glyphs == .halfBlocks ? screen.halfBlockModules() : screen.asciiModules())
            let quiet = QRRenderer.quietZone
            let symbol = (quiet..<(quiet + matrix.size)).map { grid[$0][quiet..<(quiet + matrix.size)] }
            let inverted = renderer.paint != .colors
            let expected = (0..<matrix.size).map { row in
                (0..<matrix.size).map { matrix[row: row, column: $0] != inverted }
            }
            #expect(symbol.map(Array.init) == expected, "\(renderer)")
        }
    }

    @Test("zbarimg decodes the matrix drawn at 8 px per module with the quiet zone")
    func zbarMatrix() throws {
        guard ZBar.isAvailable() else { return }
        let mixedCase = "https://auth.example.com/device?user_code=Ab-cD"
        for text in [Fixtures.completeURI, Fixtures.verificationURI, mixedCase] {
            let matrix = try QRMatrix(encoding: text)
            let rows = (0..<matrix.size).map { row in (0..<matrix.size).map { matrix[row: row, column: $0] } }
            let image = GreyImage(modules: rows, scale: 8, quietZone: QRRenderer.quietZone)
            #expect(try ZBar.decode(image) == text)
        }
    }

    @Test("zbarimg finds nothing in a blank picture or in a code with a module row wiped out")
    func zbarRejects() throws {
        guard ZBar.isAvailable() else { return }
        #expect(try ZBar.decode(GreyImage(width: 64, height: 64, fill: 255)) == nil)
        let matrix = try QRMatrix(encoding: Fixtures.completeURI)
        var rows = (0..<matrix.size).map { row in (0..<matrix.size).map { matrix[row: row, column: $0] } }
        for row in 0..<7 { rows[row] = Array(repeating: false, count: matrix.size) }
        #expect(try ZBar.decode(GreyImage(modules: rows, scale: 8, quietZone: 4)) == nil)
    }

    @Test("zbarimg decodes the picture of the rendered text, as a terminal shows it", arguments: styles)
    func zbarRendered(renderer: QRRenderer) throws {
        guard ZBar.isAvailable() else { return }
        let matrix = try QRMatrix(encoding: Fixtures.completeURI)
        let themes: [TerminalScreen.Theme] = renderer.paint == .colors ? [.dark, .light] : [.dark]
        for theme in themes {
            let screen = try TerminalScreen(lines: renderer.lines(for: matrix), theme: theme)
            // A cell 8 px wide and 16 px tall: a half block is an 8 px square module; an ASCII module 16 px.
            #expect(try ZBar.decode(screen.picture(cellWidth: 8, halfHeight: 8)) == Fixtures.completeURI)
        }
    }

    @Test("The capabilities choose the style")
    func styleFromCapabilities() {
        let laptop = QRRenderer(capabilities: Fixtures.laptop)
        #expect(laptop == QRRenderer(glyphs: .halfBlocks, paint: .colors))
        #expect(QRRenderer(capabilities: Fixtures.laptopNoColor).paint == .inverseVideo)
        #expect(QRRenderer(capabilities: Fixtures.pipe) == QRRenderer(glyphs: .halfBlocks, paint: .none))
        #expect(QRRenderer(capabilities: Fixtures.serialConsole) == QRRenderer(glyphs: .ascii, paint: .inverseVideo))
        let asciiColor = TerminalCapabilities(isTerminal: true, isUTF8: false, term: "xterm")
        #expect(QRRenderer(capabilities: asciiColor) == QRRenderer(glyphs: .ascii, paint: .colors))
        let dumb = TerminalCapabilities(isTerminal: true, isUTF8: false, term: "dumb")
        #expect(QRRenderer(capabilities: dumb) == QRRenderer(glyphs: .ascii, paint: .none))
    }

    @Test(
        "Scaled: every module a scale x scale square of pixels, the quiet zone scaled too; zbarimg reads it",
        arguments: styles.filter { $0.paint == .colors }, [2, 3])
    func scaled(style: QRRenderer, scale: Int) throws {
        var renderer = style
        renderer.scale = scale
        let matrix = try QRMatrix(encoding: Fixtures.completeURI)
        let lines = renderer.lines(for: matrix)
        let side = (matrix.size + 2 * QRRenderer.quietZone) * scale
        #expect(renderer.width(for: matrix) == (renderer.glyphs == .halfBlocks ? side : 2 * side))
        #expect(renderer.height(for: matrix) == (renderer.glyphs == .halfBlocks ? (side + 1) / 2 : side))
        #expect(lines.count == renderer.height(for: matrix))
        let screen = try TerminalScreen(lines: lines, theme: .dark)
        let pixels = try #require(renderer.glyphs == .halfBlocks ? screen.halfBlockModules() : screen.asciiModules())
        for y in 0..<side {
            for x in 0..<side {
                let module = matrix[
                    row: y / scale - QRRenderer.quietZone, column: x / scale - QRRenderer.quietZone]
                #expect(pixels[y][x] == module, "pixel \(x), \(y)")
            }
        }
        guard ZBar.isAvailable() else { return }
        #expect(try ZBar.decode(screen.picture(cellWidth: 4, halfHeight: 4)) == Fixtures.completeURI)
    }

    @Test("The scale is kept within 1 and the maximum")
    func scaleBounds() {
        #expect(QRRenderer(glyphs: .halfBlocks, paint: .colors, scale: 0).scale == 1)
        #expect(QRRenderer(capabilities: Fixtures.laptop, scale: 1000).scale == QRRenderer.maximumScale)
        var renderer = QRRenderer(glyphs: .ascii, paint: .none)
        renderer.scale = -5
        #expect(renderer.scale == 1)
    }
}
