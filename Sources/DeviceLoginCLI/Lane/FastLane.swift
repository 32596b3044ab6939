import DeviceLogin

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The fast lane: the answer of `token` and of the integration helpers when the stored access token is valid,
/// given before the process starts anything else — no concurrency runtime, no signal handlers, no command table,
/// no transport. git calls its helper on every fetch and kubectl its plugin on every command (issue 9, "the fast
/// path"), so this is the product's hottest path. `exec` runs its command from here too, on this one thread: the
/// only signal handler the lane installs is the C catcher that wakes its wait
/// (``ChildLauncher/runOnCallingThread(_:environment:)``).
///
/// The lane answers only what it can answer exactly as the full path would: the command's own option table and
/// parser, the store's one reader of a record (``FileTokenStore/glanceOnCallingThread(profile:)``), the same validity
/// rule (``TokenState/storedToken(_:now:lifetime:)``), the same answer formatting. Anything else —
/// no profile, a token to refresh, an option or environment variable it does not take, a file that cannot be
/// read, a profile whose client configuration is incomplete — it leaves to the full path, which then answers it,
/// errors included, as before. The lane writes nothing until it has the whole answer; what it prepared on the way
/// (the parsed options, the input it read, the request it parsed, the profile it chose) goes to the full path as the process's
/// ``Process/plan``, so leaving costs nothing done twice.
enum FastLane {
    /// What the lane reads of the process, as lookups: building the whole environment costs more than the lane's
    /// answer does.
    final class Process {
        /// The value of an environment variable (`getenv`).
        let environment: (String) -> String?
        /// The whole environment, for a command `exec` runs (``ProcessEnvironment/whole()``).
        let wholeEnvironment: () -> [String: String]
        /// Standard output.
        let stdout: ResultSink
        /// Standard error, for `exec`'s report of a command it could not start.
        let stderr: TextSink
        /// The time now.
        let now: Date
        /// What the lane prepared for the command so far: the full path, when the lane leaves the answer to it,
        /// starts from there (``CLIContext/plan``).
        private(set) var plan: CommandPlan?
        private let input: StandardInput

        init(
            environment: @escaping (String) -> String?, stdin: StandardInput, stdout: ResultSink, now: Date,
            wholeEnvironment: @escaping () -> [String: String] = ProcessEnvironment.whole,
            stderr: TextSink = .fileDescriptor(2)
        ) {
            self.environment = environment
            self.wholeEnvironment = wholeEnvironment
            self.input = stdin
            self.stdout = stdout
            self.stderr = stderr
            self.now = now
        }

        /// Reads standard input as ``StandardInput/read(limit:until:)`` does, on this thread, once: the read, or its
        /// failure, is the plan's input. Nil when reading fails (the full path reports it).
        func readInput(limit: Int, until isComplete: ([UInt8]) -> Bool) -> StandardInput.Read? {
            let read = Result { try input.readOnCallingThread(limit: limit, until: isComplete) }
            plan?.input = read
            return try? read.get()
        }

        /// Parses the command's request from the environment with `parse`, once: the request, or why it could not
        /// be parsed, is the plan's. Nil when parsing fails (the full path reports it).
        func parseRequest<Request: Sendable>(_ parse: () throws -> Request) -> Request? {
            let parsed = Result { try parse() }
            plan?.request = parsed.map { $0 as any Sendable }
            return try? parsed.get()
        }

        /// Starts the plan for `command` with its options as parsed.
        fileprivate func beginPlan(_ command: String, options: Result<ParsedOptions, any Error>) {
            plan = CommandPlan(command: command, options: options)
        }

        /// Keeps the record `glance` holds in the plan: the profile the command answers for. Only a whole one: a
        /// glance of only the access token (a Secret Service profile's, without its refresh or ID token) has none,
        /// and the full path reads the record itself.
        fileprivate func chose(_ glance: ProfileGlance) {
            guard let record = glance.record else { return }
            plan?.record = record
        }
    }

    /// An answer: what to write on stdout and the exit code. `exec`'s has no text: its command has run, and the
    /// answer is its exit code.
    struct Answer: Equatable {
        var text: String = ""
        var code: ExitCode = .success
    }

    /// The options `spec` was given, when they are only those in `allowed` (by option name); nil for anything
    /// else, a usage error included (the full path reports it). (An array, not a `Set`: a set of strings is
    /// generic metadata made at run time, which costs the lane a tenth of its time.)
    static func options(_ arguments: [String], for spec: CommandSpec, allowing allowed: [String], process: Process)
        -> ParsedOptions?
    {
        var environment: [String: String] = [:]
        for option in spec.options {
            if let variable = option.environmentVariable, let value = process.environment(variable) {
                environment[variable] = value
            }
        }
        let parsed = Result<ParsedOptions, any Error> {
            try ArgumentParser.parse(
                arguments, options: spec.options, command: spec.name, environment: environment,
                maximumPositionals: spec.maximumPositionals)
        }
        process.beginPlan(spec.name, options: parsed)
        guard let options = try? parsed.get() else { return nil }
        for option in spec.options where options.has(option.name) && !allowed.contains(option.name) { return nil }
        return options
    }

    /// The store the environment names; nil when it names none (the full path says why).
    static func store(_ process: Process) -> FileTokenStore? {
        var environment: [String: String] = [:]
        for name in FileTokenStore.environmentVariables {
            if let value = process.environment(name) { environment[name] = value }
        }
        return try? FileTokenStore(environment: environment)
    }

    /// The stored access token of the profile `--profile` names (default `default`), when it stays valid for
    /// `lifetime` or the refresh margin, the longer; nil when the full path must run.
    static func storedToken(_ options: ParsedOptions, lifetime: Duration = .zero, process: Process)
        -> (token: String, expiresAt: Date?)?
    {
        guard let store = store(process),
            let glance = try? store.glanceOnCallingThread(profile: options.value("profile") ?? Profile.defaultName)
        else { return nil }
        process.chose(glance)
        return storedToken(glance, lifetime: lifetime, process: process)
    }

    /// The profile that serves `url`, as ``HelperSession/open(_:serving:command:context:)`` finds it: the one
    /// `--profile` names, else the one ``ProfileChoice`` chooses: the one rule both paths follow, over the same
    /// normalised ``URLBinding``s, with records read by the store's one reader.
    /// - Returns: `.some(nil)` when no profile serves `url`; nil when the full path must answer (a profile that
    ///   cannot be read, which the full path skips with a warning; two that tie, which it refuses; plain `http` off
    ///   loopback for a `--profile` that does not allow it, which it refuses).
    static func profile(_ options: ParsedOptions, serving url: URLBinding, process: Process) -> ProfileGlance?? {
        guard let store = store(process) else { return nil }
        if let name = options.value("profile") {
            guard let glance = try? store.glanceOnCallingThread(profile: name) else { return nil }
            process.chose(glance)
            guard !(url.isPlainHTTPOffLoopback && !glance.profile.allowInsecureHTTP) else { return nil }
            return .some(glance)
        }
        guard let names = try? store.profileNamesOnCallingThread() else { return nil }
        var glances: [ProfileGlance] = []
        for name in names {
            // A record that cannot be read: the full path skips it with a warning, so the lane leaves it that.
            guard let glance = try? store.glanceOnCallingThread(profile: name) else { return nil }
            glances.append(glance)
        }
        switch ProfileChoice(serving: url, among: glances.map { ($0.profile.name, $0.profile.bindings) }) {
        case .none: return .some(nil)
        case .profile(let name):
            guard let glance = glances.first(where: { $0.profile.name == name }) else { return nil }
            process.chose(glance)
            return .some(glance)
        case .tie: return nil
        }
    }

    /// The access token `glance` holds, when it stays valid for `lifetime` or the refresh margin, the longer.
    static func storedToken(_ glance: ProfileGlance, lifetime: Duration, process: Process)
        -> (token: String, expiresAt: Date?)?
    {
        // The one rule, shared with the C library's dl_token.
        TokenState.storedToken(glance, now: process.now, lifetime: lifetime)
    }
}
