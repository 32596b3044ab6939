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
    /// The one-letter form, `a` for `-a`, when the option has one (``short(_:)``).
    var shortName: Character? = nil
    /// Whether the option may come from the environment (``environmentVariable``); see ``commandLineOnly()``.
    var readsEnvironment = true

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

    /// This option with the one-letter form `-letter` too (`agent -a PATH`, as ssh-agent's `-a bind_address`).
    func short(_ letter: Character) -> OptionSpec {
        var option = self
        option.shortName = letter
        return option
    }

    /// This option read from the command line only: no variable supplies it. For a value another variable could be
    /// taken for (`agent --socket`, the agent's own bind address, beside the helpers' `DEVICE_LOGIN_AGENT_SOCK`).
    func commandLineOnly() -> OptionSpec {
        var option = self
        option.readsEnvironment = false
        return option
    }

    /// The environment variable that supplies this option when it is not on the command line:
    /// `DEVICE_LOGIN_CLIENT_ID` for `client-id`; nil for an option read from the command line only.
    var environmentVariable: String? {
        readsEnvironment ? Self.environmentVariable(name) : nil
    }

    /// The variable the option named `name` is read from, unless it is read from the command line only.
    static func environmentVariable(_ name: String) -> String {
        "DEVICE_LOGIN_" + String(name.uppercased().map { $0 == "-" ? "_" : $0 })
    }

    /// The option as it appears in usage lines: `--issuer URL`, `--scope S ...`, `--json`.
    var synopsis: String {
        guard let valueName else { return "--\(name)" }
        return repeatable ? "--\(name) \(valueName) ..." : "--\(name) \(valueName)"
    }

    /// Every way to write the option: its one-letter form first when it has one, then `--name`.
    var spellings: [String] {
        (shortName.map { ["-\($0)"] } ?? []) + ["--" + name]
    }

    /// The option as the help's option table shows it: ``synopsis``, after its one-letter form when it has one
    /// (`-a, --socket PATH`).
    var helpSynopsis: String {
        (shortName.map { "-\($0), " } ?? "") + synopsis
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
