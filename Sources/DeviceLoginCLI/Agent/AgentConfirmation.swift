import DeviceLogin

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `agent --confirm`: a person at the agent's host approves each use of a token, one question at a time.
///
/// With `--confirm-command CMD` the question goes to `CMD` (through `/bin/sh -c`, ``NotifyHook``'s way: a time limit,
/// its own process group, no secret in its environment) with one JSON line on its stdin and
/// `DEVICE_LOGIN_AGENT_PROFILE`, `DEVICE_LOGIN_AGENT_PEER_PID` in its environment; exit 0 approves. Otherwise it is
/// asked on the agent's controlling terminal (`/dev/tty`), answered with `y`; and an agent with no terminal (in the
/// background, as ssh-agent always is) asks the askpass program, as ssh-agent confirms a key added with `ssh-add -c`:
/// `DEVICE_LOGIN_ASKPASS`, else `SSH_ASKPASS`, run with the question as its one argument and
/// `SSH_ASKPASS_PROMPT=confirm`, exit 0 approving. Nobody to ask — no terminal and no askpass, a command that fails or
/// does not end within ``limit`` — is a refusal.
actor AgentConfirmation {
    /// How long a question waits: less than a helper waits for its reply (``AgentClient/replySeconds``).
    static let limit = Duration.seconds(20)

    private let command: String?
    private let environment: [String: String]
    private let clock: any Clock<Duration>
    /// The question being asked, which the next one waits for.
    private var last: Task<Bool, Never>?

    init(command: String?, environment: [String: String], clock: any Clock<Duration>) {
        self.command = command
        self.environment = environment
        self.clock = clock
    }

    /// Whether the person approves giving a token of `profile` to process `pid`; asked after every earlier question.
    func approves(profile: String, pid: Int32) async -> Bool {
        let previous = last
        let command = command
        let environment = environment
        let clock = clock
        let question = Task(executorPreference: ProcessExecutor.preferred) {
            _ = await previous?.value
            let program = Self.programName(pid)
            if let command {
                var line = JSONWriter()
                line.add("v", integer: 1)
                line.add("event", .string("agent_request"))
                line.add("profile", string: profile)
                line.add("pid", integer: Int(pid))
                line.add("program", string: program)
                var childEnvironment = environment
                childEnvironment["DEVICE_LOGIN_AGENT_PROFILE"] = profile
                childEnvironment["DEVICE_LOGIN_AGENT_PEER_PID"] = String(pid)
                let hook = NotifyHook(command: command, limit: Self.limit, clock: clock)
                return await hook.run(input: line.object + "\n", environment: childEnvironment) == .exited(0)
            }
            let question =
                "device-login agent: give an access token of profile '\(TerminalText.clean(profile))' to process"
                + " \(pid) (\(TerminalText.clean(program ?? "?")))?"
            if !Self.hasTerminal(), let askpass = Self.askpass(environment) {
                var childEnvironment = environment
                childEnvironment["SSH_ASKPASS_PROMPT"] = "confirm"
                childEnvironment["DEVICE_LOGIN_ASKPASS_PROGRAM"] = askpass
                childEnvironment["DEVICE_LOGIN_AGENT_QUESTION"] = question
                childEnvironment["DEVICE_LOGIN_AGENT_PROFILE"] = profile
                childEnvironment["DEVICE_LOGIN_AGENT_PEER_PID"] = String(pid)
                // The program and the question go through the environment: nothing of either is shell syntax.
                let hook = NotifyHook(
                    command: "exec \"$DEVICE_LOGIN_ASKPASS_PROGRAM\" \"$DEVICE_LOGIN_AGENT_QUESTION\"",
                    limit: Self.limit, clock: clock)
                return await hook.run(input: "", environment: childEnvironment) == .exited(0)
            }
            let prompt = question + " [y/N] "
            return await withCheckedContinuation { continuation in
                let started = DedicatedThread.start {
                    continuation.resume(
                        returning: Self.askTerminal(prompt, seconds: Int(Self.limit.components.seconds)))
                }
                if !started { continuation.resume(returning: false) }
            }
        }
        last = question
        return await question.value
    }

    /// The askpass program that confirms when the agent has no terminal: `DEVICE_LOGIN_ASKPASS`, else
    /// `SSH_ASKPASS` (ssh-agent's), when set and not empty.
    static func askpass(_ environment: [String: String]) -> String? {
        for name in ["DEVICE_LOGIN_ASKPASS", "SSH_ASKPASS"] {
            if let program = environment[name], !program.isEmpty { return program }
        }
        return nil
    }

    /// Whether this process has a controlling terminal to ask on.
    static func hasTerminal() -> Bool {
        let terminal = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard terminal >= 0 else { return false }
        close(terminal)
        return true
    }

    /// The short name of process `pid` (`/proc/PID/comm`), when it can be read.
    static func programName(_ pid: Int32) -> String? {
        guard pid > 0 else { return nil }
        let descriptor = open("/proc/\(pid)/comm", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 64)
        let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        return String(decoding: bytes[0..<count], as: UTF8.self).trimmed()
    }

    /// Asks on `/dev/tty` and waits at most `seconds` for a line: true for `y` or `yes`. Blocking: on its own thread.
    static func askTerminal(_ prompt: String, seconds: Int) -> Bool {
        let terminal = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard terminal >= 0 else { return false }
        defer { close(terminal) }
        guard TextSink.writeAll(prompt, to: terminal) == nil else { return false }
        var answer: [UInt8] = []
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        let end = Int(deadline.tv_sec) + seconds
        while answer.count < 16 {
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            let left = end - Int(now.tv_sec)
            guard left > 0 else { break }
            var entry = pollfd(fd: terminal, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, Int32(left * 1000))
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { break }
            var byte: UInt8 = 0
            guard read(terminal, &byte, 1) == 1 else { break }
            if byte == UInt8(ascii: "\n") {
                let text = String(decoding: answer, as: UTF8.self).lowercased()
                return text == "y" || text == "yes"
            }
            answer.append(byte)
        }
        _ = TextSink.writeAll("\n", to: terminal)
        return false
    }
}
