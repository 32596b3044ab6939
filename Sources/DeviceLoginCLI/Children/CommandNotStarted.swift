#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The command `exec` was given could not be started. The exit codes are a shell's: 127 when nothing by that name
/// was found ("command not found"), 126 when it was found but cannot be run (not executable, a directory, a script
/// whose interpreter is missing, an argument list too long).
struct CommandNotStarted: Error, Equatable, Sendable {
    /// The command as given (its first word).
    let command: String
    /// The error number `posix_spawnp` returned.
    let number: Int32
    /// Whether the command names a file that exists (so an ENOENT came from its `#!` interpreter).
    let exists: Bool

    /// For `command`, which `posix_spawnp` refused with `number`.
    init(command: String, number: Int32, exists: Bool = false) {
        self.command = command
        self.number = number
        self.exists = exists
    }

    private var notFound: Bool { number == ENOENT && !exists }

    /// 127 when nothing by that name was found, 126 when it could not be run.
    var exitCode: ExitCode {
        ExitCode(rawValue: notFound ? 127 : 126)
    }

    /// One line for stderr (without the `device-login: ` prefix).
    var message: String {
        if notFound {
            return command.contains("/") ? "exec: \(command): no such file" : "exec: \(command): command not found"
        }
        if number == ENOENT { return "exec: cannot run \(command): its interpreter (#!) was not found" }
        return "exec: cannot run \(command): " + String(cString: strerror(number))
    }
}
