import CExec
import DeviceLogin

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `login --notify-command CMD`: runs CMD once through `/bin/sh -c` when the code is ready, with the
/// `authorization` event line on its standard input, so that a headless box can send the code to a person's phone
/// or chat.
///
/// - The command gets the event line (sanitised, without the device code or any token) and then end of file on
///   stdin, and device-login's environment without its secrets (``ChildEnvironment``); its stdout and stderr are
///   device-login's stderr (stdout carries only the result or the events); no other descriptor (every one from 3 up
///   is closed, as ``ChildLauncher`` does).
/// - It runs in a process group of its own, with no signal blocked and SIGPIPE at its default action, and has
///   ``limit`` to end: then the whole group is killed (SIGKILL), so a shell's children go too. Cancelling the
///   sign-in (Ctrl-C) kills it at once.
/// - How it ended is the ``Outcome``; a failure (a non-zero exit, a signal, the time limit, a command that could not
///   be started) is for the caller to report: it never stops the sign-in.
struct NotifyHook: Sendable {
    /// How the hook ended.
    enum Outcome: Equatable, Sendable {
        /// It ended by itself with this status (0 is success; `/bin/sh` says 127 for a command not found).
        case exited(Int32)
        /// A signal ended it (not ours).
        case signalled(Int32)
        /// It did not end within the limit, and was killed.
        case timedOut
        /// It could not be started: the error number.
        case notStarted(Int32)
        /// It ended, but how could not be read (another part of the process reaped it).
        case statusLost
    }

    /// The time the command has by default.
    static let defaultLimit = Duration.seconds(10)

    /// The command, for `/bin/sh -c`.
    let command: String
    /// The time it has to end.
    var limit = NotifyHook.defaultLimit
    /// The clock the limit is measured on: the real one in the tool (the hook is a real process), a manual one in
    /// tests.
    var clock: any Clock<Duration> = SystemTime.clock

    /// Runs the command with `input` on its stdin and `environment` as its environment, less the variables that
    /// carry device-login's secrets (``ChildEnvironment``), and waits until it ends or its time is up.
    func run(input: String, environment: [String: String]) async -> Outcome {
        #if os(Linux)
        let pid: pid_t
        switch Self.spawn(command, input: input, environment: ChildEnvironment.forChild(environment)) {
        case .failure(let error): return .notStarted(error.number)
        case .success(let child): pid = child
        }
        let limit = limit
        let clock = clock
        let timedOut = await withTaskCancellationHandler {
            await withTaskGroup(of: Bool.self) { group in
                group.addTask { await Self.waitForEnd(of: pid) }
                group.addTask {
                    do {
                        try await clock.sleep(for: limit)
                        return true
                    } catch {
                        return false
                    }
                }
                let first = await group.next() ?? false
                // The command has not been reaped yet (waitid with WNOWAIT): its process group cannot be reused.
                if first { kill(-pid, SIGKILL) }
                group.cancelAll()
                await group.waitForAll()
                return first
            }
        } onCancel: {
            kill(-pid, SIGKILL)
        }
        let status = Self.reap(pid)
        if timedOut { return .timedOut }
        switch status {
        case .exited(let code)?: return .exited(code)
        case .signalled(let number)?: return .signalled(number)
        case nil: return .statusLost
        }
        #else
        return .notStarted(ENOSYS)
        #endif
    }

    /// What to say on stderr about `outcome`; nil when the command succeeded.
    static func report(_ outcome: Outcome, limit: Duration = defaultLimit) -> String? {
        let name = "device-login: warning: --notify-command"
        switch outcome {
        case .exited(0):
            return nil
        case .exited(127):
            return name + " failed: the command was not found (exit status 127); the sign-in goes on"
        case .exited(let status):
            return name + " failed with exit status \(status); the sign-in goes on"
        case .signalled(let number):
            return name + " was stopped by signal \(number); the sign-in goes on"
        case .timedOut:
            let seconds = FlowEventEncoder.wholeSeconds(limit)
            return name + " did not finish within \(seconds) s and was killed; the sign-in goes on"
        case .notStarted(let number):
            return name + " could not be started: " + String(cString: strerror(number)) + "; the sign-in goes on"
        case .statusLost:
            return name + " ended, but how could not be read; the sign-in goes on"
        }
    }

    #if os(Linux)
    /// An error number from starting the command.
    private struct SpawnError: Error {
        let number: Int32
    }

    /// Starts `/bin/sh -c command` in a new process group with a pipe that holds `input` as its stdin, stderr as
    /// its stdout, and no other descriptor; returns its process ID.
    ///
    /// `input` is written, and the writing end closed, before the command starts: the line is far smaller than a
    /// pipe holds, and a command that never reads its stdin cannot make the write fail with SIGPIPE (which would end
    /// a process that does not ignore it, as a library user's may not).
    private static func spawn(
        _ command: String, input: String, environment: [String: String]
    ) -> Result<pid_t, SpawnError> {
        guard let strings = ChildLauncher.CStrings(arguments: ["/bin/sh", "-c", command], environment: environment)
        else { return .failure(SpawnError(number: ENOMEM)) }
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return .failure(SpawnError(number: errno)) }
        let (reading, writing) = (ends[0], ends[1])
        // Close-on-exec for any other program started meanwhile (the hook gets the reading end as its stdin).
        _ = fcntl(reading, F_SETFD, FD_CLOEXEC)
        _ = fcntl(writing, F_SETFD, FD_CLOEXEC)
        _ = fcntl(writing, F_SETFL, fcntl(writing, F_GETFL) | O_NONBLOCK)
        feed(input, to: writing)
        defer { close(reading) }
        var attributes = posix_spawnattr_t()
        var actions = posix_spawn_file_actions_t()
        guard posix_spawnattr_init(&attributes) == 0 else { return .failure(SpawnError(number: ENOMEM)) }
        defer { posix_spawnattr_destroy(&attributes) }
        guard posix_spawn_file_actions_init(&actions) == 0 else { return .failure(SpawnError(number: ENOMEM)) }
        defer { posix_spawn_file_actions_destroy(&actions) }
        var none = sigset_t()
        sigemptyset(&none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number in [SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT] { sigaddset(&defaults, number) }
        dl_spawn_add_libc_signals(&defaults)
        let flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP
        let prepared = [
            posix_spawnattr_setsigmask(&attributes, &none),
            posix_spawnattr_setsigdefault(&attributes, &defaults),
            posix_spawnattr_setpgroup(&attributes, 0),
            posix_spawnattr_setflags(&attributes, Int16(flags)),
            posix_spawn_file_actions_adddup2(&actions, reading, STDIN_FILENO),
            posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO),
            ChildLauncher.closeDescriptors(from: 3, in: &actions),
        ]
        if let failed = prepared.first(where: { $0 != 0 }) { return .failure(SpawnError(number: failed)) }
        var pid = pid_t(0)
        let result = posix_spawn(&pid, "/bin/sh", &actions, &attributes, strings.arguments, strings.environment)
        guard result == 0 else { return .failure(SpawnError(number: result)) }
        return .success(pid)
    }

    /// Writes `input` to `descriptor` without blocking (the line is far smaller than a pipe holds; the rest of a
    /// longer one would be dropped), then closes it, so the command reads the line and then end of file.
    private static func feed(_ input: String, to descriptor: Int32) {
        defer { close(descriptor) }
        let bytes = Array(input.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written > 0 {
                offset += written
            } else if written < 0, errno == EINTR {
                continue
            } else {
                return
            }
        }
    }

    /// Waits, on a thread of its own, until the command has ended, without reaping it (`waitid` with `WNOWAIT`).
    private static func waitForEnd(of pid: pid_t) async -> Bool {
        await withCheckedContinuation { continuation in
            let started = DedicatedThread.start {
                var info = siginfo_t()
                while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) < 0, errno == EINTR {}
                continuation.resume(returning: false)
            }
            if !started {
                // No thread to wait on: end the command now, so that reaping it does not block for long.
                kill(-pid, SIGKILL)
                continuation.resume(returning: false)
            }
        }
    }

    /// Reaps the ended command: how it ended, or nil when that cannot be read.
    private static func reap(_ pid: pid_t) -> ChildStatus? {
        var status: Int32 = 0
        var reaped: pid_t
        repeat {
            reaped = waitpid(pid, &status, 0)
        } while reaped < 0 && errno == EINTR
        return reaped == pid ? ChildStatus(waitStatus: status) : nil
    }
    #endif
}
