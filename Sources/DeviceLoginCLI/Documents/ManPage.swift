import DeviceLogin

/// The man page `device-login(1)` of `device-login help --man`, in roff with the man(7) macros, generated from
/// the same command tables as `--help` (its options, discussions and exit codes), so the two cannot drift.
enum ManPage {
    /// The page for `commands`.
    static func render(_ commands: [CommandSpec]) -> String {
        var page = Page()
        page.request(".TH", "DEVICE-LOGIN", "1", "", "device-login \(DeviceLoginVersion.string)", "User Commands")
        // No hyphenation and a ragged right margin: option names and variables must stay whole to be copied.
        page.raw(".nh")
        page.raw(".ad l")
        page.section("NAME")
        page.text("device-login - " + HelpText.tagline)

        page.section("SYNOPSIS")
        page.synopsis("device-login", "COMMAND", "[OPTIONS]")
        page.raw(".br")
        page.synopsis("device-login help", "[COMMAND | --man]")
        page.raw(".br")
        page.synopsis("device-login", "--help | --version")

        page.section("DESCRIPTION")
        page.text(description)
        page.paragraph()
        page.text(HelpText.environmentNote)
        page.paragraph()
        page.text("Tool options:")
        for (option, help) in HelpText.toolOptions {
            page.tagged(bold: option, help)
        }

        page.section("COMMANDS")
        for command in commands {
            page.subsection(HelpText.usage(command))
            page.text(command.summary)
            for option in command.options {
                page.option(option)
            }
            page.discussion(command.discussion)
            page.paragraph()
            page.text(
                "Exit status: " + command.exitCodes.map { String($0.rawValue) }.joined(separator: ", ") + ".")
        }

        page.section("ENVIRONMENT")
        for (variable, options) in environmentVariables(commands) {
            page.tagged(bold: variable, options)
        }
        for (variable, meaning) in otherVariables {
            page.tagged(bold: variable, meaning)
        }

        page.section("FILES")
        for (file, meaning) in files {
            page.tagged(italic: file, meaning)
        }

        page.section("EXIT STATUS")
        for code in ExitCode.allCases {
            if code == .hangUp {
                page.tagged(
                    bold: "126, 127",
                    "exec: COMMAND cannot be run, or is not found; demo: device-login-demo (which comes with a source"
                        + " build) cannot be run, or is not installed")
            }
            page.tagged(bold: String(code.rawValue), code.meaning)
        }
        page.paragraph()
        page.text("exec otherwise exits with its command's own status.")

        page.section("EXAMPLES")
        for (title, lines) in examples {
            page.paragraph()
            page.text(title)
            page.verbatim(lines)
        }

        page.section("SEE ALSO")
        page.raw(
            seeAlso.map { "\\fB" + Roff.escape($0.name) + "\\fR(" + $0.section + ")" }.joined(separator: ",\n"))
        return page.lines.joined(separator: "\n") + "\n"
    }

    /// The DESCRIPTION's first paragraph.
    static let description =
        "device-login signs in with the OAuth 2.0 Device Authorization Grant (RFC 8628) on machines without a"
        + " browser: it shows a code and where to enter it (with a QR code), waits while the person approves the"
        + " sign-in on another device, and saves the tokens as a profile. Other tools then get fresh access tokens"
        + " from it: scripts (token, exec, curl-config), git, kubectl and Docker (their credential helpers)."
        + " Results go to standard output and everything meant for a person to standard error."

    /// Each `DEVICE_LOGIN_*` variable the command tables know, with the option it stands for and the commands
    /// that read it, in table order.
    static func environmentVariables(_ commands: [CommandSpec]) -> [(String, String)] {
        var order: [String] = []
        var readers: [String: (option: OptionSpec, commands: [String])] = [:]
        for command in commands {
            for option in command.options where option.name != "help" {
                guard let variable = option.environmentVariable else { continue }
                if readers[variable] == nil {
                    order.append(variable)
                    readers[variable] = (option, [])
                }
                readers[variable]?.commands.append(command.name)
            }
        }
        return order.compactMap { variable in
            guard let (option, names) = readers[variable] else { return nil }
            let all = names.count == commands.count
            return (variable, "--\(option.name), for " + (all ? "every command" : names.joined(separator: ", ")) + ".")
        }
    }

    /// The variables the tool reads that stand for no option, and those `exec` sets.
    static let otherVariables = [
        ("DEVICE_LOGIN_HOME", "The profile directory; an absolute path."),
        ("XDG_STATE_HOME, HOME", "The profile directory when DEVICE_LOGIN_HOME is not set (see FILES)."),
        (
            "DEVICE_LOGIN_AGENT_SOCK",
            "The socket of a device-login agent: the helpers (token, git-credential, kubectl-credential,"
                + " docker-credential, curl-config, exec, dpop-proof) ask it and never read or write"
                + " DEVICE_LOGIN_HOME. The agent itself listens where -a/--socket says, never here."
        ),
        (ChildEnvironment.tokenVariable, "Set by exec for its command: the access token (unless --env names another)."),
        (ChildEnvironment.proofVariable, "Set by exec for its command with --dpop-url: a DPoP proof."),
        (
            "https_proxy, HTTPS_PROXY, http_proxy, all_proxy, ALL_PROXY, no_proxy, NO_PROXY",
            "Proxies (libcurl); upper-case HTTP_PROXY is ignored, as curl does."
        ),
        ("KUBERNETES_EXEC_INFO", "kubectl-credential: the request from kubectl."),
        ("CI", "When set, kubectl-credential never signs in interactively."),
        ("NO_COLOR", "Any non-empty value: no colours."),
        ("TERM", "dumb, or no TERM: no escape sequences."),
        ("LC_ALL, LC_CTYPE, LANG", "Whether the terminal is UTF-8; without it the prompt is ASCII."),
        ("COLUMNS, LINES", "The terminal size when the kernel reports none."),
    ]

    /// The files the tool keeps.
    static let files = [
        (
            "$DEVICE_LOGIN_HOME/NAME.json",
            "Profile NAME and its tokens, mode 0600. The directory is DEVICE_LOGIN_HOME, else"
                + " $XDG_STATE_HOME/device-login, else ~/.local/state/device-login (mode 0700)."
        ),
        ("$DEVICE_LOGIN_HOME/NAME.lock", "The lock that lets one process at a time refresh or save profile NAME."),
        ("$DEVICE_LOGIN_HOME/NAME.dpop.jwk", "The DPoP key of a profile signed in with --dpop, mode 0600."),
    ]

    /// The EXAMPLES: a line saying what, and the commands.
    static let examples = [
        ("Try a sign-in against the built-in server:", ["device-login demo"]),
        (
            "Sign in, then call an API with a fresh token:",
            [
                "device-login login --issuer https://auth.example.com --client-id my-device-app",
                "curl -H \"Authorization: Bearer $(device-login token)\" https://api.example.com/",
            ]
        ),
        (
            "Keep the token out of command lines:",
            ["device-login curl-config | curl -K - https://api.example.com/", "device-login exec -- ./sync.py"]
        ),
        (
            "Install the shell completions and this page:",
            [
                "device-login completion bash > ~/.local/share/bash-completion/completions/device-login",
                "device-login help --man > ~/.local/share/man/man1/device-login.1",
            ]
        ),
    ]

    /// The SEE ALSO references.
    static let seeAlso = [
        (name: "curl", section: "1"), (name: "git-credential", section: "1"), (name: "gitcredentials", section: "7"),
        (name: "kubectl", section: "1"), (name: "docker-login", section: "1"),
    ]
}

extension ManPage {
    /// A page being written: roff lines.
    struct Page {
        private(set) var lines: [String] = []

        mutating func raw(_ line: String) { lines.append(line) }

        mutating func request(_ name: String, _ arguments: String...) {
            lines.append(([name] + arguments.map(Roff.argument)).joined(separator: " "))
        }

        mutating func section(_ title: String) { request(".SH", title) }

        mutating func subsection(_ title: String) { request(".SS", title) }

        mutating func paragraph() { lines.append(".PP") }

        /// Filled text.
        mutating func text(_ text: String) { lines.append(Roff.escape(text)) }

        /// A synopsis line: `bold` in bold, the rest in italics.
        mutating func synopsis(_ bold: String, _ rest: String...) {
            lines.append(([".B", Roff.argument(bold)]).joined(separator: " "))
            lines.append(([".I"] + rest.map(Roff.argument)).joined(separator: " "))
        }

        /// A tagged paragraph: `tag` in bold, then `text` indented.
        mutating func tagged(bold tag: String, _ text: String) {
            lines += [".TP", ".B " + Roff.argument(tag), Roff.escape(text)]
        }

        /// A tagged paragraph: `tag` in italics, then `text` indented.
        mutating func tagged(italic tag: String, _ text: String) {
            lines += [".TP", ".I " + Roff.argument(tag), Roff.escape(text)]
        }

        /// An option as a tagged paragraph: `--name` in bold and its value's placeholder in italics, then its
        /// help, its choices and its variable.
        mutating func option(_ option: OptionSpec) {
            lines.append(".TP")
            let short = option.shortName.map { "\\fB" + Roff.escape("-\($0)") + "\\fR, " } ?? ""
            let name = short + "\\fB" + Roff.escape("--" + option.name) + "\\fR"
            let value = option.valueName.map { " \\fI" + Roff.escape($0) + "\\fR" } ?? ""
            lines.append(name + value + (option.repeatable ? " ..." : ""))
            var help = option.help
            if option.name != "help", let variable = option.environmentVariable { help += " [$\(variable)]" }
            lines.append(Roff.escape(help))
        }

        /// A command's discussion: its paragraphs filled, its examples as they are.
        mutating func discussion(_ text: String) {
            var needsParagraph = true
            for block in TextBlock.blocks(text) {
                switch block {
                case .paragraph(let words):
                    if needsParagraph { paragraph() }
                    self.text(words)
                    needsParagraph = false
                case .verbatim(let example):
                    if needsParagraph { paragraph() }
                    verbatim(example)
                    needsParagraph = false
                case .space:
                    needsParagraph = true
                }
            }
        }

        /// Lines kept as they are, indented, in a constant-width font where there is one.
        mutating func verbatim(_ example: [String]) {
            lines += [".RS 4", ".nf"]
            lines += example.map(Roff.escape)
            lines += [".fi", ".RE"]
        }
    }
}
