import Testing

@testable import DeviceLoginCLI

@Suite("ArgumentParser: table-driven options")
struct ArgumentParserTests {
    private let table: [OptionSpec] = [
        .value("issuer", "URL", "i"), .list("scope", "S", "s"), .flag("json", "j"), .value("client-id", "ID", "c"),
    ]

    private func parse(_ words: [String], environment: [String: String] = [:], positionals: Int = 0) throws
        -> ParsedOptions
    {
        try ArgumentParser.parse(
            words, options: table, command: "login", environment: environment,
            maximumPositionals: positionals)
    }

    @Test("--opt value and --opt=value, flags, repeated lists")
    func forms() throws {
        let parsed = try parse([
            "--issuer", "https://a", "--scope=openid", "--scope", "email profile", "--json",
            "--client-id=x=y",
        ])
        #expect(parsed.value("issuer") == "https://a")
        #expect(parsed.list("scope") == ["openid", "email profile"])
        #expect(parsed.flag("json"))
        #expect(parsed.value("client-id") == "x=y")
        #expect(!parsed.has("nothing"))
    }

    @Test(
        "errors name the option",
        arguments: [
            (["--nope"], "unknown option '--nope'"),
            (["-x"], "unknown option '-x'"),
            (["--issuer"], "option '--issuer' needs a value (URL)"),
            (["--json=1"], "option '--json' takes no value"),
            (["--issuer", "a", "--issuer", "b"], "option '--issuer' is given more than once"),
            (["stray"], "unexpected argument 'stray'"),
        ])
    func errors(words: [String], message: String) {
        #expect(throws: UsageError(message, command: "login")) { try parse(words) }
    }

    @Test("a one-letter form stands for its option; a command-line-only option reads no variable")
    func shortFormAndCommandLineOnly() throws {
        let table: [OptionSpec] = [
            OptionSpec.value("socket", "PATH", "s").short("a").commandLineOnly(), .flag("foreground", "f"),
        ]
        let parsed = try ArgumentParser.parse(["-a", "/run/a.sock"], options: table, command: "agent")
        #expect(parsed.value("socket") == "/run/a.sock")
        #expect(throws: UsageError.self) {
            try ArgumentParser.parse(["-a", "/x", "--socket", "/y"], options: table, command: "agent")
        }
        #expect(throws: UsageError.self) { try ArgumentParser.parse(["-f"], options: table, command: "agent") }
        let environment = ["DEVICE_LOGIN_SOCKET": "/env.sock", "DEVICE_LOGIN_FOREGROUND": "1"]
        let fromEnvironment = try ArgumentParser.parse([], options: table, command: "agent", environment: environment)
        #expect(!fromEnvironment.has("socket") && fromEnvironment.flag("foreground"))
        #expect(table[0].environmentVariable == nil && table[1].environmentVariable == "DEVICE_LOGIN_FOREGROUND")
        #expect(table[0].spellings == ["-a", "--socket"] && table[0].helpSynopsis == "-a, --socket PATH")
        // After --, a word such as -a is the command's.
        let after = try ArgumentParser.parse(["--", "-a"], options: table, command: "agent", maximumPositionals: 1)
        #expect(after.positionals == ["-a"] && !after.has("socket"))
    }

    @Test("agent --socket: -a, and never from DEVICE_LOGIN_AGENT_SOCK (the helpers' variable) or another")
    func agentSocketOption() throws {
        let socket = try #require(AgentCommand.spec.options.first { $0.name == "socket" })
        #expect(socket.shortName == "a" && socket.environmentVariable == nil)
        let parsed = try ArgumentParser.parse(
            [], options: AgentCommand.spec.options, command: "agent",
            environment: ["DEVICE_LOGIN_AGENT_SOCK": "/a.sock", "DEVICE_LOGIN_SOCKET": "/b.sock"])
        #expect(!parsed.has("socket"))
    }

    @Test("-- ends options; a value may start with a dash")
    func doubleDash() throws {
        let parsed = try parse(["--issuer", "-weird", "--", "--json"], positionals: 1)
        #expect(parsed.value("issuer") == "-weird")
        #expect(parsed.positionals == ["--json"])
        #expect(!parsed.flag("json"))
    }

    @Test("the environment fills what the command line leaves out; the command line wins")
    func environment() throws {
        let environment = [
            "DEVICE_LOGIN_ISSUER": "https://env", "DEVICE_LOGIN_CLIENT_ID": "env-id",
            "DEVICE_LOGIN_SCOPE": "openid  email", "DEVICE_LOGIN_JSON": "true",
        ]
        let parsed = try parse(["--client-id", "cli-id"], environment: environment)
        #expect(parsed.value("issuer") == "https://env")
        #expect(parsed.value("client-id") == "cli-id")
        #expect(parsed.list("scope") == ["openid", "email"])
        #expect(parsed.flag("json"))
    }

    @Test(
        "flags from the environment take 1/true/yes/on and 0/false/no/off only",
        arguments: [
            ("1", true), ("YES", true), ("on", true), ("0", false), ("false", false), ("", false),
        ])
    func environmentFlags(value: String, expected: Bool) throws {
        #expect(try parse([], environment: ["DEVICE_LOGIN_JSON": value]).flag("json") == expected)
    }

    @Test("a bad flag value in the environment is a usage error that lists the accepted values")
    func badEnvironmentFlag() {
        let message =
            "DEVICE_LOGIN_JSON must be one of 1, true, yes, on (to set --json) or 0, false, no, off (or empty,"
            + " to leave it unset), not 'maybe'"
        #expect(throws: UsageError(message, command: "login")) {
            try parse([], environment: ["DEVICE_LOGIN_JSON": "maybe"])
        }
    }

    @Test("help never comes from the environment")
    func noHelpFromEnvironment() throws {
        let options = table + [.flag("help", "h")]
        let parsed = try ArgumentParser.parse(
            [], options: options, command: "login",
            environment: ["DEVICE_LOGIN_HELP": "maybe"])
        #expect(!parsed.flag("help"))
    }

    @Test("over-long arguments are refused")
    func bounded() {
        #expect(throws: UsageError.self) {
            try parse(["--issuer", String(repeating: "a", count: ArgumentParser.maximumArgumentLength + 1)])
        }
    }

    @Test(
        "environment variable names",
        arguments: [
            ("client-id", "DEVICE_LOGIN_CLIENT_ID"),
            ("device-authorization-endpoint", "DEVICE_LOGIN_DEVICE_AUTHORIZATION_ENDPOINT"),
            ("qr", "DEVICE_LOGIN_QR"),
        ])
    func environmentNames(name: String, variable: String) {
        #expect(OptionSpec.flag(name, "").environmentVariable == variable)
    }

    @Test("a mistyped option gets a suggestion when one is close, and none when none is")
    func didYouMean() {
        #expect(throws: UsageError("unknown option '--isuer'; did you mean '--issuer'?", command: "login")) {
            try parse(["--isuer", "https://a.example"])
        }
        #expect(throws: UsageError("unknown option '--clientid'; did you mean '--client-id'?", command: "login")) {
            try parse(["--clientid=c"])
        }
        #expect(throws: UsageError("unknown option '-issuer'; did you mean '--issuer'?", command: "login")) {
            try parse(["-issuer", "https://a.example"])
        }
        #expect(throws: UsageError("unknown option '--frobnicate'", command: "login")) {
            try parse(["--frobnicate"])
        }
    }
}
