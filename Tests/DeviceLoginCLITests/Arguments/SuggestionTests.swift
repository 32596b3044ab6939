import Testing

@testable import DeviceLoginCLI

@Suite("Did you mean")
struct SuggestionTests {
    private let options = ["--issuer", "--client-id", "--client-secret", "--scope", "--qr", "--json", "--profile"]

    @Test(
        "a near word is suggested",
        arguments: [
            ("--isuer", "--issuer"), ("--isseur", "--issuer"), ("--issuer2", "--issuer"), ("--clientid", "--client-id"),
            ("--client_id", "--client-id"), ("--scopes", "--scope"), ("-profile", "--profile"), ("--jsno", "--json"),
        ])
    func near(typed: String, expected: String) {
        #expect(Suggestion.closest(to: typed, among: options) == expected)
    }

    @Test(
        "a far word, an exact one, an empty or an overlong one is not",
        arguments: ["--frobnicate", "--issuer", "", "--x", "--nope"])
    func far(typed: String) {
        #expect(Suggestion.closest(to: typed, among: options) == nil)
        #expect(
            Suggestion.closest(to: String(repeating: "a", count: 65), among: [String(repeating: "a", count: 64)]) == nil
        )
    }

    @Test("edit distance: insertions, deletions, substitutions, neighbours swapped")
    func distance() {
        func d(_ a: String, _ b: String) -> Int { Suggestion.distance(Array(a), Array(b)) }
        #expect(d("", "abc") == 3)
        #expect(d("abc", "") == 3)
        #expect(d("kitten", "sitting") == 3)
        #expect(d("issuer", "isseur") == 1)
        #expect(d("login", "login") == 0)
        #expect(d("logn", "login") == 1)
    }

    @Test("the message gains the suggestion only when there is one")
    func message() {
        #expect(
            Suggestion.message("unknown option '--isuer'", for: "--isuer", among: options)
                == "unknown option '--isuer'; did you mean '--issuer'?")
        #expect(Suggestion.message("unknown", for: "--zzzzzzzz", among: options) == "unknown")
    }
}
