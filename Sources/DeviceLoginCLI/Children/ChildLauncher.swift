import CExec
import DeviceLogin

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Starts the command `exec` was given as a child process and waits for it to end, passing signals on meanwhile.
///
/// - The command is looked up in `PATH` as `execvp` does (`posix_spawnp`), and gets the environment given, standard
///   input, output and error as they are, and no other descriptor: every one from 3 up is closed in the child.
/// - It starts with no signal blocked (libdispatch blocks them in its threads, and a spawned process inherits the
///   mask), with SIGPIPE's default action (the tool ignores it), and with the default action for SIGINT, SIGTERM,
///   SIGHUP and SIGQUIT, which the tool handles — except those of them device-login was itself started with
///   ignored (`nohup`, a background job of a script), which stay ignored, as through a shell's `exec`
///   (``InheritedSignals``).
/// - One supervisor, on one thread, for both paths (`supervise(_:child:)`): the signals of ``SignalRelay/signals``
///   and SIGCHLD are caught by a C handler that keeps their sender (`dl_catch_signals`, in `CExec`) and writes them
///   to its pipe; the thread sleeps in `poll` on that pipe, passes each signal on as ``SignalRelay`` decides, and
///   reaps the command with `waitpid` once it has ended. The fast lane runs it on the main thread
///   (``runOnCallingThread(_:environment:)``), the full path on a thread of its own (``run(_:environment:)``).
/// - On the full path, device-login's own handling of those signals is off while the command runs
///   (``InterruptHandler/handingOver(_:)``): Ctrl-C does not end device-login, and the signals are the command's.
///   Cancelling the calling task sends the command SIGTERM, and still waits for it to end.
enum ChildLauncher {
    /// The signals the supervisor catches: those it passes on, and SIGCHLD, which wakes it when the command ends.
    /// Both paths catch the same ones (`dl_catch_signals` keeps the first call's signals for the whole process).
    static let caughtSignals: [Int32] = SignalRelay.signals + [SIGCHLD]

    /// How long, in milliseconds, the supervisor sleeps in `poll` at most before it looks at the command anyway.
    /// Every supervisor of a process reads the one pipe: when two run at once (in-process tests run several), one
    /// may read the SIGCHLD record that was the other's only wake-up. In the tool, which runs one command, it only
    /// costs a `waitpid` a second.
    static let lookInterval: Int32 = 1_000

    /// The full path's `exec`: runs `arguments` (the command and its arguments) with `environment`, and waits for
    /// it to end, with the signals handed over from ``InterruptHandler`` to the supervisor meanwhile.
    /// - Returns: How it ended.
    /// - Throws: ``CommandNotStarted`` when it could not be started; ``StatusLost`` when its end could not be read;
    ///   `CancellationError` when the task was cancelled before it started.
    static func run(_ arguments: [String], environment: [String: String]) async throws -> ChildStatus {
        guard let command = arguments.first else { throw CommandNotStarted(command: "", number: ENOENT) }
        guard let strings = CStrings(arguments: arguments, environment: environment) else {
            throw CommandNotStarted(command: command, number: ENOMEM)
        }
        #if os(Linux)
        // The catcher first, then the handing over: a signal in between is either device-login's (the task is
        // cancelled, nothing is started) or caught (and passed on once the command runs); none is lost. The
        // supervisor's own dl_catch_signals nests in this one.
        let caught = caughtSignals.withUnsafeBufferPointer { dl_catch_signals($0.baseAddress, Int32($0.count)) }
        guard caught >= 0 else { throw CommandNotStarted(command: command, number: errno) }
        defer { dl_release_signals() }
        return try await InterruptHandler.handingOver {
            // A signal that came before the handing over cancelled the task: then nothing is started.
            try Task.checkCancellation()
            // libdispatch installs its own handler when it first registers a source for a signal, on its manager
            // thread, whenever that gets to it: if InterruptHandler's sources were registered after the catcher
            // went in (a slow start under load), their handler replaced it, and with the sources now cancelled
            // every signal would be lost. Once they are cancelled none can register any more: put the catcher back.
            // (The lane makes no Dispatch source, so it needs no such step.)
            _ = dl_recatch_signals()
            let child = Child()
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    // The supervisor blocks its thread until the command ends, which may be hours: not a thread of
                    // the cooperative pool (it has as few as cores, and the pool's threads block every signal), and
                    // not the main thread, which `dispatchMain` has parked for good. A thread of its own, which
                    // ends with the command; this task waits suspended, holding no thread, and can still be
                    // cancelled (the command then gets SIGTERM).
                    let started = DedicatedThread.start {
                        continuation.resume(with: supervise(strings, child: child))
                    }
                    if !started { continuation.resume(throwing: CommandNotStarted(command: command, number: EAGAIN)) }
                }
            } onCancel: {
                child.cancel()
            }
        }
        #else
        // The supervisor relies on Linux's siginfo and glibc's closefrom action; only Linux is built and tested.
        throw CommandNotStarted(command: command, number: ENOSYS)
        #endif
    }

    /// The fast lane's `exec`: runs `arguments` with `environment` on the calling thread, which it blocks until the
    /// command has ended (``ExecCommand/fastAnswer(_:process:)``), starting no thread and no concurrency runtime.
    /// For a process that runs nothing else: the catcher must be its first user (`dl_catch_signals` keeps the first
    /// call's signals).
    /// - Returns: How the command ended, or why it did not start (``CommandNotStarted``, ``StatusLost``).
    static func runOnCallingThread(_ arguments: [String], environment: [String: String]) -> Result<
        ChildStatus, any Error
    > {
        guard let command = arguments.first else { return .failure(CommandNotStarted(command: "", number: ENOENT)) }
        guard let strings = CStrings(arguments: arguments, environment: environment) else {
            return .failure(CommandNotStarted(command: command, number: ENOMEM))
        }
        #if os(Linux)
        // As the full path's InterruptHandler notes them before it takes them over: ignored ones stay ignored in the
        // command, the others get their default action.
        for number in InterruptHandler.signals { InheritedSignals.note(number) }
        #endif
        return supervise(strings, child: Child())
    }

    /// The command's end could not be read: another part of the process reaped it first.
    struct StatusLost: Error, CustomStringConvertible {
        var description: String { "exec: the command's exit status could not be read (it was reaped elsewhere)" }
    }

    /// The supervisor, both paths': on the calling thread, which it blocks, catches ``caughtSignals``, starts the
    /// command, passes each caught signal on by ``SignalRelay``'s rule, and returns how the command ended once it
    /// has reaped it. Caught before the spawn, SIGCHLD cannot be missed: an end before the first `poll` left its
    /// record in the pipe. And caught, it is not ignored meanwhile even when device-login was started with it
    /// ignored, so the kernel keeps the command's status for `waitpid`.
    private static func supervise(_ strings: CStrings, child: Child) -> Result<ChildStatus, any Error> {
        #if os(Linux)
        let caught = caughtSignals.withUnsafeBufferPointer { dl_catch_signals($0.baseAddress, Int32($0.count)) }
        guard caught >= 0 else { return .failure(CommandNotStarted(command: strings.command, number: errno)) }
        defer { dl_release_signals() }
        // device-login may have been started with some of them blocked, and libdispatch's threads block them all:
        // this thread takes them, so that one thread at least does. (Its handler only writes to the pipe.)
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        for number in caughtSignals { sigaddset(&unblocked, number) }
        pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)
        let pid: pid_t
        switch spawn(strings) {
        case .success(let started): pid = started
        case .failure(let failure): return .failure(failure)
        }
        child.started(pid)
        let family = (parent: getpid(), group: getpgrp())
        var watching = pollfd(fd: caught, events: Int16(POLLIN), revents: 0)
        while true {
            // EINTR: a signal was caught on this thread. Anything else (ENOMEM) passes; try again shortly.
            if poll(&watching, 1, lookInterval) < 0, errno != EINTR { usleep(10_000) }
            relay(from: caught, to: child, pid: pid, family: family)
            // After every wake-up, not only for SIGCHLD's record, which a full pipe could have dropped.
            if let status = child.reap() { return status }
        }
        #else
        return .failure(CommandNotStarted(command: strings.command, number: ENOSYS))
        #endif
    }

    #if os(Linux)
    /// Reads every caught signal waiting in `caught`, and passes on those ``SignalRelay`` says to.
    private static func relay(from caught: Int32, to child: Child, pid: pid_t, family: (parent: pid_t, group: pid_t)) {
        var record = dl_caught_signal()
        let size = MemoryLayout<dl_caught_signal>.size
        while read(caught, &record, size) == size {
            // SIGCHLD only wakes the supervisor.
            guard SignalRelay.signals.contains(record.number) else { continue }
            let origin = SignalRelay.origin(
                code: record.code, pid: pid_t(record.sender), group: SignalRelay.processGroup(of:))
            let members = SignalRelay.Family(
                parent: family.parent, parentGroup: family.group, child: pid,
                childGroup: SignalRelay.processGroup(of: pid))
            if SignalRelay.shouldForward(record.number, from: origin, family: members) { child.signal(record.number) }
        }
    }

    /// Starts the command: `posix_spawnp` with a clean signal mask, default actions for the signals the tool
    /// changed, inherited ignored ones ignored, and every descriptor from 3 up closed.
    private static func spawn(_ strings: CStrings) -> Result<pid_t, CommandNotStarted> {
        let command = strings.command
        var attributes = posix_spawnattr_t()
        guard posix_spawnattr_init(&attributes) == 0 else {
            return .failure(CommandNotStarted(command: command, number: ENOMEM))
        }
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        // SIGPIPE always: the tool ignores it, and one inherited ignored is the accident of a parent (Python's
        // subprocess restores it for the same reason), which would leave `cmd | head` writing on forever.
        sigaddset(&defaults, SIGPIPE)
        for number in InheritedSignals.toRestore { sigaddset(&defaults, number) }
        // Else glibc leaves its own two signals (32, 33) ignored in the command.
        dl_spawn_add_libc_signals(&defaults)
        var actions = posix_spawn_file_actions_t()
        guard posix_spawn_file_actions_init(&actions) == 0 else {
            return .failure(CommandNotStarted(command: command, number: ENOMEM))
        }
        defer { posix_spawn_file_actions_destroy(&actions) }
        let prepared = [
            posix_spawnattr_setsigmask(&attributes, &none),
            posix_spawnattr_setsigdefault(&attributes, &defaults),
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)),
            closeDescriptors(from: 3, in: &actions),
        ]
        if let failed = prepared.first(where: { $0 != 0 }) {
            return .failure(CommandNotStarted(command: command, number: failed))
        }
        // A handled signal becomes the default in the child, an ignored one stays ignored: for the moment of the
        // spawn, those device-login was started with ignored are ignored again. (Every thread blocks them, so no
        // handler would have run meanwhile anyway.)
        let restore = ignoring(InheritedSignals.ignored.intersection(InterruptHandler.signals))
        var pid = pid_t(0)
        let result = posix_spawnp(&pid, command, &actions, &attributes, strings.arguments, strings.environment)
        restore()
        guard result == 0 else {
            // An ENOENT for a file that exists comes from its #! interpreter.
            let exists = command.contains("/") && access(command, F_OK) == 0
            return .failure(CommandNotStarted(command: command, number: result, exists: exists))
        }
        return .success(pid)
    }

    /// Adds the closing of every descriptor from `lowest` up to `actions`; returns 0 or an error number. (Also the
    /// notify hook's, ``NotifyHook``.)
    static func closeDescriptors(from lowest: Int32, in actions: inout posix_spawn_file_actions_t) -> Int32 {
        let closing = dl_spawn_add_close_from(&actions, lowest)
        guard closing == ENOSYS else { return closing }
        // A C library without the closefrom action: close, one by one, each descriptor open now. (The tool opens
        // its own close-on-exec; this catches those it inherited without the flag.)
        let limit = min(sysconf(Int32(_SC_OPEN_MAX)), 65_536)
        guard limit > Int(lowest) else { return 0 }
        for descriptor in lowest..<Int32(limit) where fcntl(descriptor, F_GETFD) >= 0 {
            let added = posix_spawn_file_actions_addclose(&actions, descriptor)
            if added != 0 { return added }
        }
        return 0
    }

    /// Sets `signals` to be ignored until the returned closure runs, which puts their previous actions back.
    private static func ignoring(_ signals: Set<Int32>) -> () -> Void {
        var previous: [(number: Int32, action: sigaction)] = []
        for number in signals {
            var ignore = InheritedSignals.ignoreAction()
            var old = sigaction()
            if sigaction(number, &ignore, &old) == 0 { previous.append((number, old)) }
        }
        return {
            for (number, action) in previous {
                var action = action
                sigaction(number, &action, nil)
            }
        }
    }

    #endif

    /// The running command, shared by the supervisor and a cancellation: its process ID until it is reaped.
    /// Signalling and reaping both hold the lock, so a signal never reaches a process ID that was reused.
    private final class Child: Sendable {
        private struct State {
            var pid: pid_t?
            var cancelled = false
        }
        private let state = Locked(State())

        /// Notes the started command; sends it SIGTERM when the task was cancelled meanwhile.
        func started(_ pid: pid_t) {
            state.withLock { state in
                state.pid = pid
                if state.cancelled { kill(pid, SIGTERM) }
            }
        }

        /// The task was cancelled: SIGTERM for the command, now or once it has started.
        func cancel() {
            state.withLock { state in
                state.cancelled = true
                if let pid = state.pid { kill(pid, SIGTERM) }
            }
        }

        /// Sends `number` to the command while it has not been reaped.
        func signal(_ number: Int32) {
            state.withLock { state in
                if let pid = state.pid { kill(pid, number) }
            }
        }

        /// Reaps the command if it has ended (`waitpid` with `WNOHANG`): how it ended; nil while it runs.
        func reap() -> Result<ChildStatus, any Error>? {
            state.withLock { state in Self.reap(&state, options: WNOHANG) }
        }

        private static func reap(_ state: inout State, options: Int32) -> Result<ChildStatus, any Error>? {
            guard let pid = state.pid else { return .failure(StatusLost()) }
            var status: Int32 = 0
            var reaped: pid_t
            repeat {
                reaped = waitpid(pid, &status, options)
            } while reaped < 0 && errno == EINTR
            if reaped == 0 { return nil }
            state.pid = nil
            guard reaped == pid, let ended = ChildStatus(waitStatus: status) else { return .failure(StatusLost()) }
            return .success(ended)
        }
    }

    /// The command's `argv` and `envp` as C strings, which live as long as this does. The environment holds the
    /// token: it is zeroed before it is freed. (Also the notify hook's, ``NotifyHook``.)
    final class CStrings: @unchecked Sendable {
        // Never changed after `init`, and only read (by `posix_spawnp`): what makes the `@unchecked Sendable` true.
        let command: String
        let arguments: [UnsafeMutablePointer<CChar>?]
        let environment: [UnsafeMutablePointer<CChar>?]

        /// Nil when memory ran out.
        init?(arguments: [String], environment: [String: String]) {
            command = arguments.first ?? ""
            let words = arguments.map { strdup($0) }
            let entries = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") }
            self.arguments = words + [nil]
            self.environment = entries + [nil]
            guard !words.contains(nil), !entries.contains(nil) else { return nil }
        }

        deinit {
            for word in arguments { free(word) }
            for entry in environment {
                if let entry { memset(entry, 0, strlen(entry)) }
                free(entry)
            }
        }
    }
}
