import DeviceLogin

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
    /// The words the value must be one of, when the option takes one of a fixed few (`--qr`: auto, always,
    /// never); empty when any value goes. The shell completions offer them.
    var choices: [String] = []

    /// A flag: `--json`.
    static func flag(_ name: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, valueName: nil, repeatable: false, help: help)
    }

    /// An option with one value: `--issuer URL`; `choices` are the words it accepts, when it accepts only a few.
    static func value(_ name: String, _ valueName: String, _ help: String, choices: [String] = []) -> OptionSpec {
        OptionSpec(name: name, valueName: valueName, repeatable: false, help: help, choices: choices)
    }

    /// `--profile NAME`, which every command that opens a profile takes: the profile `purpose` says, `default` when
    /// not given (`Profile.defaultName`).
    /// - Parameter purpose: What the profile is for, after "The profile": "to show", "whose tokens move".
    static func profile(_ purpose: String) -> OptionSpec {
        .value("profile", "NAME", "The profile \(purpose) (default: \(Profile.defaultName)).")
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

    /// What kind of value the shell completions offer for the option.
    enum ValueKind: Sendable, Equatable {
        /// A flag: no value.
        case none
        /// One of ``OptionSpec/choices``.
        case choice([String])
        /// A file name: the value's placeholder is `PATH`, `PEM` or `FILE`.
        case file
        /// A profile name (`--profile`): the completions list the profiles saved on disk.
        case profile
        /// Anything else (a URL, an ID): nothing to offer.
        case text
    }

    /// The kind of value, read from the row: its ``choices``, else its placeholder (`PATH`, `PEM`, `FILE`: a
    /// file), else its name (`profile`).
    var valueKind: ValueKind {
        guard let valueName else { return .none }
        if !choices.isEmpty { return .choice(choices) }
        if ["PATH", "PEM", "FILE"].contains(valueName) { return .file }
        return name == "profile" ? .profile : .text
    }
}
