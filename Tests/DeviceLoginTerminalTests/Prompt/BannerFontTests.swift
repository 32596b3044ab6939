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
}
