import DeviceLoginTerminal

/// Text on its way to the terminal: everything that may hold a server's words passes through here.
enum TerminalText {
    /// The text with controls, escape sequences and bidi overrides removed, bounded in length.
    static func clean(_ text: String) -> String {
        Sanitizer.sanitize(text, maxLength: 1024)
    }
}

extension TextSink: TerminalOutput {}
