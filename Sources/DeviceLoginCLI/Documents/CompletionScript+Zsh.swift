extension CompletionScript {
    /// The zsh script: a `#compdef` function for the completion system, through `_arguments`.
    static func zsh(_ commands: [CommandSpec]) -> String {
        var lines = ["#compdef device-login"] + header(.zsh)
        lines += [
            "# Install: device-login completion zsh > ~/.zfunc/_device-login, with ~/.zfunc in $fpath before",
            "# compinit runs (in ~/.zshrc: fpath=(~/.zfunc $fpath); autoload -Uz compinit; compinit).",
            "",
            "_device_login_profiles() {",
            "    local dir",
        ]
        lines += profileDirectoryLines
        lines += [
            "    local -a names",
            "    names=( \"$dir\"/*.json(N:t:r) )",
            "    compadd -a names",
            "}",
            "",
            "_device-login() {",
            "    local -a commands",
            "    commands=(",
        ]
        for command in commands {
            lines.append("        " + zshQuoted(command.name + ":" + brief(command.summary)))
        }
        for (word, help) in toolWords {
            lines.append("        " + zshQuoted(word + ":" + brief(help)))
        }
        lines += [
            "    )",
            "    if (( CURRENT == 2 )); then",
            "        if [[ $PREFIX == -* ]]; then",
            "            compadd -- \(HelpText.toolOptions.map(\.0).joined(separator: " "))",
            "        else",
            "            _describe -t commands 'device-login command' commands",
            "        fi",
            "        return",
            "    fi",
            "    local command=${words[2]}",
            "    shift words",
            "    (( CURRENT-- ))",
            "    case $command in",
        ]
        for command in commands {
            lines.append("        \(command.name))")
            var specs = command.options.flatMap(zshSpecs)
            if !command.positionalWords.isEmpty {
                specs.append(
                    zshQuoted("1:\(command.positionalSynopsis):(\(command.positionalWords.joined(separator: " ")))"))
            } else if command.positionalSynopsis.hasPrefix("-- ") {
                // After `--`: the command, completed as zsh completes it at the prompt (git's subcommands too).
                specs.append(zshQuoted("*:: :{ [[ $words[1] == -- ]] && { shift words; (( CURRENT-- )) }; _normal }"))
            }
            lines.append("            _arguments -S \\")
            lines += specs.enumerated().map { index, spec in
                "                " + spec + (index == specs.count - 1 ? "" : " \\")
            }
            lines.append("            ;;")
        }
        lines += [
            "        help)",
            "            _arguments '--man[Print the man page device-login(1)]' "
                + zshQuoted("1:command:(\(helpWords(commands).joined(separator: " ")))"),
            "            ;;",
            "    esac",
            "}",
            "",
            "# Autoloaded from $fpath, this file is the function: complete. Sourced (source <(device-login completion",
            "# zsh), after compinit): register it.",
            "if [[ ${funcstack[1]-} == _device-login ]]; then",
            "    _device-login \"$@\"",
            "else",
            "    compdef _device-login device-login",
            "fi",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    /// One option's `_arguments` specs: `--name[help]` for a flag, `--name=[help]:VALUE:action` for an option with
    /// a value (given after `=` or as the next word), `*` first when it may be repeated; its one-letter form, when
    /// it has one, as a spec of its own before it (`-a[help]:VALUE:action`, the value as the next word).
    private static func zshSpecs(_ option: OptionSpec) -> [String] {
        let long = zshSpec(option, spelling: "--\(option.name)", valueSeparator: "=")
        guard let short = option.shortName else { return [long] }
        return [zshSpec(option, spelling: "-\(short)", valueSeparator: ""), long]
    }

    private static func zshSpec(_ option: OptionSpec, spelling: String, valueSeparator: String) -> String {
        let description = "[" + zshBracketed(brief(option.help)) + "]"
        let repetition = option.repeatable ? "*" : ""
        guard let valueName = option.valueName else { return zshQuoted(spelling + description) }
        let action: String
        switch option.valueKind {
        case .choice(let words): action = "(\(words.joined(separator: " ")))"
        case .file: action = "_files"
        case .profile: action = "_device_login_profiles"
        case .none, .text: action = " "
        }
        return zshQuoted(repetition + spelling + valueSeparator + description + ":\(valueName):" + action)
    }

    /// `text` with the characters `_arguments` reads inside `[…]` escaped: `\`, `[`, `]` and `:`.
    private static func zshBracketed(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if "\\[]:".contains(character) { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }

    /// `text` in single quotes, a quote inside written as `'\''`.
    static func zshQuoted(_ text: String) -> String {
        "'" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }
}
