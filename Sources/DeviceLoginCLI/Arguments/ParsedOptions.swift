/// The options of one command after parsing: the command line first, then the environment.
struct ParsedOptions: Sendable, Equatable {
    /// Values by option name, in the order given.
    private(set) var values: [String: [String]] = [:]
    /// Positional arguments, in order.
    private(set) var positionals: [String] = []

    mutating func append(_ value: String, for name: String) { values[name, default: []].append(value) }
    mutating func appendPositional(_ value: String) { positionals.append(value) }
    mutating func set(_ list: [String], for name: String) { values[name] = list }

    /// The value of a single-valued option; the last one given wins.
    func value(_ name: String) -> String? { values[name]?.last }

    /// All values of a repeatable option.
    func list(_ name: String) -> [String] { values[name] ?? [] }

    /// Whether a flag is set.
    func flag(_ name: String) -> Bool { values[name] != nil }

    /// Whether the option was given at all.
    func has(_ name: String) -> Bool { values[name] != nil }
}
