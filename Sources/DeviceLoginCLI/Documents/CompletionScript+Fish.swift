extension CompletionScript {
    /// The fish script: `complete` lines, one per command and option.
    static func fish(_ commands: [CommandSpec]) -> String {
        var lines = header(.fish)
        lines += [
            "# Install: device-login completion fish > ~/.config/fish/completions/device-login.fish",
            "",
            "function __device_login_profiles",
            "    set -l dir $HOME/.local/state/device-login",
            "    if test -n \"$DEVICE_LOGIN_HOME\"",
            "        set dir $DEVICE_LOGIN_HOME",
            "    else if string match -q -- '/*' \"$XDG_STATE_HOME\"",
            "        set dir $XDG_STATE_HOME/device-login",
            "    end",
            "    for file in $dir/*.json",
            "        string replace -r '\\.json$' '' -- (path basename -- $file)",
            "    end",
            "end",
            "",
            "complete -c device-login -f",
        ]
        let first = "-n __fish_use_subcommand"
        for command in commands {
            lines.append(
                "complete -c device-login \(first) -a \(command.name) -d \(fishQuoted(brief(command.summary)))")
        }
        for (word, help) in toolWords {
            lines.append("complete -c device-login \(first) -a \(word) -d \(fishQuoted(brief(help)))")
        }
        for (option, help) in HelpText.toolOptions {
            lines.append("complete -c device-login \(first) -l \(option.dropFirst(2)) -d \(fishQuoted(brief(help)))")
        }
        for command in commands {
            let seen = "-n " + fishQuoted("__fish_seen_subcommand_from \(command.name)")
            lines.append("")
            for option in command.options {
                var line =
                    "complete -c device-login \(seen) -l \(option.name)" + (option.shortName.map { " -s \($0)" } ?? "")
                switch option.valueKind {
                case .none: break
                case .choice(let words): line += " -x -a " + fishQuoted(words.joined(separator: " "))
                case .file: line += " -r -F"
                case .profile: line += " -x -a '(__device_login_profiles)'"
                case .text: line += " -x"
                }
                lines.append(line + " -d " + fishQuoted(brief(option.help)))
            }
            if !command.positionalWords.isEmpty {
                lines.append(
                    "complete -c device-login \(seen) -a " + fishQuoted(command.positionalWords.joined(separator: " ")))
            }
        }
        let help = "-n " + fishQuoted("__fish_seen_subcommand_from help")
        lines += [
            "",
            "complete -c device-login \(help) -l man -d 'Print the man page device-login(1)'",
            "complete -c device-login \(help) -a " + fishQuoted(helpWords(commands).joined(separator: " ")),
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    /// `text` in fish's single quotes: `\` and `'` escaped with a backslash.
    static func fishQuoted(_ text: String) -> String {
        var quoted = "'"
        for character in text {
            if character == "\\" || character == "'" { quoted.append("\\") }
            quoted.append(character)
        }
        return quoted + "'"
    }
}
