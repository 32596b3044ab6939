import DeviceLoginTestSupport
import Foundation
import Testing

@testable import DeviceLoginCLI

/// The completion scripts, each run for real: bash's function with `COMP_WORDS`, fish's `complete -C`, and zsh's
/// completion system in an interactive zsh on a pseudo-terminal (fish and zsh when installed: Debian's `fish` and
/// `zsh`, which `Scripts/install-deps.sh --test` installs); every option of every table must be in each script.
@Suite("Completion scripts")
struct CompletionScriptTests {
    private let snapshots = SnapshotDirectory(beside: #filePath)

    /// Runs `script` in `shell` with `-c`, the script in a file given as `$1`.
    private static func run(_ shell: String, _ code: String, script: String, environment: [String: String] = [:])
        async throws -> ChildProcess.Result
    {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("dl-completion-\(UUID().uuidString)")
        try Data(script.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        var variables = ["PATH": "/usr/bin:/bin", "HOME": "/nonexistent"]
        variables.merge(environment) { $1 }
        return try await ChildProcess.run(
            URL(fileURLWithPath: shell), ["-c", code, "completion-test", file.path], environment: variables)
    }

    /// Where a shell is installed, or nil.
    private static func installed(_ name: String) -> String? {
        ["/usr/bin/\(name)", "/bin/\(name)"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The candidates bash's `_device_login` offers for the command line `words` (the last is the word being
    /// completed).
    private static func bash(_ words: [String], environment: [String: String] = [:]) async throws -> [String] {
        let script = CompletionScript.render(.bash, commands: CLI.commands)
        let quoted = words.map(CLIHints.shellQuoted).joined(separator: " ")
        let code = """
            source "$1" || exit 9
            COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); COMPREPLY=()
            _device_login
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let result = try await run("/bin/bash", code, script: script, environment: environment)
        #expect(result.status == 0, "bash: \(String(decoding: result.stderr, as: UTF8.self))")
        #expect(result.stderr.isEmpty, "bash: \(String(decoding: result.stderr, as: UTF8.self))")
        return String(decoding: result.stdout, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    @Test("bash completes the commands")
    func bashCommands() async throws {
        let all = try await Self.bash(["device-login", ""])
        #expect(Set(all) == Set(CLI.commands.map(\.name) + ["help", "version", "--help", "--version"]))
        #expect(try await Self.bash(["device-login", "lo"]) == ["login", "logout"])
        #expect(try await Self.bash(["device-login", "git-"]) == ["git-credential"])
        #expect(try await Self.bash(["device-login", "--v"]) == ["--version"])
    }

    @Test("bash completes each command's options, all of them", arguments: CLI.commands.map(\.name))
    func bashOptions(name: String) async throws {
        let command = try #require(CLI.commands.first { $0.name == name })
        let offered = try await Self.bash(["device-login", name, "--"])
        #expect(offered == command.options.map { "--" + $0.name })
        #expect(offered.contains("--help") && offered.contains("--verbose"))
    }

    @Test("bash completes option values the tables know, and nothing for free-form values")
    func bashValues() async throws {
        #expect(try await Self.bash(["device-login", "login", "--qr", ""]) == ["auto", "always", "never"])
        #expect(try await Self.bash(["device-login", "login", "--qr", "=", "al"]) == ["always"])
        #expect(try await Self.bash(["device-login", "login", "--client-auth", ""]) == ["basic", "post"])
        #expect(try await Self.bash(["device-login", "login", "--issuer", ""]).isEmpty)
        #expect(try await Self.bash(["device-login", "token", "--profile", "--"]).isEmpty)
        #expect(try await Self.bash(["device-login", "completion", ""]) == ["bash", "zsh", "fish"])
        #expect(try await Self.bash(["device-login", "git-credential", ""]) == ["get", "store", "erase"])
        #expect(try await Self.bash(["device-login", "git-credential", "get", ""]).contains("--profile"))
        #expect(try await Self.bash(["device-login", "docker-credential", "l"]) == ["list"])
        #expect(try await Self.bash(["device-login", "help", "--"]) == ["--man"])
        #expect(try await Self.bash(["device-login", "help", "curl"]) == ["curl-config"])
        #expect(try await Self.bash(["device-login", "exec", "--", "tru"]).contains("true"))
    }

    /// A profile directory with profiles `work` and `default` (and a lock and a key file, which are no profiles).
    private static func profileDirectory() throws -> URL {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("dl-profiles-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        for file in ["work.json", "default.json", "work.lock", "work.dpop.jwk"] {
            try Data("{}".utf8).write(to: home.appendingPathComponent(file))
        }
        return home
    }

    @Test("bash completes --profile from the profiles on disk, and a file for --ca-file")
    func bashProfilesAndFiles() async throws {
        let home = try Self.profileDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        let environment = ["DEVICE_LOGIN_HOME": home.path]
        #expect(
            Set(try await Self.bash(["device-login", "token", "--profile", ""], environment: environment))
                == ["work", "default"])
        #expect(
            try await Self.bash(["device-login", "logout", "--profile", "w"], environment: environment) == ["work"])
        let pem = home.appendingPathComponent("ca.pem").path
        try Data().write(to: URL(fileURLWithPath: pem))
        #expect(try await Self.bash(["device-login", "token", "--ca-file", home.path + "/ca"]) == [pem])
    }

    @Test("every option of every table is in each script", arguments: CompletionScript.Shell.allCases)
    func everyOption(shell: CompletionScript.Shell) {
        let script = CompletionScript.render(shell, commands: CLI.commands)
        for command in CLI.commands {
            #expect(script.contains(command.name), "\(shell): \(command.name) missing")
            for option in command.options {
                let form: String
                switch shell {
                case .bash: form = "--" + option.name
                case .zsh: form = "--" + option.name + (option.valueName == nil ? "[" : "=[")
                case .fish: form = "__fish_seen_subcommand_from \(command.name)' -l \(option.name) "
                }
                #expect(script.contains(form), "\(shell): \(command.name) --\(option.name) missing")
            }
            for choice in command.options.flatMap(\.choices) {
                #expect(script.contains(choice), "\(shell): \(command.name): value \(choice) missing")
            }
        }
    }

    @Test("the names and words in the tables are plain, so the scripts need not quote them")
    func plainWords() {
        let plain = { (word: String) in
            !word.isEmpty && word.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") }
        }
        for command in CLI.commands {
            #expect(plain(command.name))
            for option in command.options {
                #expect(plain(option.name), "--\(option.name)")
                for choice in option.choices { #expect(plain(choice), "--\(option.name) \(choice)") }
            }
            for word in command.positionalWords { #expect(plain(word)) }
        }
    }

    @Test("fish completes commands, options and values", .enabled(if: installed("fish") != nil))
    func fish() async throws {
        let fish = try #require(Self.installed("fish"))
        let script = CompletionScript.render(.fish, commands: CLI.commands)
        let profiles = try Self.profileDirectory()
        defer { try? FileManager.default.removeItem(at: profiles) }
        func complete(_ line: String) async throws -> [String] {
            let result = try await Self.run(
                fish, "source $argv[-1]; and complete -C '\(line)'", script: script,
                environment: ["DEVICE_LOGIN_HOME": profiles.path])
            #expect(result.status == 0, "fish: \(String(decoding: result.stderr, as: UTF8.self))")
            return String(decoding: result.stdout, as: UTF8.self).split(separator: "\n").map {
                String($0.prefix { $0 != "\t" })
            }
        }
        #expect(Set(try await complete("device-login lo")) == ["login", "logout"])
        #expect(try await complete("device-login login --is") == ["--issuer"])
        #expect(Set(try await complete("device-login login --qr ")) == ["auto", "always", "never"])
        #expect(Set(try await complete("device-login git-credential ")).isSuperset(of: ["get", "store", "erase"]))
        #expect(Set(try await complete("device-login token --profile ")) == ["work", "default"])
        for command in CLI.commands {
            let offered = Set(try await complete("device-login \(command.name) --"))
            #expect(offered == Set(command.options.map { "--" + $0.name }), "fish: \(command.name)")
        }
    }

    @Test("the zsh script is valid zsh and registers its function", .enabled(if: installed("zsh") != nil))
    func zsh() async throws {
        let zsh = try #require(Self.installed("zsh"))
        let script = CompletionScript.render(.zsh, commands: CLI.commands)
        let syntax = try await Self.run(zsh, "zsh -n \"$1\"", script: script)
        #expect(syntax.status == 0, "zsh -n: \(String(decoding: syntax.stderr, as: UTF8.self))")
        // Sourced after compinit, the script registers its function for device-login.
        let loads = try await Self.run(
            zsh, "autoload -Uz compinit && compinit -u -D && source \"$1\" && print -r -- $_comps[device-login]",
            script: script)
        #expect(loads.status == 0, "zsh: \(String(decoding: loads.stderr, as: UTF8.self))")
        #expect(loads.stderr.isEmpty, "zsh: \(String(decoding: loads.stderr, as: UTF8.self))")
        #expect(String(decoding: loads.stdout, as: UTF8.self) == "_device-login\n")
    }

    /// What zsh's completion system offers for each of `lines`, with the script installed in `$fpath`: one
    /// interactive zsh on a pseudo-terminal (zsh's own `zpty`) gets each line and a key bound to a widget that
    /// completes and then shows a marker, with `compadd` wrapped to write every match it is given to a file per
    /// line. The driver reads the terminal up to the marker, so it knows the completion has run (no sleeping, no
    /// typing ahead), then clears the line for the next.
    private static func zshCompletions(_ lines: [String], zsh: String, profiles: URL) async throws -> [Set<String>] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dl-zsh-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let script = CompletionScript.render(.zsh, commands: CLI.commands)
        try Data(script.utf8).write(to: directory.appendingPathComponent("_device-login"))
        let driver = """
            zmodload zsh/zpty
            zpty z zsh -f -i
            zpty -w z 'PROMPT=""; RPROMPT=""; fpath=(\(directory.path) $fpath); autoload -Uz compinit; compinit -u -D'
            zpty -w z 'compadd() { local -a hits; builtin compadd -O hits "$@"; print -rl -- $hits >> $hitsfile; builtin compadd "$@" }'
            zpty -w z 'completed() { zle complete-word; zle -M "COMPLETION""FINISHED" }; zle -N completed; bindkey "^X" completed'
            for (( i = 1; i <= $#; i++ )); do
                zpty -w z "hitsfile=\(directory.path)/hits.$i; print RE\"\"ADY"
                zpty -r z line '*READY*'
                zpty -n -w z "${@[i]}"$'\\C-x'
                zpty -r z line '*COMPLETIONFINISHED*'
                zpty -n -w z $'\\C-e\\C-u'
            done
            zpty -d z
            """
        let driverFile = directory.appendingPathComponent("driver.zsh")
        try Data(driver.utf8).write(to: driverFile)
        let result = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/timeout"), ["60", zsh, "-f", driverFile.path] + lines,
            environment: [
                "PATH": "/usr/bin:/bin", "HOME": directory.path, "TERM": "dumb", "DEVICE_LOGIN_HOME": profiles.path,
            ])
        #expect(result.status == 0, "zsh: \(String(decoding: result.stderr, as: UTF8.self))")
        return lines.indices.map { index in
            let file = directory.appendingPathComponent("hits.\(index + 1)")
            let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
            return Set(text.split(separator: "\n").map(String.init))
        }
    }

    @Test(
        "zsh completes commands, each command's options and values, in a real completion",
        .enabled(if: installed("zsh") != nil && FileManager.default.isExecutableFile(atPath: "/usr/bin/timeout")))
    func zshCompletes() async throws {
        let zsh = try #require(Self.installed("zsh"))
        let fixed: [(String, Set<String>)] = [
            ("device-login lo", ["login", "logout"]),
            ("device-login login --qr ", ["auto", "always", "never"]),
            ("device-login login --client-auth=", ["basic", "post"]),
            ("device-login git-credential ", ["get", "store", "erase"]),
            ("device-login completion ", ["bash", "zsh", "fish"]),
            ("device-login help ", Set(CLI.commands.map(\.name))),
        ]
        let perCommand = CLI.commands.map { command in
            ("device-login \(command.name) --", Set(command.options.map { "--" + $0.name }))
        }
        let cases = fixed + perCommand + [("device-login token --profile ", ["work", "default"])]
        let profiles = try Self.profileDirectory()
        defer { try? FileManager.default.removeItem(at: profiles) }
        let offered = try await Self.zshCompletions(
            cases.map(\.0) + ["device-login exec --profile w -- tru"], zsh: zsh, profiles: profiles)
        for ((line, expected), got) in zip(cases, offered) {
            #expect(got == expected, "zsh: \(line)")
        }
        #expect(offered.last?.contains("true") == true, "zsh: exec's command")
    }

    @Test("the bash script passes bash -n")
    func bashSyntax() async throws {
        let script = CompletionScript.render(.bash, commands: CLI.commands)
        let result = try await Self.run("/bin/bash", "bash -n \"$1\"", script: script)
        #expect(result.status == 0, "bash -n: \(String(decoding: result.stderr, as: UTF8.self))")
    }

    @Test("the scripts match their snapshots", arguments: CompletionScript.Shell.allCases)
    func snapshot(shell: CompletionScript.Shell) {
        snapshots.expect(CompletionScript.render(shell, commands: CLI.commands), matches: "completion-\(shell)")
    }

    @Test("brief: the first sentence, without its full stop")
    func brief() {
        #expect(CompletionScript.brief("Do not save the tokens.") == "Do not save the tokens")
        #expect(CompletionScript.brief("A scope. Repeat it.") == "A scope")
        #expect(CompletionScript.brief("A parameter (e.g. audience=...). More.") == "A parameter (e.g. audience=...)")
        #expect(CompletionScript.zshQuoted("it's") == "'it'\\''s'")
        #expect(CompletionScript.fishQuoted("a\\b'c") == "'a\\\\b\\'c'")
    }
}
