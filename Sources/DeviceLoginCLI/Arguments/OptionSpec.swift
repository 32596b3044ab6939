/// One command-line option, as a row of a command's option table.
struct OptionSpec: Sendable, Hashable {
    /// The long name without dashes: `client-id` for `--client-id`.
    let name: String
    /// The placeholder of the value (`URL`, `ID`), or nil for a flag that takes none.
    let valueName: String?
    /// Whether the option may be given more than once (values accumulate).
    let repeatable: Bool
    /// One line of help.
    let help: String

    /// A flag: `--json`.
    static func flag(_ name: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, valueName: nil, repeatable: false, help: help)
    }

    /// An option with one value: `--issuer URL`.
    static func value(_ name: String, _ valueName: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, valueName: valueName, repeatable: false, help: help)
    }

    /// An option that may be repeated: `--scope S ...`.
    static func list(_ name: String, _ valueName: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, valueName: valueName, repeatable: true, help: help)
    }

    /// The environment variable that supplies this option when it is not on the command line:
    /// `DEVICE_LOGIN_CLIENT_ID` for `client-id`.
    var environmentVariable: String {
        "DEVICE_LOGIN_" + String(name.uppercased().map { $0 == "-" ? "_" : $0 })
    }

    /// The option as it appears in usage lines: `--issuer URL`, `--scope S ...`, `--json`.
    var synopsis: String {
        guard let valueName else { return "--\(name)" }
        return repeatable ? "--\(name) \(valueName) ..." : "--\(name) \(valueName)"
    }
}
