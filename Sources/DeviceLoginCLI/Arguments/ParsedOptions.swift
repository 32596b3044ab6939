/// The options of one command after parsing: the command line first, then the environment.
struct ParsedOptions: Sendable, Equatable {
    /// Values by option name, in the order given.
    private(set) var values: [String: [String]] = [:]
    /// Positional arguments, in order.
    private(set) var positionals: [String] = []
    /// The options whose values came from the environment (`DEVICE_LOGIN_…`), not the command line.
    private(set) var fromEnvironment: Set<String> = []
    /// The words the options were parsed from, as given (without the command name): what `demo` hands over to
    /// `device-login-demo`.
    let arguments: [String]

    /// Options parsed from `arguments`; empty until values are appended.
    init(arguments: [String] = []) {
        self.arguments = arguments
    }

    mutating func append(_ value: String, for name: String) { values[name, default: []].append(value) }
    mutating func appendPositional(_ value: String) { positionals.append(value) }
    mutating func set(_ list: [String], for name: String) { values[name] = list }
    mutating func markFromEnvironment(_ name: String) { fromEnvironment.insert(name) }

    /// Whether the option's value came from the environment rather than the command line (where `ps` shows it).
    func isFromEnvironment(_ name: String) -> Bool { fromEnvironment.contains(name) }

    /// The value of a single-valued option; the last one given wins.
    func value(_ name: String) -> String? { values[name]?.last }

    /// All values of a repeatable option.
    func list(_ name: String) -> [String] { values[name] ?? [] }

    /// Whether a flag is set.
    func flag(_ name: String) -> Bool { values[name] != nil }

    /// Whether the option was given at all.
    func has(_ name: String) -> Bool { values[name] != nil }
}
