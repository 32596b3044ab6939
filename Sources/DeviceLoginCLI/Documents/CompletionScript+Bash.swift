extension CompletionScript {
    /// The bash script: a function `_device_login` registered with `complete -F`.
    static func bash(_ commands: [CommandSpec]) -> String {
        var lines = header(.bash)
        lines += [
            "# Install: device-login completion bash > ~/.local/share/bash-completion/completions/device-login",
            "",
            "_device_login_profiles() {",
            "    local dir file",
        ]
        lines += profileDirectoryLines
        lines += [
            "    for file in \"$dir\"/*.json; do",
            "        [ -e \"$file\" ] || continue",
            "        file=${file##*/}",
            "        printf '%s\\n' \"${file%.json}\"",
            "    done",
            "}",
            "",
            "_device_login() {",
            "    local cur=${COMP_WORDS[COMP_CWORD]} prev= command= options= words= i j",
            "    (( COMP_CWORD > 0 )) && prev=${COMP_WORDS[COMP_CWORD-1]}",
            "    # --name=value: bash splits the word at = (COMP_WORDBREAKS).",
            "    if [[ $cur == = ]]; then",
            "        cur=",
            "    elif [[ $prev == = ]] && (( COMP_CWORD > 1 )); then",
            "        prev=${COMP_WORDS[COMP_CWORD-2]}",
            "    fi",
            "    for (( i = 1; i < COMP_CWORD; i++ )); do",
            "        if [[ ${COMP_WORDS[i]} != -* ]]; then command=${COMP_WORDS[i]}; break; fi",
            "    done",
            "    if [[ -z $command ]]; then",
            "        COMPREPLY=($(compgen -W \"\(commandWords(commands))\" -- \"$cur\"))",
            "        return",
            "    fi",
            "    for (( j = i + 1; j < COMP_CWORD; j++ )); do",
            "        if [[ ${COMP_WORDS[j]} == -- ]]; then",
            "            if (( j + 1 == COMP_CWORD )); then",
            "                COMPREPLY=($(compgen -c -- \"$cur\"))",
            "            else",
            "                compopt -o filenames 2>/dev/null",
            "                COMPREPLY=($(compgen -f -- \"$cur\"))",
            "            fi",
            "            return",
            "        fi",
            "    done",
            "    case $command in",
        ]
        for command in commands {
            lines.append("        \(command.name))")
            lines += bashValueCases(command.options)
            lines.append("            options=\"\(command.options.flatMap(\.spellings).joined(separator: " "))\"")
            if !command.positionalWords.isEmpty {
                lines.append("            words=\"\(command.positionalWords.joined(separator: " "))\"")
            }
            lines.append("            ;;")
        }
        lines += [
            "        help)",
            "            options=\"--man\"",
            "            words=\"\(helpWords(commands).joined(separator: " "))\"",
            "            ;;",
            "        *) return ;;",
            "    esac",
            "    if [[ -n $words && $cur != -* ]]; then",
            "        # The positional word, unless one is given already.",
            "        for (( j = i + 1; j < COMP_CWORD; j++ )); do",
            "            [[ \" $words \" == *\" ${COMP_WORDS[j]} \"* ]] && words=",
            "        done",
            "    fi",
            "    if [[ -n $words && $cur != -* ]]; then",
            "        COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))",
            "    else",
            "        COMPREPLY=($(compgen -W \"$options\" -- \"$cur\"))",
            "    fi",
            "}",
            "",
            "complete -F _device_login device-login",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    /// The commands and the tool's own words, for the first word.
    static func commandWords(_ commands: [CommandSpec]) -> String {
        (commands.map(\.name) + toolWords.map(\.0) + HelpText.toolOptions.map(\.0)).joined(separator: " ")
    }

    /// The `case $prev in` that completes the value of each option that takes one: its choices, a file, a
    /// profile, or nothing (a URL or an ID, which no list holds).
    private static func bashValueCases(_ options: [OptionSpec]) -> [String] {
        var groups: [(pattern: [String], action: String)] = []
        func add(_ option: OptionSpec, _ action: String) {
            if let index = groups.firstIndex(where: { $0.action == action }) {
                groups[index].pattern += option.spellings
            } else {
                groups.append((option.spellings, action))
            }
        }
        for option in options {
            switch option.valueKind {
            case .none: continue
            case .choice(let words):
                add(option, "COMPREPLY=($(compgen -W \"\(words.joined(separator: " "))\" -- \"$cur\"))")
            case .file: add(option, "compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- \"$cur\"))")
            case .profile: add(option, "COMPREPLY=($(compgen -W \"$(_device_login_profiles)\" -- \"$cur\"))")
            case .text: add(option, ":")
            }
        }
        guard !groups.isEmpty else { return [] }
        var lines = ["            case $prev in"]
        for group in groups {
            lines.append("                \(group.pattern.joined(separator: "|"))) \(group.action); return ;;")
        }
        lines.append("            esac")
        return lines
    }
}
