/// A small, table-driven command-line parser: `--opt value`, `--opt=value`, flags, repeated options, `--` to end
/// options, and environment variables as fallbacks (`DEVICE_LOGIN_<NAME>`).
enum ArgumentParser {
    /// Words that count as true for a flag given through the environment.
    static let trueWords = ["1", "true", "yes", "on"]
    /// Words that count as false for a flag given through the environment.
    static let falseWords = ["0", "false", "no", "off", ""]
    /// The longest argument accepted, to bound what is kept.
    static let maximumArgumentLength = 16_384

    /// Parses `arguments` (without the command name) against `options`.
    /// - Parameters:
    ///   - arguments: The words after the command name.
    ///   - options: The command's option table.
    ///   - command: The command's name, for error messages.
    ///   - environment: Variables to fall back on for options not on the command line.
    ///   - maximumPositionals: How many positional arguments are allowed.
    /// - Throws: ``UsageError`` for an unknown option, a missing value, a value given to a flag, or a repeated
    ///   single-valued option.
    static func parse(
        _ arguments: [String],
        options: [OptionSpec],
        command: String,
        environment: [String: String] = [:],
        maximumPositionals: Int = 0
    ) throws -> ParsedOptions {
        if arguments.contains(where: { $0.utf8.count > maximumArgumentLength }) {
            throw UsageError("an argument is longer than \(maximumArgumentLength) bytes", command: command)
        }
        var parsed = ParsedOptions(arguments: arguments)
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            var word = arguments[index]
            index += 1
            // A one-letter form (`-a`) stands for its option's long name.
            if !optionsEnded, word.count == 2, word.first == "-",
                let spec = options.first(where: { $0.shortName != nil && $0.shortName == word.last })
            {
                word = "--" + spec.name
            }
            if optionsEnded || !word.hasPrefix("-") || word == "-" {
                guard parsed.positionals.count < maximumPositionals else {
                    throw UsageError("unexpected argument '\(word)'", command: command)
                }
                parsed.appendPositional(word)
                continue
            }
            if word == "--" {
                optionsEnded = true
                continue
            }
            guard word.hasPrefix("--") else {
                // `-profile` for `--profile`: one dash short is one edit.
                let message = Suggestion.message(
                    "unknown option '\(word)'", for: word, among: options.map { "--" + $0.name })
                throw UsageError(message, command: command)
            }
            let body = word.dropFirst(2)
            let name: String
            var inlineValue: String?
            if let equals = body.firstIndex(of: "=") {
                name = String(body[..<equals])
                inlineValue = String(body[body.index(after: equals)...])
            } else {
                name = String(body)
            }
            guard let spec = options.first(where: { $0.name == name }) else {
                let message = Suggestion.message(
                    "unknown option '--\(name)'", for: "--" + name, among: options.map { "--" + $0.name })
                throw UsageError(message, command: command)
            }
            if spec.valueName == nil {
                if inlineValue != nil { throw UsageError("option '--\(name)' takes no value", command: command) }
                parsed.append("", for: name)
                continue
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else {
                guard index < arguments.count else {
                    throw UsageError(
                        "option '--\(name)' needs a value (\(spec.valueName ?? "value"))",
                        command: command)
                }
                value = arguments[index]
                index += 1
            }
            if !spec.repeatable, parsed.has(name) {
                throw UsageError("option '--\(name)' is given more than once", command: command)
            }
            parsed.append(value, for: name)
        }
        try applyEnvironment(environment, options: options, command: command, to: &parsed)
        return parsed
    }

    /// Fills options missing from the command line from `DEVICE_LOGIN_<NAME>` variables. Repeatable options
    /// take whitespace-separated lists; flags take 1/true/yes/on or 0/false/no/off.
    private static func applyEnvironment(
        _ environment: [String: String], options: [OptionSpec], command: String, to parsed: inout ParsedOptions
    ) throws {
        for spec in options where !parsed.has(spec.name) && spec.name != "help" {
            guard let variable = spec.environmentVariable, let raw = environment[variable] else { continue }
            if spec.valueName == nil {
                let word = raw.lowercased()
                if trueWords.contains(word) {
                    parsed.append("", for: spec.name)
                } else if !falseWords.contains(word) {
                    let unset = falseWords.filter { !$0.isEmpty }.joined(separator: ", ")
                    throw UsageError(
                        "\(variable) must be one of \(trueWords.joined(separator: ", ")) (to set"
                            + " --\(spec.name)) or \(unset) (or empty, to leave it unset), not '\(raw)'",
                        command: command)
                }
            } else if spec.repeatable {
                let words = raw.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).map(String.init)
                if !words.isEmpty { parsed.set(words, for: spec.name) }
            } else if !raw.isEmpty {
                parsed.append(raw, for: spec.name)
            }
            if parsed.has(spec.name) { parsed.markFromEnvironment(spec.name) }
        }
    }
}
