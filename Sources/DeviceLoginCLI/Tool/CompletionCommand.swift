/// `device-login completion bash|zsh|fish`: prints the shell's completion script (``CompletionScript``) on stdout.
enum CompletionCommand {
    static let spec = CommandSpec(
        name: "completion",
        summary: "Print the completion script for bash, zsh or fish.",
        positionalSynopsis: CompletionScript.Shell.allCases.map(\.rawValue).joined(separator: "|"),
        maximumPositionals: 1,
        options: [],
        discussion: """
            Prints only the script on stdout, made from the same option tables as --help. Install it where
            the shell looks, once (again after an upgrade):
              device-login completion bash > ~/.local/share/bash-completion/completions/device-login
              device-login completion zsh > ~/.zfunc/_device-login   # ~/.zfunc in $fpath
              device-login completion fish > ~/.config/fish/completions/device-login.fish
            or load it into the running shell: source <(device-login completion bash). bash finds the file
            only with the bash-completion package installed. The man page is `device-login help --man`.
            """,
        exitCodes: [.ioError],
        run: run
    )

    @Sendable static func run(_ options: ParsedOptions, _ context: CLIContext) async throws -> ExitCode {
        let names = CompletionScript.Shell.allCases.map(\.rawValue)
        guard let word = options.positionals.first else {
            throw UsageError("completion needs a shell: \(names.joined(separator: ", "))", command: "completion")
        }
        guard let shell = CompletionScript.Shell(rawValue: word) else {
            let message = Suggestion.message(
                "no completion for '\(word)': give \(names.joined(separator: ", "))", for: word, among: names)
            throw UsageError(message, command: "completion")
        }
        try context.stdout.write(CompletionScript.render(shell, commands: CLI.commands))
        return .success
    }
}
