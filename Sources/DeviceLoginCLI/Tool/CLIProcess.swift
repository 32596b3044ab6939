import CExec
import DeviceLogin
import DeviceLoginTerminal
import Dispatch

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process shell around ``CLI/run(_:context:commands:)``: a hardened process, real streams, real time, the
/// default transport, and the signals that end it (``InterruptHandler``). The only code that touches the real
/// process; each executable's `main.swift` is one call to ``main(_:)``.
package enum CLIProcess {
    /// Runs the tool with the process's arguments and exits with its exit code.
    ///
    /// Call it synchronously, as the only statement of `main.swift` (no `await` there): its first statements must
    /// run before the concurrency runtime opens its own descriptors, or a closed standard output would already
    /// be one of them.
    /// - Parameter commands: The command table: ``CLI/commands``, or one whose `demo` runs the server. Built only
    ///   when the fast lane (``FastLane``) does not answer: building every command's option table costs more than
    ///   the lane's whole answer.
    package static func main(_ commands: @autoclosure () -> [CommandSpec]) -> Never {
        // Before any secret is read: no core file, not dumpable (issue 8, "a hardened process").
        let hardening = ProcessHardening.apply()
        let closed = reserveStandardDescriptors()
        if !keepsRuntimeCrashReports(variable: ProcessEnvironment.variable) {
            ProcessHardening.removeCrashHandlers()
        }
        signal(SIGPIPE, SIG_IGN)
        let arguments = CLI.arguments(program: CommandLine.arguments.first, Array(CommandLine.arguments.dropFirst()))
        // The fast lane first, before anything else starts; a process it cannot answer goes on from what the lane
        // prepared (its plan), doing nothing twice. Not when the hardening failed: its warning is the full path's.
        let stdin = StandardInput.fileDescriptor(0)
        var plan: CommandPlan?
        if hardening.isHardened, !closed.contains(1) {
            let process = FastLane.Process(
                environment: ProcessEnvironment.variable, stdin: stdin, stdout: .fileDescriptor(1),
                now: SystemTime.now())
            if let code = FastLane.answer(arguments, process: process) { end(code) }
            plan = process.plan
        }

        let environment = ProcessEnvironment.whole()
        let terminal = TerminalCapabilities.detect(fileDescriptor: 2, environment: environment)
        let context = CLIContext(
            environment: environment,
            stdin: stdin,
            stdout: closed.contains(1) ? .failing(EBADF) : .fileDescriptor(1),
            stderr: .fileDescriptor(2),
            terminal: terminal,
            stdoutColumns: isatty(1) == 1
                ? TerminalCapabilities.detect(fileDescriptor: 1, environment: environment).columns : nil,
            stdinIsTerminal: isatty(0) == 1,
            makeTransport: { DefaultTransport.make(options: $0) },
            clock: SystemTime.clock,
            now: SystemTime.now,
            plan: plan
        )
        if !hardening.isHardened {
            context.stderr.line(
                "device-login: warning: could not keep the process's memory out of core files ("
                    + hardening.description + ")")
        }

        // Help, the version and a usage error are answered here, on this thread: they need neither the signal
        // handling nor the executor's thread, which cost more than the answer.
        let commands = commands()
        let command: CommandSpec
        let rest: [String]
        switch CLI.start(arguments, context: context, commands: commands) {
        case .answered(let code): end(code)
        case .command(let named, let words): (command, rest) = (named, words)
        }
        // Signals are handled before the work starts, so none arrives in between with its default action.
        let signals = InterruptHandler(stderr: context.stderr, allowsEscapes: terminal.allowsEscapes)
        // Every job of the work runs on one thread of its own (SerialThreadExecutor): a waiting sign-in then wakes one
        // thread per poll instead of making libdispatch's pool anew. Should the thread not start, the default executor.
        let executor = SerialThreadExecutor()
        let preferred: (any TaskExecutor)? = executor.start() ? executor : nil
        ProcessExecutor.use(preferred, host: preferred == nil ? nil : executor)
        let work = Task(executorPreference: preferred) {
            await CLI.run(command, rest, context: context, commands: commands)
        }
        signals.cancel(work)
        Task(executorPreference: preferred) {
            let code = await work.value
            // The context and the arguments live until the process ends, as the environment does: nothing is freed
            // at exit. The arguments are no longer the work's (it has the command's words), so without this the
            // only reference left was this thread's blocked frame, which LeakSanitizer does not count.
            withExtendedLifetime((signals, context, arguments)) {
                end(InterruptHandler.exitCode(code, stoppedBy: signals.receivedSignal))
            }
        }
        // The main thread leaves its frames for good here: an AddressSanitizer build must know (dl_leave_frames).
        dl_leave_frames()
        dispatchMain()
    }

    /// Ends the process with `code`. ``ExitCode/readerGone`` ends it by SIGPIPE, as git does when the reader of its
    /// output has gone (`git log | head`): a shell sees 141 and prints nothing, and a `set -o pipefail` script sees
    /// the same status as for git.
    static func end(_ code: ExitCode) -> Never {
        if code == .readerGone {
            signal(SIGPIPE, SIG_DFL)
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, SIGPIPE)
            pthread_sigmask(SIG_UNBLOCK, &set, nil)
            raise(SIGPIPE)
        }
        exit(code.rawValue)
    }

    /// Whether to leave the Swift runtime's crash reports on: only when `SWIFT_BACKTRACE` asks for them. By
    /// default a crash prints no registers and no memory (``ProcessHardening/removeCrashHandlers()``).
    /// - Parameter variable: An environment lookup (`getenv`: this runs before the environment is read whole).
    static func keepsRuntimeCrashReports(variable: (String) -> String?) -> Bool {
        variable("SWIFT_BACKTRACE") != nil
    }

    /// Opens `/dev/null` on each of descriptors 0, 1 and 2 that the process started without, so that nothing
    /// opened later (a profile, its lock, a socket) becomes "standard output" and receives a token.
    ///
    /// The descriptors are close-on-exec: `demo` hands over to `device-login-demo`, which must find them closed
    /// too.
    /// - Returns: The descriptors that were closed, in order (an array: a `Set` would be generic metadata made at
    ///   run time, before the fast lane).
    static func reserveStandardDescriptors() -> [Int32] {
        var closed: [Int32] = []
        for descriptor: Int32 in 0...2 {
            guard fcntl(descriptor, F_GETFD) < 0, errno == EBADF else { continue }
            closed.append(descriptor)
            // `open` takes the lowest free descriptor, which is this one: those below it are open by now.
            let opened = open("/dev/null", (descriptor == 0 ? O_RDONLY : O_WRONLY) | O_CLOEXEC)
            if opened >= 0, opened != descriptor { close(opened) }
        }
        return closed
    }
}
