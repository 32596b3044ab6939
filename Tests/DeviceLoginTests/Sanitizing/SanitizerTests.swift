import DeviceLogin
import Testing

@Suite("Sanitizer")
struct SanitizerTests {
    /// An attack, and exactly what may reach the terminal.
    struct Attack: Sendable, CustomTestStringConvertible {
        let name: String
        let input: String
        let expected: String
        var testDescription: String { name }
    }

    static let attacks: [Attack] = [
        Attack(name: "CSI colour", input: "AB\u{1B}[31mCD\u{1B}[0m", expected: "ABCD"),
        Attack(name: "CSI cursor up and erase", input: "Code:\u{1B}[1A\u{1B}[2KFAKE", expected: "Code:FAKE"),
        Attack(name: "CSI private mode (hide cursor)", input: "x\u{1B}[?25ly", expected: "xy"),
        Attack(name: "CSI with intermediates", input: "a\u{1B}[1 qb", expected: "ab"),
        Attack(name: "8-bit CSI", input: "a\u{9B}2Jb", expected: "ab"),
        Attack(name: "OSC title, BEL-terminated", input: "a\u{1B}]0;pwned\u{07}b", expected: "ab"),
        Attack(name: "OSC title, ST-terminated", input: "a\u{1B}]2;pwned\u{1B}\\b", expected: "ab"),
        Attack(
            name: "OSC 8 hyperlink",
            input: "\u{1B}]8;;https://evil.example/\u{1B}\\https://auth.example.com\u{1B}]8;;\u{1B}\\",
            expected: "https://auth.example.com"
        ),
        Attack(
            name: "OSC 52 clipboard write", input: "WDJB\u{1B}]52;c;Y3VybCBldmlsIHwgc2g=\u{07}-MJHT",
            expected: "WDJB-MJHT"
        ),
        Attack(name: "8-bit OSC with 8-bit ST", input: "a\u{9D}52;c;eA==\u{9C}b", expected: "ab"),
        Attack(name: "unterminated OSC swallows the rest", input: "safe\u{1B}]52;c;eA==evil", expected: "safe"),
        Attack(name: "DCS string", input: "a\u{1B}P1$r0m\u{1B}\\b", expected: "ab"),
        Attack(name: "8-bit DCS", input: "a\u{90}q#0;2\u{9C}b", expected: "ab"),
        Attack(name: "APC string", input: "a\u{1B}_Gf=100;AAAA\u{1B}\\b", expected: "ab"),
        Attack(name: "PM string", input: "a\u{1B}^private\u{1B}\\b", expected: "ab"),
        Attack(name: "SOS string", input: "a\u{1B}Xstart of string\u{1B}\\b", expected: "ab"),
        Attack(name: "8-bit APC, PM, SOS", input: "a\u{9F}x\u{9C}b\u{9E}y\u{9C}c\u{98}z\u{9C}d", expected: "abcd"),
        Attack(name: "full reset ESC c", input: "a\u{1B}cb", expected: "ab"),
        Attack(name: "charset switch ESC ( 0", input: "a\u{1B}(0b", expected: "ab"),
        Attack(name: "lone ESC at the end", input: "ab\u{1B}", expected: "ab"),
        Attack(name: "ESC before a control", input: "a\u{1B}\u{07}b", expected: "ab"),
        Attack(name: "CAN aborts a CSI", input: "a\u{1B}[31\u{18}b", expected: "ab"),
        Attack(name: "C0 controls", input: "a\u{00}\u{07}\u{08}\u{0E}\u{0F}\u{1A}\u{1C}\u{1F}b", expected: "ab"),
        Attack(name: "backspace overwrite", input: "evil\u{08}\u{08}\u{08}\u{08}good", expected: "evilgood"),
        Attack(
            name: "carriage return overwrite", input: "evil.example\rauth.example.com",
            expected: "evil.example auth.example.com"
        ),
        Attack(name: "newlines in a single-line field", input: "line one\nline two\r\n", expected: "line one line two"),
        Attack(name: "tabs", input: "a\tb", expected: "a b"),
        Attack(name: "DEL", input: "a\u{7F}b", expected: "ab"),
        Attack(name: "C1 controls", input: "a\u{80}\u{85}\u{8D}\u{9A}b", expected: "ab"),
        Attack(
            name: "RLO override", input: "https://example.com/\u{202E}gpj.exe", expected: "https://example.com/gpj.exe"
        ),
        Attack(name: "bidi embeddings and pop", input: "a\u{202A}b\u{202B}c\u{202C}d\u{202D}e", expected: "abcde"),
        Attack(name: "bidi isolates", input: "a\u{2066}b\u{2067}c\u{2068}d\u{2069}e", expected: "abcde"),
        Attack(name: "LRM, RLM, ALM", input: "a\u{200E}b\u{200F}c\u{061C}d", expected: "abcd"),
        Attack(
            name: "zero-width characters", input: "WD\u{200B}JB\u{200C}-\u{200D}MJ\u{2060}HT\u{FEFF}",
            expected: "WDJB-MJHT"
        ),
        Attack(name: "soft hyphen", input: "auth\u{AD}example", expected: "authexample"),
        Attack(
            name: "tag characters (invisible ASCII)", input: "ok\u{E0001}\u{E0069}\u{E0067}\u{E007F}", expected: "ok"
        ),
        Attack(name: "line and paragraph separators", input: "a\u{2028}b\u{2029}c", expected: "a b c"),
        Attack(name: "surrounding spaces", input: "  \n WDJB-MJHT \t", expected: "WDJB-MJHT"),
        Attack(
            name: "Hangul fillers outside Cf", input: "WD\u{3164}JB\u{115F}-\u{1160}MJ\u{FFA0}HT", expected: "WDJB-MJHT"
        ),
        Attack(name: "blank Braille pattern", input: "auth\u{2800}\u{2800}.example", expected: "auth.example"),
        Attack(name: "combining grapheme joiner", input: "WD\u{34F}JB", expected: "WDJB"),
        Attack(name: "variation selectors", input: "ok\u{FE0F}\u{E0100}", expected: "ok"),
        Attack(name: "private use", input: "a\u{E000}b\u{F8FF}c\u{F0000}", expected: "abc"),
        Attack(name: "unassigned", input: "a\u{378}b", expected: "ab"),
        Attack(
            name: "no-break and ideographic spaces become plain spaces",
            input: "\u{A0}a\u{A0}b\u{202F}c\u{3000}d\u{2007}e\u{3000}", expected: "a b c d e"
        ),
    ]

    @Test("Each attack is reduced to harmless text", arguments: attacks)
    func attack(_ attack: Attack) {
        #expect(Array(Sanitizer.sanitize(attack.input).utf8) == Array(attack.expected.utf8))
    }

    @Test("Ordinary text, accents and emoji pass unchanged")
    func ordinaryText() {
        let text = "Connexion refusée — réessayez 🙂 (WDJB-MJHT)"
        #expect(Sanitizer.sanitize(text) == text)
    }

    @Test("Long text is cut to the bound, ellipsis included")
    func length() {
        let long = String(repeating: "A", count: 10_000)
        let cut = Sanitizer.sanitize(long)
        #expect(cut.unicodeScalars.count == 512)
        #expect(cut == String(repeating: "A", count: 511) + "…")
        #expect(Sanitizer.sanitize("ABCDEFGH", maxLength: 5) == "ABCD…")
        #expect(Sanitizer.sanitize("ABCDE", maxLength: 5) == "ABCDE")
        #expect(Sanitizer.sanitize("ABCDEFGH", maxLength: 5, asciiOnly: true) == "AB...")
        #expect(Sanitizer.sanitize("AB  CDEFGH", maxLength: 4) == "AB…")
        #expect(Sanitizer.sanitize("ABC", maxLength: 0) == "…")
    }

    // Found by Scripts/fuzz.sh (target sanitizer): the ASCII ellipsis broke bounds of 1 and 2.
    @Test("A bound below the ASCII ellipsis's length still holds", arguments: [1, 2, 3])
    func asciiEllipsisFitsTheBound(limit: Int) {
        let shown = Sanitizer.sanitize("ABCDEFGH", maxLength: limit, asciiOnly: true)
        #expect(shown.unicodeScalars.count == limit)
        #expect(shown == String(repeating: ".", count: limit))
    }

    @Test("Escape sequences do not count towards the bound")
    func escapesAreFree() {
        let text = String(repeating: "\u{1B}[31m", count: 1000) + "OK"
        #expect(Sanitizer.sanitize(text, maxLength: 2) == "OK")
    }

    @Test("ASCII-only output replaces other characters")
    func asciiOnly() {
        #expect(Sanitizer.sanitize("café — ok", asciiOnly: true) == "caf? ? ok")
    }

    @Test("Stacked combining marks are bounded per base character: 510 on one letter keep 4")
    func stackedMarks() {
        let marks = (0..<510).map { Character(Unicode.Scalar(0x300 + $0 % 0x70)!) }
        let zalgo = "a" + String(marks) + "b"
        let shown = Sanitizer.sanitize(zalgo)
        #expect(Sanitizer.maximumCombiningMarks == 4)
        #expect(shown.unicodeScalars.count == 1 + 4 + 1)
        #expect(shown == "a" + String(marks.prefix(4)) + "b")
        // Each base character, a space included, has its own allowance; a removed character between marks is no base.
        let twice = "x" + String(repeating: "\u{301}", count: 9) + " y" + String(repeating: "\u{302}", count: 9)
        #expect(
            Sanitizer.sanitize(twice)
                == "x" + String(repeating: "\u{301}", count: 4) + " y" + String(repeating: "\u{302}", count: 4))
        let hidden = "e" + String(repeating: "\u{301}\u{200B}", count: 9)
        #expect(Sanitizer.sanitize(hidden) == "e" + String(repeating: "\u{301}", count: 4))
        // Marks of every kind count: enclosing (Me) and spacing (Mc) ones too; ASCII-only output shows 4 "?".
        #expect(Sanitizer.sanitize("1" + String(repeating: "\u{20DD}", count: 8)).unicodeScalars.count == 5)
        #expect(Sanitizer.sanitize("\u{915}" + String(repeating: "\u{93E}", count: 8)).unicodeScalars.count == 5)
        #expect(Sanitizer.sanitize("a" + String(repeating: "\u{301}", count: 9), asciiOnly: true) == "a????")
        // Marks with no base at the start are bounded alike.
        #expect(Sanitizer.sanitize(String(repeating: "\u{301}", count: 9)).unicodeScalars.count == 4)
    }

    /// Text in scripts that legitimately put several marks on one letter, and emoji built of several scalars: the
    /// bound leaves them as the rest of the sanitiser does.
    static let legitimateText: [(String, String)] = [
        // Vietnamese, decomposed (NFD): up to two marks on a vowel ("ệ" is e + dot below + circumflex).
        ("Vietnamese, NFD", "Tie\u{323}\u{302}ng Vie\u{323}\u{302}t, ngu\u{31B}\u{300}o\u{31B}i"),
        ("Vietnamese, NFC", "Tiếng Việt, người"),
        // Devanagari: nukta, vowel signs, virama, candrabindu and anusvara on conjuncts.
        ("Devanagari", "हिन्दी, क़ों, ज़्यादा, पाँच, संस्कृतम्"),
        // Hebrew with points and a cantillation mark: shin, shin dot, dagesh, qamats, accent.
        ("Hebrew, pointed", "\u{5E9}\u{5C1}\u{5BC}\u{5B8}\u{591}\u{5DC}\u{5D5}\u{5B9}\u{5DD}"),
        // Tibetan: subjoined letters stack under a head letter, with a vowel sign.
        ("Tibetan", "\u{F62}\u{F92}\u{FB1}\u{F74}\u{F51}"),
        // Hangul: precomposed syllables and conjoining jamo (letters, not marks).
        ("Hangul", "한국어 \u{1112}\u{1161}\u{11AB}\u{1100}\u{1173}\u{11AF}"),
        // Emoji: skin tones (modifiers, not marks), flags (regional indicator pairs), a keycap (one enclosing mark).
        ("emoji", "👍🏽 👋🏿 🇫🇷🇯🇵 #\u{20E3} 🙂"),
    ]

    @Test("Legitimate stacks of marks pass unchanged", arguments: legitimateText)
    func legitimateMarks(name: String, text: String) {
        #expect(Array(Sanitizer.sanitize(text).unicodeScalars) == Array(text.unicodeScalars), "\(name)")
    }

    @Test("An emoji ZWJ sequence keeps all its pictographs and modifiers; the joiner goes, as every Cf character")
    func emojiZWJSequence() {
        // Woman technologist, medium skin tone; family: man, woman, girl, boy. The joiners (U+200D) are format
        // characters, removed as before the bound on marks; the bound itself takes nothing from them.
        #expect(Sanitizer.sanitize("👩🏽\u{200D}💻") == "👩🏽💻")
        #expect(Sanitizer.sanitize("👨\u{200D}👩\u{200D}👧\u{200D}👦") == "👨👩👧👦")
    }

    @Test("safeURI keeps safe URIs as they are and refuses the rest")
    func safeURI() {
        #expect(Sanitizer.safeURI("https://auth.example.com/device") == "https://auth.example.com/device")
        #expect(Sanitizer.safeURI("javascript:alert(1)") == nil)
    }
}
