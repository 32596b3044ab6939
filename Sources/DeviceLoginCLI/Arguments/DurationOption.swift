/// An option that takes a duration, such as `login --timeout`: a whole number with an optional unit, `90`, `90s`,
/// `15m` or `2h` (seconds without a unit).
enum DurationOption {
    /// Reads option `name` when it was given.
    /// - Parameters:
    ///   - options: The command's parsed options.
    ///   - name: The option's name, without the dashes.
    ///   - range: The seconds accepted.
    ///   - command: The command, for the error's wording.
    /// - Returns: The duration, or nil when the option was not given.
    /// - Throws: ``UsageError`` naming the option, the value and the range accepted.
    static func read(
        _ options: ParsedOptions, _ name: String, range: ClosedRange<Int>, command: String
    ) throws -> Duration? {
        guard let text = options.value(name) else { return nil }
        guard let seconds = seconds(text), range.contains(seconds) else {
            throw UsageError(
                "--\(name) must be a duration from \(range.lowerBound) s to \(range.upperBound) s"
                    + " (such as 90s, 15m or 2h), not '\(text)'",
                command: command)
        }
        return .seconds(seconds)
    }

    /// The seconds `text` stands for, or nil when it is not a duration (or would overflow).
    static func seconds(_ text: String) -> Int? {
        let units: [Character: Int] = ["s": 1, "m": 60, "h": 3600]
        var digits = Substring(text)
        var multiplier = 1
        if let last = text.last, let unit = units[last] {
            digits = digits.dropLast()
            multiplier = unit
        }
        guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
            let number = Int(digits)
        else { return nil }
        return number * multiplier
    }
}
