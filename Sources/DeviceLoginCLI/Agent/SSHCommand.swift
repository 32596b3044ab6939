import DeviceLogin

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `device-login ssh [ssh options] HOST [COMMAND...]`: `ssh` with the agent forwarded into the session
/// (docs/agent.md): a new remote socket path, `-R PATH:$DEVICE_LOGIN_AGENT_SOCK`, and `DEVICE_LOGIN_AGENT_SOCK` set
/// in the remote session by a prefix of the remote command — a stock sshd accepts no `SetEnv` of it.
enum SSHCommand {
    static let name = "ssh"

    static let spec = CommandSpec(
        name: name,
        summary: "ssh with the agent forwarded: the remote helpers get tokens from this host's agent.",
        positionalSynopsis: "[SSH-OPTION...] HOST [COMMAND...]",
        maximumPositionals: 4096,
        options: [],
        discussion: """
            Runs ssh with -o ExitOnForwardFailure=yes -R REMOTE:$DEVICE_LOGIN_AGENT_SOCK, REMOTE being a
            new path /tmp/device-login-agent-<random>.sock, and sets DEVICE_LOGIN_AGENT_SOCK=REMOTE in the
            remote session: before COMMAND, or for the login shell it starts on a terminal (-t) without one.
            Every ssh option is passed on as given. The remote shell must be a POSIX shell.
              device-login ssh build.example.com
              device-login ssh -p 2222 build.example.com git pull
            Without DEVICE_LOGIN_AGENT_SOCK it fails at once (exit 77): start an agent first.
            """,
        exitCodes: [.notSignedIn, .configuration],
        exitMeanings: [ExitCode(rawValue: 127): "ssh is not installed (its own exit status otherwise)"],
        run: run
    )

    /// ssh's options that take a value (ssh(1)); its other letters are flags.
    static let valueLetters = Set("BbcDEeFIiJLlmOoPpQRSWw")
    static let flagLetters = Set("46AaCfGgKkMNnqsTtVvXxYy")

    /// What to run: ssh's `argv`.
    struct Plan: Equatable {
        var arguments: [String]
        var remoteSocket: String
    }

    /// ssh's `argv` for `words` (what followed `device-login ssh`), forwarding `socket` to `remoteSocket`.
    /// - Throws: ``UsageError`` when `words` names no host, or has an option ssh does not know.
    static func plan(_ words: [String], socket: String, remoteSocket: String) throws(UsageError) -> Plan {
        var options: [String] = []
        var index = 0
        var host: String?
        while index < words.count, host == nil {
            let word = words[index]
            index += 1
            if word == "--" {
                guard index < words.count else { break }
                host = words[index]
                index += 1
            } else if word.hasPrefix("-"), word.count > 1 {
                options.append(word)
                for (offset, letter) in word.dropFirst().enumerated() {
                    if valueLetters.contains(letter) {
                        // The value follows in this word, or is the next one.
                        if offset == word.count - 2 {
                            guard index < words.count else {
                                throw UsageError("ssh's -\(letter) needs a value", command: name)
                            }
                            options.append(words[index])
                            index += 1
                        }
                        break
                    }
                    guard flagLetters.contains(letter) else {
                        throw UsageError("unknown ssh option '-\(letter)'", command: name)
                    }
                }
            } else {
                host = word
            }
        }
        guard let host else { throw UsageError("give the host to connect to", command: name) }
        let command = Array(words[index...])
        let prefix = "\(AgentSocket.variable)=\(remoteSocket); export \(AgentSocket.variable); "
        let remote =
            command.isEmpty ? prefix + "exec \"${SHELL:-/bin/sh}\" -l" : prefix + command.joined(separator: " ")
        return Plan(
            arguments: ["ssh"] + options + ["-o", "ExitOnForwardFailure=yes", "-R", "\(remoteSocket):\(socket)"]
                + (command.isEmpty ? ["-t"] : []) + ["--", host, remote],
            remoteSocket: remoteSocket)
    }

    /// A new remote socket path: 64 random bits in hex, so that no two sessions share one.
    static func remoteSocketPath() -> String {
        let random = String(UInt64.random(in: .min ... .max), radix: 16)
        return "/tmp/device-login-agent-" + String(repeating: "0", count: 16 - random.count) + random + ".sock"
    }

    @Sendable static func run(_ options: ParsedOptions, _ context: CLIContext) async throws -> ExitCode {
        let outcome = start(options.arguments, socket: context.environment[AgentSocket.variable])
        context.report(outcome.message)
        return outcome.code
    }

    /// ssh run from the fast lane (ssh's options are not this command's, so its parser never sees them); nil for
    /// `--help`, which the full path shows.
    static func fastAnswer(_ words: [String], process: FastLane.Process) -> FastLane.Answer? {
        guard words.first != "--help" else { return nil }
        let outcome = start(words, socket: process.environment(AgentSocket.variable))
        process.stderr.line("device-login: " + TerminalText.clean(outcome.message))
        return FastLane.Answer(code: outcome.code)
    }

    /// Replaces the process with ssh; returns only when it could not, with what to say.
    private static func start(_ words: [String], socket: String?) -> (message: String, code: ExitCode) {
        guard let socket, !socket.isEmpty else {
            return (
                "ssh: \(AgentSocket.variable) is not set: start an agent first (device-login agent) and set it",
                .notSignedIn
            )
        }
        guard !socket.contains(":") else {
            return ("ssh: the agent's socket path has a ':', which ssh -R cannot forward", .configuration)
        }
        let plan: Plan
        do {
            plan = try self.plan(words, socket: socket, remoteSocket: remoteSocketPath())
        } catch {
            return (error.message, .usage)
        }
        let failure = Executable.replaceProcess(path: "ssh", arguments: plan.arguments, searchingPATH: true)
        return (
            "ssh: cannot run ssh: " + String(cString: strerror(failure)),
            failure == ENOENT ? ExitCode(rawValue: 127) : ExitCode(rawValue: 126)
        )
    }
}
