import DeviceLogin

/// The help texts, built from the command tables so they never drift from what is parsed.
enum HelpText {
    /// `device-login --help`.
    static func tool(_ commands: [CommandSpec]) -> String {
        var lines = [
            "device-login \(DeviceLoginVersion.string) — sign in on machines without a browser (OAuth 2.0 device flow,"
                + " RFC 8628)",
            "",
            "USAGE: device-login <command> [options]",
            "",
            "COMMANDS:",
        ]
        let width = (commands.map(\.name.count).max() ?? 0) + 2
        for command in commands {
            lines.append("  " + command.name.padding(to: width) + command.summary)
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
        let width = (command.options.map(\.synopsis.count).max() ?? 0) + 2
        for option in command.options {
            var line = "  " + option.synopsis.padding(to: width) + option.help
            if option.name != "help" { line += " [\(option.environmentVariable)]" }
            lines.append(line)
        }
        if !command.discussion.isEmpty {
            lines += ["", command.discussion]
        }
        lines += [""] + exitCodes()
        return lines.joined(separator: "\n") + "\n"
    }

    /// The one-line usage of a command.
    static func usage(_ command: CommandSpec) -> String {
        var parts = ["device-login", command.name]
        if !command.positionalSynopsis.isEmpty { parts.append(command.positionalSynopsis) }
        parts.append("[options]")
        return parts.joined(separator: " ")
    }

    private static func exitCodes() -> [String] {
        ["EXIT CODES:"] + ExitCode.allCases.map { code in
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
