import Testing

@testable import DeviceLogin

/// The one rule both of the CLI's paths follow to pick the profile that serves a URL, as a table.
@Suite("ProfileChoice: which saved profile serves a URL")
struct ProfileChoiceTests {
    /// A saved profile of the table: its name and bindings as text, nil for one that cannot be read.
    typealias Saved = (name: String, bindings: [String]?)

    private static func choose(_ url: String, _ saved: [Saved]) throws -> ProfileChoice {
        let profiles = try saved.map { profile in
            (name: profile.name, bindings: try profile.bindings.map { try $0.map { try URLBinding($0) } })
        }
        return ProfileChoice(serving: try URLBinding(url), among: profiles)
    }

    @Test(
        "the best binding wins; none is none; an unreadable profile is skipped, never chosen, never a tie",
        arguments: [
            ("nothing saved", "https://git.example.test/team/app.git", [], "none"),
            ("no binding matches", "https://git.example.test/a", [("work", ["https://other.example.test"])], "none"),
            ("a profile without bindings", "https://git.example.test/a", [("work", [])], "none"),
            ("a whole host (length 0)", "https://git.example.test/a", [("work", ["https://git.example.test"])], "work"),
            (
                "the longest path wins, whatever the order",
                "https://git.example.test/team/app.git",
                [("host", ["https://git.example.test"]), ("team", ["https://git.example.test/team"])], "team"
            ),
            (
                "the longest path wins, listed first",
                "https://git.example.test/team/app.git",
                [("team", ["https://git.example.test/team"]), ("host", ["https://git.example.test"])], "team"
            ),
            (
                "a profile's best binding counts",
                "https://git.example.test/team/app.git",
                [
                    ("many", ["https://git.example.test", "https://git.example.test/team/app.git"]),
                    ("team", ["https://git.example.test/team"]),
                ],
                "many"
            ),
            (
                "another port is another origin",
                "https://git.example.test:8443/a", [("work", ["https://git.example.test"])], "none"
            ),
            (
                "an unreadable profile is skipped",
                "https://git.example.test/a", [("broken", nil), ("work", ["https://git.example.test"])], "work"
            ),
            ("only unreadable profiles: none", "https://git.example.test/a", [("broken", nil)], "none"),
            (
                "an unreadable profile never ties",
                "https://git.example.test/a",
                [("a", nil), ("b", ["https://git.example.test"]), ("c", nil)], "b"
            ),
            (
                "two equally good: a tie, in the order given, by the first one's binding",
                "https://git.example.test/team/x",
                [
                    ("one", ["https://git.example.test/other", "https://git.example.test/team"]),
                    ("host", ["https://git.example.test"]),
                    ("two", ["https://git.example.test/team/"]),
                ],
                "tie one two by https://git.example.test/team"
            ),
            (
                "a tie broken by a longer binding",
                "https://git.example.test/team/x",
                [
                    ("one", ["https://git.example.test/team"]), ("two", ["https://git.example.test/team"]),
                    ("three", ["https://git.example.test/team/x"]),
                ],
                "three"
            ),
        ] as [(String, String, [Saved], String)])
    func choice(what: String, url: String, saved: [Saved], expected: String) throws {
        let choice = try Self.choose(url, saved)
        let described =
            switch choice {
            case .none: "none"
            case .profile(let name): name
            case .tie(let names, let binding): "tie \(names.joined(separator: " ")) by \(binding)"
            }
        #expect(described == expected, "\(what)")
    }
}
