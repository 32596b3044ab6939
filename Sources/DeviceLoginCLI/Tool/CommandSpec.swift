/// One subcommand: its name, help, option table and what it does.
package struct CommandSpec: Sendable {
    /// The subcommand's name: `login`.
    let name: String
    /// One line for the command list.
    let summary: String
    /// The positional arguments in the usage line, e.g. `[COMMAND]`; empty for none.
    let positionalSynopsis: String
    /// How many positional arguments are allowed.
    let maximumPositionals: Int
    /// The option table.
    let options: [OptionSpec]
    /// Paragraphs after the options in `--help`.
    let discussion: String
    /// Runs the command.
    let run: @Sendable (ParsedOptions, CLIContext) async throws -> ExitCode

    /// `--verbose`, which every command takes: ``CLI`` turns on ``CLIContext/tracing()`` for it.
    static let verbose = OptionSpec.flag(
        "verbose", "Trace the profile file and every HTTP exchange on stderr, with tokens, codes and secrets redacted."
    )

    init(
        name: String,
        summary: String,
        positionalSynopsis: String = "",
        maximumPositionals: Int = 0,
        options: [OptionSpec],
        discussion: String = "",
        run: @escaping @Sendable (ParsedOptions, CLIContext) async throws -> ExitCode
    ) {
        self.name = name
        self.summary = summary
        self.positionalSynopsis = positionalSynopsis
        self.maximumPositionals = maximumPositionals
        self.options = options + [Self.verbose, .flag("help", "Show this help.")]
        self.discussion = discussion
        self.run = run
    }
}
