import Testing

@testable import DeviceLoginCLI

@Suite("Discussion blocks")
struct TextBlockTests {
    @Test("paragraphs are joined, indented lines kept, empty lines kept as one space")
    func blocks() {
        let text = """
            Prints the token
            on stdout:
              curl -H "$(device-login token)"
                --fail
            More text.


            Example:
              device-login login
            """
        #expect(
            TextBlock.blocks(text) == [
                .paragraph("Prints the token on stdout:"),
                .verbatim(["curl -H \"$(device-login token)\"", "  --fail"]),
                .paragraph("More text."),
                .space,
                .paragraph("Example:"),
                .verbatim(["device-login login"]),
            ])
    }

    @Test("empty text has no blocks")
    func empty() {
        #expect(TextBlock.blocks("").isEmpty)
        #expect(TextBlock.blocks("\n\n").isEmpty)
    }
}
