/// A command line that cannot be understood: one line for the user, plus the command whose usage helps.
struct UsageError: Error, Equatable, Sendable {
    /// What is wrong, in one line.
    let message: String
    /// The command whose `--help` to point at, or nil for the tool.
    let command: String?

    init(_ message: String, command: String? = nil) {
        self.message = message
        self.command = command
    }
}
