/// One subcommand: its name, help, option table, exit codes and what it does.
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
    /// Paragraphs after the options in `--help`: hand-wrapped lines, re-flowed to the width of the help; a line
    /// that starts with a space (an example) is kept as it is.
    let discussion: String
    /// The exit codes the command can return, in order: ``ExitCode/success`` and ``ExitCode/usage`` always, then
    /// those given.
    let exitCodes: [ExitCode]
    /// What an exit code means for this command, where that differs from ``ExitCode/meaning``.
    let exitMeanings: [ExitCode: String]
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
        exitCodes: [ExitCode],
        exitMeanings: [ExitCode: String] = [:],
        run: @escaping @Sendable (ParsedOptions, CLIContext) async throws -> ExitCode
    ) {
        self.name = name
        self.summary = summary
        self.positionalSynopsis = positionalSynopsis
        self.maximumPositionals = maximumPositionals
        self.options = options + [Self.verbose, .flag("help", "Show this help.")]
        self.discussion = discussion
        var codes = [ExitCode.success, .usage]
        for code in exitCodes where !codes.contains(code) { codes.append(code) }
        self.exitCodes = codes.sorted { $0.rawValue < $1.rawValue }
        self.exitMeanings = exitMeanings
        self.run = run
    }

    /// The words the positional argument is one of, read from ``positionalSynopsis`` when it lists them
    /// (`get|store|erase`); empty otherwise.
    var positionalWords: [String] {
        let words = positionalSynopsis.split(separator: "|").map(String.init)
        let plain = words.count > 1 && words.allSatisfy { $0.allSatisfy { $0.isASCII && $0.isLowercase } }
        return plain ? words : []
    }

    /// What exit code `code` means for this command.
    func meaning(of code: ExitCode) -> String {
        exitMeanings[code] ?? code.meaning
    }
}
