#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How `device-login demo` reaches the demo server: it replaces itself (`execv`) with `device-login-demo`, found
/// beside its own executable, and hands over the same command line. The process, its streams, its environment and
/// its Ctrl-C stay what they were; only the program changes. The server lives in that separate program so that
/// the `device-login` users install links no testing kit: no socket server, no HTML page, no SHA-256.
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

    /// Hands `demo` and its words over to `device-login-demo`; returns only when that program cannot be started.
    /// - Returns: ``ExitCode/unavailable`` (EX_UNAVAILABLE: a support program does not exist), after saying why.
    func run(_ options: ParsedOptions, context: CLIContext) -> ExitCode {
        guard let own = executablePath() else {
            context.report(
                "cannot find where device-login itself is, to start \(Self.programName) beside it",
                hint: "run the demo server directly: \(Self.programName) demo"
            )
            return .unavailable
        }
        let path = Self.path(besides: own)
        let failure = replaceProcess(path, [path, "demo"] + options.arguments)
        if failure == ENOENT {
            context.report(
                "the demo server is a separate program, \(Self.programName); there is none at "
                    + TerminalText.clean(path),
                hint: "build it with `swift build --product \(Self.programName)` and keep it beside device-login"
            )
        } else {
            context.report(
                "could not start the demo server \(TerminalText.clean(path)): " + String(cString: strerror(failure))
            )
        }
        return .unavailable
    }

    /// `device-login-demo` in the directory of the executable at `executable`.
    static func path(besides executable: String) -> String {
        guard let slash = executable.lastIndex(of: "/") else { return programName }
        return String(executable[...slash]) + programName
    }
}
