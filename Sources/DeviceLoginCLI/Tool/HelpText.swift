import DeviceLogin

/// The help texts, built from the command tables so they never drift from what is parsed.
enum HelpText {
    /// `device-login --help`.
    static func tool(_ commands: [CommandSpec]) -> String {
        var lines = [
            "device-login \(DeviceLoginVersion.string) — sign in on machines without a browser"
                + " (OAuth 2.0 device flow, RFC 8628)",
            "",
            "USAGE: device-login <command> [options]",
            "",
            "COMMANDS:",
        ]
        let width = (commands.map(\.name.count).max() ?? 0) + 2
        for command in commands {
            // A summary longer than the line goes on below, under its first line.
            let wrapped = wrap(command.summary, width: lineWidth - 2 - width)
            lines.append("  " + command.name.padding(to: width) + (wrapped.first ?? ""))
            lines += wrapped.dropFirst().map { String(repeating: " ", count: 2 + width) + $0 }
        }
        lines += [
            "",
            "OPTIONS:",
            "  --help      Show help (also: device-login <command> --help, device-login help <command>).",
            "  --version   Show the version.",
            "",
            "Every option can also come from the environment: --client-id is DEVICE_LOGIN_CLIENT_ID, and so on.",
            "The command line wins over the environment.",
            "",
        ]
        lines += exitCodes()
        lines += ["", "Start here: device-login demo"]
        return lines.joined(separator: "\n") + "\n"
    }

    /// `device-login <command> --help`.
    static func command(_ command: CommandSpec) -> String {
        var lines = [command.summary, "", "USAGE: " + usage(command), "", "OPTIONS:"]
        let width = min((command.options.map(\.synopsis.count).max() ?? 0) + 2, maximumSynopsisWidth)
        for option in command.options {
            var help = option.help
            if option.name != "help" { help += " [$\(option.environmentVariable)]" }
            let wrapped = wrap(help, width: lineWidth - 2 - width)
            if option.synopsis.count + 2 > width {
                lines.append("  " + option.synopsis)
                lines += wrapped.map { String(repeating: " ", count: 2 + width) + $0 }
            } else {
                lines.append("  " + option.synopsis.padding(to: width) + (wrapped.first ?? ""))
                lines += wrapped.dropFirst().map { String(repeating: " ", count: 2 + width) + $0 }
            }
        }
        if !command.discussion.isEmpty {
            lines += ["", command.discussion]
        }
        lines += [""] + exitCodes()
        return lines.joined(separator: "\n") + "\n"
    }

    /// The width help text is wrapped to.
    static let lineWidth = 100
    /// The widest option column; longer synopses get a line of their own.
    static let maximumSynopsisWidth = 26

    /// Splits `text` into lines of at most `width` characters at spaces (a longer word stands alone).
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ") {
            if current.isEmpty {
                current = String(word)
            } else if current.count + 1 + word.count <= width {
                current += " " + word
            } else {
                lines.append(current)
                current = String(word)
            }
        }
        if !current.isEmpty { lines.append(current) }
        return lines
    }

    /// The one-line usage of a command.
    static func usage(_ command: CommandSpec) -> String {
        var parts = ["device-login", command.name]
        // Words after `--` (exec's command) come after the options, as they must be given.
        let afterOptions = command.positionalSynopsis.hasPrefix("-- ")
        if !command.positionalSynopsis.isEmpty, !afterOptions { parts.append(command.positionalSynopsis) }
        parts.append("[options]")
        if afterOptions { parts.append(command.positionalSynopsis) }
        return parts.joined(separator: " ")
    }

    private static func exitCodes() -> [String] {
        ["EXIT CODES:"]
            + ExitCode.allCases.map { code in
                "  " + String(code.rawValue).padding(to: 5) + code.meaning
            }
    }
}

extension String {
    /// The string padded with spaces to `width` characters (never cut).
    func padding(to width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
