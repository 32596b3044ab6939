import Testing

@testable import DeviceLogin

/// `drawsNothing`: the one definition of an invisible scalar, shared by the user-code check and the sanitiser.
@Suite("Unicode.Scalar.drawsNothing")
struct UnicodeScalarVisibilityTests {
    @Test(
        "controls, format, private-use, unassigned, default-ignorable, U+2800 draw nothing; letters, spaces do not",
        arguments: [
            (0x00, true), (0x1B, true), (0x7F, true), (0x9B, true), // C0, ESC, DEL, C1 CSI
            (0x00AD, true), (0x200B, true), (0x202E, true), (0xFEFF, true), (0xE0041, true), // format (Cf)
            (0xE000, true), (0x10FFFD, true), // private use
            (0x0378, true), // unassigned
            (0x115F, true), (0x3164, true), (0xFFA0, true), (0x034F, true), (0xFE0F, true), // default-ignorable
            (0x2800, true), // the blank Braille pattern
            (0x41, false), (0xE9, false), (0x0301, false), (0x2801, false), (0x1F600, false),
            (0x20, false), (0xA0, false), (0x3000, false), (0x2028, false), (0x2029, false), // spaces, separators
        ] as [(UInt32, Bool)]
    )
    func drawsNothing(value: UInt32, expected: Bool) throws {
        let scalar = try #require(Unicode.Scalar(value))
        #expect(scalar.drawsNothing == expected)
    }

    /// The sanitiser checks `drawsNothing` before it turns a space separator into a plain space; that order is free
    /// only while no space separator is in the set, which this checks over every scalar of this Unicode version.
    @Test("no space separator draws nothing")
    func spacesAreDisjoint() {
        let overlap = (0...0x10FFFF).compactMap(Unicode.Scalar.init).filter {
            $0.properties.generalCategory == .spaceSeparator && $0.drawsNothing
        }
        #expect(overlap.isEmpty, "\(overlap.map { String($0.value, radix: 16) })")
    }

    @Test(
        "a user code is visible when one scalar draws something and is not a space",
        arguments: [
            ("WDJB-MJHT", true), ("\u{3164}\u{3164}A", true), ("", false), ("   ", false), ("\u{2800}\u{2800}", false),
            ("\u{200B}\u{FE0F}", false), ("\u{3000}\u{2028}", false), ("\u{1B}[2J", true),
        ]
    )
    func hasVisibleCharacter(text: String, expected: Bool) {
        #expect(text.hasVisibleCharacter == expected)
    }
}
