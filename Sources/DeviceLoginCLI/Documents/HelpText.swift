import DeviceLogin

/// The help texts, built from the command tables so they never drift from what is parsed, wrapped to a width
/// (``lineWidth(columns:)``).
enum HelpText {
    /// `device-login --help`, wrapped to `lineWidth` columns.
    static func tool(_ commands: [CommandSpec], lineWidth: Int = defaultLineWidth) -> String {
        var lines = wrap("device-login \(DeviceLoginVersion.string) — " + tagline, width: lineWidth)
        lines += ["", "USAGE: device-login <command> [options]", "", "COMMANDS:"]
        let width = (commands.map(\.name.count).max() ?? 0) + 2
        for command in commands {
            // A summary longer than the line goes on below, under its first line.
            let wrapped = wrap(command.summary, width: lineWidth - 2 - width)
            lines.append("  " + command.name.padding(to: width) + (wrapped.first ?? ""))
            lines += wrapped.dropFirst().map { String(repeating: " ", count: 2 + width) + $0 }
        }
        lines += ["", "OPTIONS:"]
        for (option, help) in toolOptions {
            let wrapped = wrap(help, width: lineWidth - 14)
            lines.append("  " + option.padding(to: 12) + (wrapped.first ?? ""))
            lines += wrapped.dropFirst().map { String(repeating: " ", count: 14) + $0 }
        }
        lines.append("")
        lines += wrap(environmentNote, width: lineWidth)
        lines.append("")
        lines += exitCodes(ExitCode.allCases.map { ($0, $0.meaning) }, lineWidth: lineWidth)
        lines.append("")
        lines += wrap(startHere, width: lineWidth)
        return lines.joined(separator: "\n") + "\n"
    }

    /// Where a new user starts: `--help`'s last words. The demo's server is not installed by `Scripts/install.sh`
    /// (``DemoLauncher``), so the first command is the one that works after an install.
    static let startHere =
        "Start here: device-login login --issuer URL --client-id ID. With no account, try a sign-in against a"
        + " built-in server: device-login demo (it comes with a source build: bash Scripts/demo.sh in a clone)."

    /// What the tool does, in one line: `--help`'s first line and the man page's NAME.
    static let tagline = "sign in on machines without a browser (OAuth 2.0 device flow, RFC 8628)"

    /// The tool's own options, for `--help` and the man page.
    static let toolOptions = [
        (
            "--help",
            "Show help (also: device-login <command> --help, device-login help <command>; the man page: device-login help --man)."
        ),
        ("--version", "Show the version."),
    ]

    /// How options come from the environment, for `--help` and the man page.
    static let environmentNote =
        "Every option can also come from the environment: --client-id is DEVICE_LOGIN_CLIENT_ID, and so on."
        + " The command line wins over the environment."

    /// `device-login <command> --help`, wrapped to `lineWidth` columns.
    static func command(_ command: CommandSpec, lineWidth: Int = defaultLineWidth) -> String {
        var lines = wrap(command.summary, width: lineWidth)
        let usageLines = wrap(usage(command), width: lineWidth - 7)
        lines += ["", "USAGE: " + (usageLines.first ?? "")]
        lines += usageLines.dropFirst().map { "       " + $0 }
        lines += ["", "OPTIONS:"]
        let width = min(
            (command.options.map(\.helpSynopsis.count).max() ?? 0) + 2, maximumSynopsisWidth, lineWidth / 3)
        for option in command.options {
            var help = option.help
            if option.name != "help", let variable = option.environmentVariable { help += " [$\(variable)]" }
            let wrapped = wrap(help, width: lineWidth - 2 - width)
            if option.helpSynopsis.count + 2 > width {
                lines.append("  " + option.helpSynopsis)
                lines += wrapped.map { String(repeating: " ", count: 2 + width) + $0 }
            } else {
                lines.append("  " + option.helpSynopsis.padding(to: width) + (wrapped.first ?? ""))
                lines += wrapped.dropFirst().map { String(repeating: " ", count: 2 + width) + $0 }
            }
        }
        let blocks = TextBlock.blocks(command.discussion)
        if !blocks.isEmpty { lines.append("") }
        for block in blocks {
            switch block {
            case .paragraph(let text): lines += wrap(text, width: lineWidth)
            case .verbatim(let example): lines += example.flatMap { Self.example($0, width: lineWidth) }
            case .space: lines.append("")
            }
        }
        lines += [""] + exitCodes(command.exitCodes.map { ($0, command.meaning(of: $0)) }, lineWidth: lineWidth)
        return lines.joined(separator: "\n") + "\n"
    }

    /// The width help is wrapped to without a terminal (a pipe, a file): 80 columns.
    static let defaultLineWidth = 80
    /// The narrowest and widest a terminal's help is wrapped to: lines longer than 100 columns are hard to read,
    /// and below 40 the option column leaves no room.
    static let lineWidths = 40...100

    /// The width to wrap help to on stdout: the terminal's `columns` within ``lineWidths``, or
    /// ``defaultLineWidth`` when stdout is not a terminal (`columns` nil).
    static func lineWidth(columns: Int?) -> Int {
        guard let columns else { return defaultLineWidth }
        return min(max(columns, lineWidths.lowerBound), lineWidths.upperBound)
    }
    /// The widest option column; longer synopses get a line of their own.
    static let maximumSynopsisWidth = 26

    /// Splits `text` into lines of at most `width` characters at spaces (a longer word stands alone).
    ///
    /// It goes over the text's bytes once and measures each word once, an ASCII word by its bytes: `--help` wraps
    /// every summary and meaning of the tool, and splitting by `Character` and counting the line built so far for
    /// each word made wrapping half of `--help`'s instructions (callgrind: 2.26 M of 4.48 M).
    static func wrap(_ text: String, width: Int) -> [String] {
        let bytes = Array(text.utf8)
        let space = UInt8(ascii: " ")
        var lines: [String] = []
        var line: [UInt8] = []
        var lineWidth = 0
        var index = 0
        while index < bytes.count {
            guard bytes[index] != space else {
                index += 1
                continue
            }
            let start = index
            var ascii = true
            while index < bytes.count, bytes[index] != space {
                ascii = ascii && bytes[index] < 0x80
                index += 1
            }
            let word = bytes[start..<index]
            let wordWidth = ascii ? word.count : String(decoding: word, as: UTF8.self).count
            if !line.isEmpty {
                if lineWidth + 1 + wordWidth <= width {
                    line.append(space)
                    lineWidth += 1
                } else {
                    lines.append(String(decoding: line, as: UTF8.self))
                    line.removeAll(keepingCapacity: true)
                    lineWidth = 0
                }
            }
            line += word
            lineWidth += wordWidth
        }
        if !line.isEmpty { lines.append(String(decoding: line, as: UTF8.self)) }
        return lines
    }

    /// An example line of a discussion, indented by 2: as it is when it fits `width`; else broken at spaces the way
    /// a shell reads it back, each line but the last ending in ` \` and the others indented 4 more. It is never
    /// broken inside quotes, a `<placeholder>` or a `# comment` (a `\` there would not continue the line); a part
    /// longer than the line stands alone.
    static func example(_ line: String, width: Int) -> [String] {
        let indent = "  "
        guard indent.count + line.count > width else { return [indent + line] }
        let continued = indent + "    "
        var lines: [String] = []
        var current = ""
        for word in exampleWords(line) {
            let lead = lines.isEmpty ? indent : continued
            if current.isEmpty {
                current = word
            } else if lead.count + current.count + 1 + word.count + 2 <= width {
                current += " " + word
            } else {
                lines.append(lead + current + " \\")
                current = word
            }
        }
        lines.append((lines.isEmpty ? indent : continued) + current)
        return lines
    }

    /// The parts of an example line a shell would let a ` \` go between: words outside quotes and `<…>`
    /// placeholders, and a `# comment` as one part.
    static func exampleWords(_ line: String) -> [String] {
        var words: [String] = []
        var word = ""
        var quote: Character?
        var inPlaceholder = false
        var index = line.startIndex
        while index < line.endIndex {
            let character = line[index]
            let next = line.index(after: index)
            defer { index = next }
            if word.isEmpty, quote == nil, !inPlaceholder, character == "#" {
                // A comment runs to the end of the line: one part, its spacing kept.
                words.append(String(line[index...]))
                return words
            }
            switch character {
            case " " where quote == nil && !inPlaceholder:
                if !word.isEmpty { words.append(word) }
                word = ""
                continue
            case "'", "\"":
                if quote == nil { quote = character } else if quote == character { quote = nil }
            case "<" where quote == nil && next < line.endIndex && line[next].isLetter: inPlaceholder = true
            case ">" where inPlaceholder: inPlaceholder = false
            default: break
            }
            word.append(character)
        }
        if !word.isEmpty { words.append(word) }
        return words
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

    /// The `EXIT CODES:` section: each code with its meaning, wrapped.
    private static func exitCodes(_ codes: [(ExitCode, String)], lineWidth: Int) -> [String] {
        var lines = ["EXIT CODES:"]
        for (code, meaning) in codes {
            let wrapped = wrap(meaning, width: lineWidth - 7)
            lines.append("  " + String(code.rawValue).padding(to: 5) + (wrapped.first ?? ""))
            lines += wrapped.dropFirst().map { String(repeating: " ", count: 7) + $0 }
        }
        return lines
    }
}

extension String {
    /// The string padded with spaces to `width` characters (never cut).
    func padding(to width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
