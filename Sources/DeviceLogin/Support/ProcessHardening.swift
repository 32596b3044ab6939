import CProcessHardening

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeps the memory of a process that holds credentials out of core files, debuggers of the same user, and crash
/// reports.
///
/// Tokens, refresh tokens and client secrets live in memory as plain text. A core file written on a crash, or
/// another process of the same user attaching with `ptrace` or reading `/proc/PID/mem`, would hand all of them
/// over. Call ``apply()`` first thing in `main`, before any secret is read:
///
/// ```swift
/// let state = ProcessHardening.apply()
/// if !state.isHardened { print("warning: \(state)") }
/// ```
///
/// What it sets, per platform:
/// - **Linux**: `RLIMIT_CORE` 0 (soft and hard, so the process cannot raise it again) and
///   `prctl(PR_SET_DUMPABLE, 0)`. A process that is not dumpable writes no core file, even where the core pattern
///   pipes cores to a collector that ignores `RLIMIT_CORE`, and only root (`CAP_SYS_PTRACE`) may attach to it or
///   read its `/proc/PID/mem`. `execve` resets the dumpable attribute; the limit is inherited by child processes.
/// - **macOS**: `RLIMIT_CORE` 0 only. There is no dumpable attribute; whether another process may read this one's
///   memory is decided by `task_for_pid` rules (a debugger needs the user's consent, root, or a binary signed
///   with `get-task-allow`).
///
/// The Swift runtime's own crash catcher is a separate matter: see ``removeCrashHandlers()``.
public enum ProcessHardening {
    /// What protects the process, as read back from the kernel.
    public struct State: Sendable, Equatable, CustomStringConvertible {
        /// The soft limit on the size of a core file (`RLIMIT_CORE`), in bytes; nil when it could not be read.
        public var coreFileSoftLimit: UInt64?
        /// The hard limit on the size of a core file (`RLIMIT_CORE`), in bytes; nil when it could not be read.
        public var coreFileHardLimit: UInt64?
        /// Whether the process is dumpable (`PR_GET_DUMPABLE`, Linux); nil where there is no such attribute.
        public var isDumpable: Bool?

        /// Creates a state.
        public init(coreFileSoftLimit: UInt64?, coreFileHardLimit: UInt64?, isDumpable: Bool?) {
            self.coreFileSoftLimit = coreFileSoftLimit
            self.coreFileHardLimit = coreFileHardLimit
            self.isDumpable = isDumpable
        }

        /// Whether no core file can be written and, where the platform has the attribute, the process is not
        /// dumpable.
        public var isHardened: Bool {
            coreFileSoftLimit == 0 && coreFileHardLimit == 0 && isDumpable != true
        }

        /// `core file limit 0/0, dumpable no`: the state in a few words.
        public var description: String {
            func limit(_ value: UInt64?) -> String {
                guard let value else { return "unknown" }
                // RLIM_INFINITY: all ones on Linux, 2^63 - 1 on macOS.
                return value >= UInt64(Int64.max) ? "unlimited" : String(value)
            }
            let dumpable = isDumpable.map { $0 ? "yes" : "no" } ?? "not applicable"
            return "core file limit \(limit(coreFileSoftLimit))/\(limit(coreFileHardLimit)), dumpable \(dumpable)"
        }
    }

    /// The signals on which the Swift runtime's crash catcher runs (its `Backtracing` documentation lists them).
    public static let crashSignals: [Int32] = [SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGFPE, SIGBUS, SIGSEGV]

    /// Sets the core file limit to 0 and, on Linux, makes the process not dumpable; returns the state read back.
    ///
    /// Idempotent and cheap (three system calls each way). It does not throw: a platform or sandbox that refuses a
    /// setting shows in the returned state, and the caller decides whether to warn or stop.
    @discardableResult
    public static func apply() -> State {
        var none = rlimit(rlim_cur: 0, rlim_max: 0)
        _ = setrlimit(coreResource, &none)
        _ = dl_set_dumpable(0)
        return current()
    }

    /// The state of the running process, changing nothing.
    public static func current() -> State {
        var limit = rlimit()
        let readLimit = getrlimit(coreResource, &limit) == 0
        let dumpable = dl_get_dumpable()
        return State(
            coreFileSoftLimit: readLimit ? UInt64(limit.rlim_cur) : nil,
            coreFileHardLimit: readLimit ? UInt64(limit.rlim_max) : nil,
            isDumpable: dumpable < 0 ? nil : dumpable != 0
        )
    }

    /// Puts the default action back on every signal in ``crashSignals``, replacing the Swift runtime's crash
    /// catcher: a crash then ends the process at once, and nothing is printed but the runtime's one-line
    /// `Fatal error: …` message.
    ///
    /// The catcher (on by default on Linux, `SWIFT_BACKTRACE`) prints the registers of the crashed thread and 16
    /// bytes of memory at every register that points to readable memory; on a terminal it offers to start a
    /// debugger. A token or secret near the crash can be among those bytes. The runtime reads `SWIFT_BACKTRACE`
    /// when the process starts, so the only way to turn it off from inside is to replace its handlers. Call this
    /// before installing handlers of your own for these signals; whatever handler is installed is replaced.
    public static func removeCrashHandlers() {
        for number in crashSignals {
            signal(number, SIG_DFL)
        }
    }

    #if canImport(Glibc)
    private static let coreResource = __rlimit_resource_t(RLIMIT_CORE.rawValue)
    #else
    private static let coreResource = RLIMIT_CORE
    #endif
}
