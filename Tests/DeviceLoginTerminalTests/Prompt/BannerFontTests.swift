import Testing

@testable import DeviceLoginTerminal

@Suite("BannerFont")
struct BannerFontTests {
    @Test("A user code in block letters, grouped as given")
    func code() throws {
        let lines = try #require(BannerFont.lines(for: "WDJB-MJHT"))
        #expect(
            lines == [
                "█   █ █▀▀▀▄   ▀█▀ █▀▀▀▄       █▄ ▄█   ▀█▀ █   █ ▀▀█▀▀",
                "█ ▄ █ █   █    █  █▄▄▄▀ ▄▄▄▄▄ █ █ █    █  █▄▄▄█   █  ",
                "█ █ █ █   █ ▄  █  █   █       █   █ ▄  █  █   █   █  ",
                " ▀ ▀  ▀▀▀▀   ▀▀   ▀▀▀▀        ▀   ▀  ▀▀   ▀   ▀   ▀  ",
            ])
        #expect(lines.allSatisfy { $0.count == BannerFont.width(forCount: 9) })
        #expect(BannerFont.width(forCount: 9) == 53)
    }

    @Test("Zero is slashed, so it differs from the letter O")
    func zeroAndO() throws {
        let lines = try #require(BannerFont.lines(for: "0O"))
        #expect(
            lines == [
                "▄▀▀▀▄ ▄▀▀▀▄",
                "█ ▄▀█ █   █",
                "█▀  █ █   █",
                " ▀▀▀   ▀▀▀ ",
            ])
    }

    @Test("Every letter, digit, dash and space is drawn four lines tall")
    func coverage() throws {
        let all = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789- "
        let lines = try #require(BannerFont.lines(for: all))
        #expect(lines.count == BannerFont.lineCount)
        #expect(lines.allSatisfy { $0.count == BannerFont.width(forCount: all.count) })
        // No two characters look the same.
        let glyphs = all.map { BannerFont.lines(for: String($0)) }
        #expect(Set(glyphs.compactMap { $0 }).count == all.count)
    }

    @Test("Text the font lacks gets no banner", arguments: ["wdjb", "ÄB", "A_B", ""])
    func missing(text: String) {
        #expect(BannerFont.lines(for: text) == nil)
    }

    @Test(
        "Scaled: each pixel n columns wide and n half lines tall; scale 1 is the prompt's banner",
        arguments: [1, 2, 3, 5])
    func scaled(scale: Int) throws {
        let base = try #require(BannerFont.lines(for: "W-0"))
        let lines = try #require(BannerFont.lines(for: "W-0", scale: scale))
        #expect(lines.count == BannerFont.lineCount(scale: scale))
        #expect(lines.allSatisfy { $0.count == BannerFont.width(forCount: 3, scale: scale) })
        if scale == 1 { #expect(lines == base) }
        // Read the pixels back: every scale × scale square is one pixel of the font.
        func pixels(_ lines: [String]) -> [[Bool]] {
            lines.flatMap { line in
                [line.map { $0 == "█" || $0 == "▀" }, line.map { $0 == "█" || $0 == "▄" }]
            }
        }
        let small = pixels(base)
        let large = pixels(lines)
        for y in 0..<(BannerFont.height * scale) {
            for x in 0..<BannerFont.width(forCount: 3, scale: scale) {
                #expect(large[y][x] == small[y / scale][x / scale], "pixel \(x), \(y)")
            }
        }
    }

    @Test("A scale out of range gets no banner", arguments: [0, -1, BannerFont.maximumScale + 1])
    func badScale(scale: Int) {
        #expect(BannerFont.lines(for: "AB", scale: scale) == nil)
    }
}
