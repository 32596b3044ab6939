#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How the command `exec` ran ended, and the exit code that passes it on, as a shell's `$?` would show it.
enum ChildStatus: Equatable, Sendable {
    /// It exited with this status (0–255).
    case exited(Int32)
    /// A signal ended it.
    case signalled(Int32)

    /// The status `waitpid` reported, decoded as the `WIFEXITED`, `WEXITSTATUS`, `WIFSIGNALED` and `WTERMSIG`
    /// macros do (Swift does not import them; the layout is the same on Linux and macOS). Nil for a status that is
    /// neither (stopped or continued, which `waitpid` without `WUNTRACED` never reports).
    init?(waitStatus status: Int32) {
        let low = status & 0x7f
        if low == 0 {
            self = .exited((status >> 8) & 0xff)
        } else if low != 0x7f {
            self = .signalled(low)
        } else {
            return nil
        }
    }

    /// The exit code for it: the status itself, or 128 + N for signal N, as shells report it.
    var exitCode: ExitCode {
        switch self {
        case .exited(let status): return ExitCode(rawValue: status)
        case .signalled(let signal): return ExitCode(rawValue: 128 + signal)
        }
    }
}
