import Testing

@testable import DeviceLogin

/// `drawsNothing`, the one definition of an invisible scalar, and `isUnsafeToShow`, the one rule for unsafe
/// characters that the sanitiser and the JSON writer share.
@Suite("Unicode.Scalar.drawsNothing and isUnsafeToShow")
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

    /// The sanitiser drops the unsafe scalars but the spaces, which it shows as a plain space: the two sets must not
    /// meet, which this checks over every scalar of this Unicode version.
    @Test("no space separator draws nothing")
    func spacesAreDisjoint() {
        let overlap = (0...0x10FFFF).compactMap(Unicode.Scalar.init).filter {
            $0.properties.generalCategory == .spaceSeparator && $0.drawsNothing
        }
        #expect(overlap.isEmpty, "\(overlap.map { String($0.value, radix: 16) })")
    }

    @Test(
        "the one rule for unsafe characters: controls, separators, the tag block, what draws nothing, spaces but U+0020",
        arguments: [
            (0x00, true), (0x09, true), (0x1B, true), (0x1F, true), (0x7F, true), (0x85, true), (0x9F, true),
            (0x2028, true), (0x2029, true), (0xE0000, true), (0xE0041, true), (0xE007F, true), // tag block
            (0x202E, true), (0x200B, true), (0xFEFF, true), (0x3164, true), (0x2800, true), (0xE000, true),
            (0x0378, true), (0xA0, true), (0x2007, true), (0x3000, true), (0x1680, true), // spaces but U+0020
            (0x20, false), (0x41, false), (0x7E, false), (0xA1, false), (0xE9, false), (0x0301, false),
            (0x2801, false), (0x1F600, false), (0x10000, false),
        ] as [(UInt32, Bool)]
    )
    func isUnsafeToShow(value: UInt32, expected: Bool) throws {
        let scalar = try #require(Unicode.Scalar(value))
        #expect(scalar.isUnsafeToShow == expected)
    }

    /// The sanitiser drops or replaces exactly the scalars of the rule: every scalar it changes is one the JSON
    /// writer escapes, and every one the writer escapes is one it changes. Planes 0 and 1, the tag and
    /// variation-selector block of plane 14 whole, and every 97th of the rest (unassigned or private use, but for the
    /// CJK of planes 2 and 3): all of Unicode would take seconds of a core that timing tests running alongside need.
    @Test("the sanitiser changes a scalar exactly when the rule calls it unsafe")
    func sanitiserFollowsTheRule() {
        let values =
            Array(UInt32(0)...0x1FFFF) + Array(UInt32(0xE0000)...0xE0FFF)
            + Array(stride(from: UInt32(0x20000), to: 0xE0000, by: 97))
            + Array(stride(from: UInt32(0xE1000), through: 0x10FFFF, by: 97))
        var disagreements: [String] = []
        for value in values {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let text = "a" + String(Character(scalar)) + " b"
            if (Sanitizer.sanitize(text) != text) != scalar.isUnsafeToShow {
                disagreements.append("U+" + String(value, radix: 16, uppercase: true))
            }
        }
        #expect(disagreements.isEmpty, "the sanitiser and the rule disagree on \(disagreements.prefix(20))")
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
