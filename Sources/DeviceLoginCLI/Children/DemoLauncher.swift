#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How `device-login demo` reaches the demo server: it replaces itself (`execv`) with `device-login-demo`, found
/// beside its own executable, and hands over the same command line. The process, its streams, its environment and
/// its Ctrl-C stay what they were; only the program changes. The server lives in that separate program so that
/// the `device-login` users install links no testing kit: no socket server, no HTML page, no SHA-256. So the demo
/// comes with a source build (`swift build`, `Scripts/demo.sh`), not with `Scripts/install.sh` or a package; where
/// the program is missing, `demo` says so and exits 127, as a shell does for a command it cannot find (126 when it
/// is there but cannot be run) — not 69, which means the network or the server failed.
struct DemoLauncher: Sendable {
    /// The demo server's program, beside `device-login`.
    static let programName = "device-login-demo"

    /// The path of the running executable, or nil when it cannot be found.
    var executablePath: @Sendable () -> String?
    /// Replaces the process with the program at the path, with the given `argv` (its first word included).
    /// Returns only when that failed, with the `errno` of the failure.
    var replaceProcess: @Sendable (_ path: String, _ arguments: [String]) -> Int32

    /// The real process: its executable's path and `execv`.
    static let live = DemoLauncher(
        executablePath: { Executable.currentPath() },
        replaceProcess: { Executable.replaceProcess(path: $0, arguments: $1) }
    )

    /// The demo program is not beside `device-login` (127, the shell's "command not found").
    static let notInstalled = ExitCode(rawValue: 127)
    /// The demo program is there but cannot be run (126, the shell's "cannot execute").
    static let cannotRun = ExitCode(rawValue: 126)
    /// What ``notInstalled`` and ``cannotRun`` mean, for `demo --help`.
    static let exitMeanings = [
        notInstalled: "the demo server, \(programName), is not beside device-login: it comes with a source build",
        cannotRun: "\(programName) is there but cannot be run",
    ]

    /// What to do when the demo program is missing: the demo comes with a source build.
    static let sourceBuildHint =
        "the demo comes with a source build, not with install.sh: in a clone of the repository run"
        + " `bash Scripts/demo.sh`, or `swift build --product \(programName)` and put it beside device-login"

    /// Hands `demo` and its words over to `device-login-demo`; returns only when that program cannot be started.
    /// - Returns: ``notInstalled`` when it is not there (or where `device-login` is cannot be found),
    ///   ``cannotRun`` when it is there but cannot be run, after saying why.
    func run(_ options: ParsedOptions, context: CLIContext) -> ExitCode {
        guard let own = executablePath() else {
            context.report(
                "cannot find where device-login itself is, to start \(Self.programName) beside it",
                hint: "run the demo server directly: \(Self.programName) demo"
            )
            return Self.notInstalled
        }
        let path = Self.path(besides: own)
        let failure = replaceProcess(path, [path, "demo"] + options.arguments)
        if failure == ENOENT {
            context.report(
                "the demo needs its server, \(Self.programName), which is not installed: there is none at "
                    + TerminalText.clean(path),
                hint: Self.sourceBuildHint
            )
            return Self.notInstalled
        }
        context.report(
            "could not start the demo server \(TerminalText.clean(path)): " + String(cString: strerror(failure))
        )
        return Self.cannotRun
    }

    /// `device-login-demo` in the directory of the executable at `executable`.
    static func path(besides executable: String) -> String {
        guard let slash = executable.lastIndex(of: "/") else { return programName }
        return String(executable[...slash]) + programName
    }
}
