#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which signals `exec` passes on to its command, and which it leaves alone because the command has them already.
///
/// The command runs in device-login's process group, so whatever is sent to the group reaches it directly: Ctrl-C,
/// Ctrl-\\ and a window resize from the terminal, which the kernel sends to the whole foreground group, and a
/// `kill(0, …)` or `killpg` from inside the group. Passing those on too would deliver them twice — a Python
/// program's first Ctrl-C raising `KeyboardInterrupt` and the second interrupting its clean-up. So the rules are
/// sudo's (`exec_nopty.c`), decided from the sender the kernel reports (`siginfo_t`):
///
/// - From the kernel: SIGINT, SIGQUIT and SIGWINCH are not passed on (the terminal sent them to the command as
///   well), unless the command has left device-login's process group; SIGTERM, SIGHUP, SIGUSR1 and SIGUSR2 are.
/// - From a process: passed on, unless it is the command itself, or its process group is led by device-login or
///   by the command (a signal to the whole group, which reached the command too).
///
/// A signal sent to device-login's process ID alone (`kill PID`, `timeout`, a service manager, a script that
/// started it in the background) is always passed on.
enum SignalRelay {
    /// The signals passed on while the command runs.
    static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH]

    /// The signals the terminal sends to its whole foreground process group.
    static let fromTheTerminal: Set<Int32> = [SIGINT, SIGQUIT, SIGWINCH]

    /// Who sent a signal.
    enum Origin: Equatable, Sendable {
        /// The kernel: the terminal (Ctrl-C, Ctrl-\\, a resize, a hang-up), or another event of its own.
        case kernel
        /// A process, and its process group when it could still be looked up (nil: it has ended).
        case process(pid: pid_t, group: pid_t?)
    }

    /// The two processes a decision is about.
    struct Family: Equatable, Sendable {
        /// device-login's process ID.
        var parent: pid_t
        /// device-login's process group.
        var parentGroup: pid_t
        /// The command's process ID.
        var child: pid_t
        /// The command's process group; nil when it could not be looked up.
        var childGroup: pid_t?
    }

    /// Whether `signal`, sent by `origin`, is passed on to the command.
    static func shouldForward(_ signal: Int32, from origin: Origin, family: Family) -> Bool {
        switch origin {
        case .kernel:
            guard fromTheTerminal.contains(signal) else { return true }
            // The terminal sent it to the group; the command has it unless it moved to a group of its own.
            guard let childGroup = family.childGroup else { return false }
            return childGroup != family.parentGroup
        case .process(let pid, let group):
            if pid == family.child { return false }
            if let group, group == family.parent || group == family.child { return false }
            return true
        }
    }

    /// The origin of a signal from its `si_code` and `si_pid`: a process for `kill`, `sigqueue` and `tgkill`
    /// (`SI_USER`, `SI_QUEUE`, `SI_TKILL`) with a sender; the kernel for anything else. `group` looks a sender's
    /// process group up (`getpgid`).
    static func origin(code: Int32, pid: pid_t, group: (pid_t) -> pid_t?) -> Origin {
        #if os(Linux)
        let sentByProcess = code == Int32(SI_USER) || code == Int32(SI_QUEUE) || code == Int32(SI_TKILL)
        #else
        let sentByProcess = code == Int32(SI_USER) || code == Int32(SI_QUEUE)
        #endif
        guard sentByProcess, pid > 0 else { return .kernel }
        return .process(pid: pid, group: group(pid))
    }

    /// The process group of `pid`, or nil when there is no such process any more.
    static func processGroup(of pid: pid_t) -> pid_t? {
        let group = getpgid(pid)
        return group < 0 ? nil : group
    }
}
