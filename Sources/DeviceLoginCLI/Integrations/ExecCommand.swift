import DeviceLogin

/// `device-login exec [--profile P] [--env NAME] -- COMMAND [ARG…]`: runs COMMAND with a fresh access token in the
/// environment variable NAME, passes signals on to it, and exits with its status.
///
/// The token is in the command's environment, which on Linux only the same user (and root) can read, never in any
/// process's arguments, which every user sees in `ps`. The command is run and waited for by ``ChildLauncher``.
enum ExecCommand {
    /// The variable that holds the token when `--env` is not given.
    static let defaultVariable = ChildEnvironment.tokenVariable
    /// The variable that holds the DPoP proof `--dpop-url` asks for.
    static let proofVariable = ChildEnvironment.proofVariable
    /// The most words COMMAND and its arguments may have (each at most ``ArgumentParser/maximumArgumentLength``
    /// bytes; the kernel's own limit on the whole is about 2 MB).
    static let maximumWords = 65_536
    /// The longest variable name accepted.
    static let maximumNameLength = 255

    static let spec = CommandSpec(
        name: "exec",
        summary: "Run a command with a fresh access token in its environment.",
        positionalSynopsis: "-- COMMAND [ARG...]",
        maximumPositionals: maximumWords,
        options: HelperSession.options + [
            .value(
                "env", "NAME",
                "The environment variable that holds the token (default \(defaultVariable)): letters, digits and"
                    + " _, not starting with a digit; not one the loader or a shell reads (PATH, LD_*, IFS, ...)."),
            .value(
                "dpop-url", "URL",
                "For a profile signed in with --dpop: put a DPoP proof for a request to this URL in"
                    + " \(proofVariable)."),
            .value("dpop-method", "METHOD", "The method of that request, for the proof (default GET)."),
        ],
        discussion: """
            Runs COMMAND, looked up in PATH, with the access token in an environment variable and the
            rest of the environment as it is. stdin, stdout and stderr are the command's: device-login
            prints nothing of its own unless something fails. The token is valid for at least 60 s when
            the command starts (refreshed first when it would not be), and is in no command line, where
            `ps` would show it to every user:
              device-login exec -- ./sync.py           (reads $DEVICE_LOGIN_ACCESS_TOKEN)
              device-login exec --profile work --env GITLAB_TOKEN -- ./deploy.sh prod
            SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 and SIGWINCH are passed on to COMMAND
            (Ctrl-C and a resize from the terminal reach it directly, once). device-login waits for it and
            exits with its status, or 128 + N when signal N ended it; 127 when COMMAND is not found, 126
            when it cannot be run. Without a usable sign-in it fails at once (exit 77) and runs nothing.
            For a profile signed in with --dpop, the token is DPoP-bound: send it as `Authorization: DPoP
            <token>` with a `DPoP: <proof>` header. --dpop-url (and --dpop-method, unless GET) puts a proof
            for that request in $DEVICE_LOGIN_DPOP_PROOF. A proof is good for that one request, once, for
            about a minute, so this suits a command that makes one request; for more, have it run
            `device-login dpop-proof` before each:
              device-login exec --dpop-url https://api.example.com/v1/items -- ./fetch.sh
            """,
        exitCodes: ExitCode.session + [ExitCode(rawValue: 126), ExitCode(rawValue: 127)],
        exitMeanings: [
            ExitCode(rawValue: 126): "COMMAND was found but cannot be run",
            ExitCode(rawValue: 127): "COMMAND is not found",
        ],
        run: run
    )

    @Sendable static func run(_ options: ParsedOptions, _ context: CLIContext) async throws -> ExitCode {
        let name = try variableName(options.value("env"))
        let command = try commandWords(options)
        let target = try proofTarget(options, variable: name)
        let session = try await HelperSession.open(options, command: "exec", context: context)
        // No secret of device-login's, and only a token and a proof made for this run.
        var environment = ChildEnvironment.forChild(context.environment)
        if let target {
            try session.requireDPoP(for: "--dpop-url")
            let authorization = try await session.authorization(for: target)
            try BearerToken.check(authorization.accessToken, for: "an environment variable")
            environment[name] = authorization.accessToken
            environment[proofVariable] = authorization.proof
        } else {
            let (token, _) = try await session.freshToken()
            try BearerToken.check(token, for: "an environment variable")
            environment[name] = token
        }
        context.trace("exec", "running \(command[0]) with the access token in \(name)")
        return try await launch(command, environment: environment, context: context)
    }

    /// The request `--dpop-url` and `--dpop-method` name, for the proof; nil without them.
    /// - Throws: ``UsageError`` for a target ``RequestTarget`` refuses, or `--env` naming the proof's variable.
    static func proofTarget(_ options: ParsedOptions, variable name: String) throws -> RequestTarget? {
        let target = try RequestTarget.read(options, url: "dpop-url", method: "dpop-method", command: "exec")
        if target != nil, name == proofVariable {
            throw UsageError("--env cannot be \(proofVariable), which holds the DPoP proof", command: "exec")
        }
        return target
    }

    /// Runs `command` with `environment` on the full path (``ChildLauncher/run(_:environment:)``), and gives its
    /// exit code: the stored token's run, and the agent's (``AgentLane``).
    static func launch(_ command: [String], environment: [String: String], context: CLIContext) async throws
        -> ExitCode
    {
        do {
            let status = try await ChildLauncher.run(command, environment: environment)
            context.trace("exec", "\(command[0]) ended: exit code \(status.exitCode.rawValue)")
            return status.exitCode
        } catch let error as CommandNotStarted {
            context.report(error.message)
            return error.exitCode
        }
    }

    /// The run from the stored token, for ``FastLane``: `--profile` and `--env` only, a bearer token. The command
    /// runs on the calling thread (``ChildLauncher/runOnCallingThread(_:environment:)``), with the environment the
    /// full path gives it; the answer is its exit code, with nothing for stdout.
    static func fastAnswer(_ arguments: [String], process: FastLane.Process) -> FastLane.Answer? {
        guard let options = FastLane.options(arguments, for: spec, allowing: ["profile", "env"], process: process),
            let name = try? variableName(options.value("env")),
            let command = try? commandWords(options),
            let (token, _) = FastLane.storedToken(options, lifetime: HelperSession.minimumLifetime, process: process),
            (try? BearerToken.check(token, for: "an environment variable")) != nil
        else { return nil }
        return runOnLane(command, variables: [name: token], process: process)
    }

    /// Runs `command` with `variables` (the token, and a proof) added to its environment, on the lane's thread (the
    /// stored token's answer, and the agent's).
    static func runOnLane(_ command: [String], variables: [String: String], process: FastLane.Process)
        -> FastLane.Answer
    {
        var environment = ChildEnvironment.forChild(process.wholeEnvironment())
        environment.merge(variables) { $1 }
        switch ChildLauncher.runOnCallingThread(command, environment: environment) {
        case .success(let status):
            return FastLane.Answer(code: status.exitCode)
        case .failure(let error as CommandNotStarted):
            process.stderr.line("device-login: " + TerminalText.clean(error.message))
            return FastLane.Answer(code: error.exitCode)
        case .failure(let error):
            // As the full path reports an error it has no words of its own for.
            process.stderr.line("device-login: " + TerminalText.clean(String(describing: error)))
            return FastLane.Answer(code: .failure)
        }
    }

    /// The variable `--env` names (default ``defaultVariable``): a POSIX name — ASCII letters, digits and `_`, not
    /// starting with a digit, at most ``maximumNameLength`` bytes — that neither the dynamic loader nor a shell
    /// interprets (``isInterpreted(_:)``).
    /// - Throws: ``UsageError`` for anything else (`=` or a NUL would cut the variable short, a space or a dash
    ///   would make one no shell can read). An invalid name is not repeated: it may be a value pasted by mistake.
    static func variableName(_ given: String?) throws -> String {
        guard let given else { return defaultVariable }
        let bytes = Array(given.utf8)
        let valid =
            (1...maximumNameLength).contains(bytes.count)
            && bytes.allSatisfy { isLetter($0) || isDigit($0) || $0 == UInt8(ascii: "_") }
            && !isDigit(bytes[0])
        guard valid else {
            throw UsageError(
                "--env must name an environment variable (letters, digits and _, not starting with a digit)",
                command: "exec")
        }
        guard !isInterpreted(given) else {
            throw UsageError(
                "--env cannot be \(given): the dynamic loader, the C library or a shell reads that variable, and"
                    + " would act on the token (load it as a library, run it, print it); name a variable of the"
                    + " command's own, such as API_TOKEN",
                command: "exec")
        }
        return given
    }

    /// Variables the dynamic loader, glibc or a shell act on, by exact name: glibc's "unsecure" list (the ones
    /// `ld.so` drops for setuid programs: `GCONV_PATH`, `LOCPATH`, `NLSPATH`, `TMPDIR`, …), the locale and time
    /// zone ones it loads files for, and what POSIX sh, bash and zsh read at start or before every command.
    static let interpretedNames = [
        "PATH", "HOME", "IFS", "ENV", "CDPATH", "SHELLOPTS", "BASHOPTS", "GLOBIGNORE", "PROMPT_COMMAND", "PS1", "PS2",
        "PS3", "PS4", "FPATH", "ZDOTDIR", "MAIL", "MAILPATH", "SHELL", "GCONV_PATH", "GETCONF_DIR", "HOSTALIASES",
        "LOCALDOMAIN", "LOCPATH", "NIS_PATH", "NLSPATH", "RESOLV_HOST_CONF", "RES_OPTIONS", "TMPDIR", "TZ",
        "TZDIR", "LANG", "LANGUAGE",
    ]

    /// Prefixes of families of such variables: the loader's (`LD_PRELOAD`, `LD_AUDIT`, `LD_DEBUG_OUTPUT`, …; macOS's
    /// `DYLD_`), malloc's and glibc's tunables, the locale categories, and bash's (`BASH_ENV`, exported functions).
    static let interpretedPrefixes = ["LD_", "DYLD_", "MALLOC_", "GLIBC_", "LC_", "BASH_"]

    /// Whether `name` is a variable the dynamic loader, the C library or a shell interprets: a token put there
    /// would be read as a path, a library, options or code — and `ld.so` prints what it cannot load, the token
    /// included, on stderr.
    static func isInterpreted(_ name: String) -> Bool {
        interpretedNames.contains(name) || interpretedPrefixes.contains { name.hasPrefix($0) }
    }

    /// COMMAND and its arguments: the words after `--`.
    /// - Throws: ``UsageError`` when there is no command, or it is not after `--` (where `-x` would be taken for
    ///   an option of device-login's).
    static func commandWords(_ options: ParsedOptions) throws -> [String] {
        guard let first = options.positionals.first else {
            throw UsageError(
                "exec needs a command: device-login exec [options] -- COMMAND [ARG...]", command: "exec")
        }
        let afterSeparator = options.arguments.drop { $0 != "--" }.dropFirst()
        guard afterSeparator.elementsEqual(options.positionals) else {
            throw UsageError(
                "put -- before the command: device-login exec [options] -- \(first) ...", command: "exec")
        }
        return options.positionals
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}
