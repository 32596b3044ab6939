/// How `login` shows the sign-in besides the prompt: the event stream for programs (`--events`), the prompt
/// suppressed (`--quiet`), and the hook that hands the code to another program (`--notify-command`).
struct LoginPresentation: Sendable, Equatable {
    /// Whether stdout carries JSON lines of the flow's events (docs/events.md) instead of the result.
    var events = false
    /// Whether the prompt for people on stderr is left out.
    var quiet = false
    /// The command run through `/bin/sh -c` once the code is ready, with the `authorization` event on its stdin.
    var notifyCommand: String? = nil

    /// The options of `login` that set these.
    static let options: [OptionSpec] = [
        .flag(
            "events",
            "Write the sign-in's events as JSON lines (\"v\": 1) on stdout, for programs that draw the code"
                + " themselves; the last is succeeded or failed, never a token (see docs/events.md)."),
        .flag("quiet", "Do not show the sign-in prompt on stderr (with --events or --notify-command)."),
        .value(
            "notify-command", "CMD",
            "Run CMD (with /bin/sh -c) once the code is ready, with the authorization event as JSON on its stdin;"
                + " it has 10 s, and its failure does not stop the sign-in."),
    ]

    /// Creates the default: the prompt on stderr, the result on stdout, no hook.
    init() {}

    /// Reads the options.
    /// - Throws: ``UsageError`` for `--events` with `--json` (stdout carries one or the other), or an empty
    ///   `--notify-command`.
    init(_ options: ParsedOptions, command: String) throws {
        events = options.flag("events")
        quiet = options.flag("quiet")
        notifyCommand = options.value("notify-command")
        if events, options.flag("json") {
            throw UsageError(
                "--events and --json cannot be used together: with --events, stdout carries only events",
                command: command)
        }
        if let notifyCommand, notifyCommand.allSatisfy(\.isWhitespace) {
            throw UsageError("--notify-command needs a command", command: command)
        }
    }
}
