import DeviceLogin

/// The `device-login` tool: finds the command, parses its options, runs it, and maps every outcome to an exit code.
package enum CLI {
    /// The commands of `device-login`, in the order `--help` lists them; its `demo` hands over to
    /// `device-login-demo`.
    package static let commands = commandTable(demo: DemoCommand.handOver)

    /// The commands with the given `demo`: ``DemoCommand/handOver`` in `device-login`, one that runs the server
    /// (``DemoCommand/serving(_:)``) in `device-login-demo`.
    package static func commandTable(demo: CommandSpec) -> [CommandSpec] {
        [
            LoginCommand.spec, TokenCommand.spec, StatusCommand.spec, UserinfoCommand.spec, LogoutCommand.spec,
            StoreCommand.spec,
            ProvidersCommand.spec, GitCredentialCommand.spec, KubectlCredentialCommand.spec,
            DockerCredentialCommand.spec,
            CurlConfigCommand.spec, ExecCommand.spec, DPoPProofCommand.spec, AgentCommand.spec, SSHCommand.spec,
            PAMCheckCommand.spec,
            demo,
            CompletionCommand.spec,
        ]
    }

    /// Commands that run but are not listed (help, completions, man page): those only other programs call.
    static let unlistedCommands = [PAMHelperCommand.spec]

    /// The program name under which the binary runs as Docker's credential helper: `docker-credential-` and the
    /// helper's name, as Docker looks it up from `credsStore`/`credHelpers`.
    static let dockerHelperProgram = "docker-credential-device-login"

    /// The arguments to run with: those given, after the command that `program` (argv[0]) stands for — a link
    /// named ``dockerHelperProgram`` runs `docker-credential`.
    package static func arguments(program: String?, _ arguments: [String]) -> [String] {
        let name = program.map { path in path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
        }
        return name == dockerHelperProgram ? ["docker-credential"] + arguments : arguments
    }

    /// What the words ask for, decided before anything starts: an answer that is all the process does (help, the
    /// version, a usage error), written already, or a command to run with the words after its name.
    enum Start {
        /// Answered; the process ends with this code.
        case answered(ExitCode)
        /// The command to run, and the words after its name.
        case command(CommandSpec, [String])
    }

    /// Answers help, the version and a usage error at once, on the calling thread: `CLIProcess` asks before it
    /// starts the signal handling and the executor's thread, which `--help` does not need (two threads made and
    /// joined were a fifth of its start-up). Otherwise names the command to run.
    /// - Parameters:
    ///   - arguments: The words after the program's name.
    ///   - context: What the answer is written to.
    ///   - commands: The command table.
    static func start(_ arguments: [String], context: CLIContext, commands: [CommandSpec]) -> Start {
        let width = HelpText.lineWidth(columns: context.stdoutColumns)
        guard let first = arguments.first else {
            let stderrWidth = context.terminal.isTerminal ? context.terminal.columns : nil
            context.stderr.write(HelpText.tool(commands, lineWidth: HelpText.lineWidth(columns: stderrWidth)))
            return .answered(.usage)
        }
        switch first {
        case "--help", "-h", "help":
            return .answered(help(Array(arguments.dropFirst()), context: context, commands: commands))
        case "--version", "-V", "version":
            return .answered(emit("device-login \(DeviceLoginVersion.string)\n", context: context))
        default:
            break
        }
        guard let command = (commands + unlistedCommands).first(where: { $0.name == first }) else {
            let message = first.hasPrefix("-") ? "unknown option '\(first)'" : "unknown command '\(first)'"
            let candidates = first.hasPrefix("-") ? topLevelOptions : commands.map(\.name) + ["help", "version"]
            return .answered(
                usageError(
                    UsageError(Suggestion.message(message, for: first, among: candidates)), context: context,
                    commands: commands))
        }
        let rest = Array(arguments.dropFirst())
        // Only before `--`: after it come words that are not ours (`exec -- grep --help` runs grep).
        let ownWords = rest.prefix { $0 != "--" }
        if ownWords.contains("--help") || ownWords.contains("-h") {
            return .answered(emit(HelpText.command(command, lineWidth: width), context: context))
        }
        return .command(command, rest)
    }

    /// Runs the tool with `arguments` (without the program name): ``start(_:context:commands:)``, then the command.
    /// - Parameters:
    ///   - arguments: The words after the program's name.
    ///   - context: What the commands may touch: the environment, the standard streams, the transport, the clock.
    ///   - commands: The command table (default ``commands``).
    /// - Returns: The exit code.
    static func run(
        _ arguments: [String], context: CLIContext, commands: [CommandSpec] = CLI.commands
    ) async -> ExitCode {
        switch start(arguments, context: context, commands: commands) {
        case .answered(let code): return code
        case .command(let command, let rest): return await run(command, rest, context: context, commands: commands)
        }
    }

    /// Runs `command` with the words after its name.
    /// - Parameters:
    ///   - command: The command, from ``start(_:context:commands:)``.
    ///   - rest: The words after its name.
    ///   - context: What the command may touch.
    ///   - commands: The command table, for a usage error's help.
    /// - Returns: The exit code.
    static func run(
        _ command: CommandSpec, _ rest: [String], context: CLIContext, commands: [CommandSpec]
    ) async -> ExitCode {
        // The fast lane's plan, when it prepared one for this command: its options are these words, parsed.
        var context = context
        if context.plan?.command != command.name { context.plan = nil }
        do {
            let options: ParsedOptions
            if let planned = context.plan?.options {
                options = try planned.get()
            } else {
                options = try ArgumentParser.parse(
                    rest, options: command.options, command: command.name, environment: context.environment,
                    maximumPositionals: command.maximumPositionals
                )
            }
            try StartupChecks.check(options)
            let context = options.flag("verbose") ? context.tracing() : context
            // With an agent named, a helper answers through it on this path too: the lane's one decision.
            if AgentLane.helper(command.name) != nil, let socket = AgentSocket.named(in: { context.environment[$0] }) {
                return try await AgentLane.run(command, options: options, socket: socket, context: context)
            }
            return try await command.run(options, context)
        } catch let error as UsageError {
            return usageError(error, context: context, commands: commands)
        } catch let error as SignInNeeded {
            context.stderr.line(TerminalText.clean(error.line))
            return .notSignedIn
        } catch let error as DeviceLoginError {
            context.report(error)
            return ExitCode(error)
        } catch let error as ResultSink.WriteError {
            return unwritten(error, context: context)
        } catch is CancellationError {
            context.stderr.line("device-login: cancelled")
            return .cancelled
        } catch {
            context.stderr.line("device-login: " + TerminalText.clean(String(describing: error)))
            return .failure
        }
    }

    /// The options the tool takes before a command.
    static let topLevelOptions = ["--help", "-h", "--version", "-V"]

    /// `device-login help [COMMAND | --man]` (`help` given as `--help` or `-h` too): the tool's help, a command's,
    /// or the man page, on stdout.
    private static func help(_ words: [String], context: CLIContext, commands: [CommandSpec]) -> ExitCode {
        let width = HelpText.lineWidth(columns: context.stdoutColumns)
        guard let word = words.first else { return emit(HelpText.tool(commands, lineWidth: width), context: context) }
        if word == "--man" { return emit(ManPage.render(commands), context: context) }
        guard let command = commands.first(where: { $0.name == word }) else {
            let message = Suggestion.message(
                "unknown command '\(word)'", for: word, among: commands.map(\.name) + ["--man"])
            return usageError(UsageError(message), context: context, commands: commands)
        }
        return emit(HelpText.command(command, lineWidth: width), context: context)
    }

    /// Writes a result that is all the command does (help, the version).
    /// - Returns: ``ExitCode/success``, or ``ExitCode/ioError`` when it could not be written.
    private static func emit(_ text: String, context: CLIContext) -> ExitCode {
        do throws(ResultSink.WriteError) {
            try context.stdout.write(text)
            return .success
        } catch {
            return unwritten(error, context: context)
        }
    }

    /// Says on stderr that the result could not be written and returns ``ExitCode/ioError``; for a reader that
    /// closed the pipe early (``ResultSink/WriteError/readerIsGone``) says nothing and returns
    /// ``ExitCode/readerGone``.
    static func unwritten(_ error: ResultSink.WriteError, context: CLIContext) -> ExitCode {
        ExitCode.unwritten(error, stderr: context.stderr)
    }

    /// Prints a one-line usage error and where to find help; returns ``ExitCode/usage``.
    static func usageError(
        _ error: UsageError, context: CLIContext, commands: [CommandSpec] = CLI.commands
    ) -> ExitCode {
        context.stderr.line("device-login: " + TerminalText.clean(error.message))
        if let name = error.command, let command = commands.first(where: { $0.name == name }) {
            context.stderr.line("usage: " + HelpText.usage(command) + "  (see: device-login \(name) --help)")
        } else {
            context.stderr.line("usage: device-login <command> [options]  (see: device-login --help)")
        }
        return .usage
    }
}
