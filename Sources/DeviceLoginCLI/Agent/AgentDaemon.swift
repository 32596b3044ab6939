import DeviceLogin

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `device-login agent` without `--foreground`, as ssh-agent runs: the agent itself starts in a new session
/// (`--foreground`, stdin and stderr on `/dev/null`, no other descriptor), and this process prints the two lines it
/// printed — for `eval "$(device-login agent)"` — and ends.
enum AgentDaemon {
    /// How long the agent has to print its lines.
    static let startSeconds = 15

    /// Starts the agent with `arguments` (this command's words) and `--foreground`; returns the lines it printed.
    /// - Throws: ``DeviceLoginError`` (configuration) when it cannot start, or ends before it listens.
    static func start(_ arguments: [String], environment: [String: String]) throws -> String {
        guard let own = Executable.currentPath() else {
            throw DeviceLoginError(.configuration, "agent: cannot find device-login itself, to start the agent")
        }
        guard
            let strings = ChildLauncher.CStrings(
                arguments: [own, AgentCommand.spec.name, "--foreground"] + arguments,
                // The whole environment: the child is this command itself, and needs a client secret given in it.
                environment: environment)
        else { throw DeviceLoginError(.configuration, "agent: out of memory") }
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw failure("cannot make a pipe", errno) }
        let (reading, writing) = (ends[0], ends[1])
        _ = fcntl(reading, F_SETFD, FD_CLOEXEC)
        _ = fcntl(writing, F_SETFD, FD_CLOEXEC)
        defer { close(reading) }
        var attributes = posix_spawnattr_t()
        var actions = posix_spawn_file_actions_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var none = sigset_t()
        sigemptyset(&none)
        let prepared = [
            posix_spawnattr_setsigmask(&attributes, &none),
            // A new session: no controlling terminal, and the shell's hang-up does not reach it.
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | 0x80)),
            posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0),
            posix_spawn_file_actions_adddup2(&actions, writing, STDOUT_FILENO),
            posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0),
            ChildLauncher.closeDescriptors(from: 3, in: &actions),
        ]
        if let failed = prepared.first(where: { $0 != 0 }) { throw failure("cannot start the agent", failed) }
        var pid = pid_t(0)
        let result = posix_spawn(&pid, own, &actions, &attributes, strings.arguments, strings.environment)
        close(writing)
        guard result == 0 else { throw failure("cannot start the agent", result) }
        let lines = readLines(reading, count: 2)
        guard lines.count == 2, lines[0].hasPrefix(AgentSocket.variable + "=") else {
            kill(pid, SIGTERM)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            throw DeviceLoginError(
                .configuration, "agent: it ended before it listened",
                hint: "run device-login agent --foreground to see why")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Up to `count` lines from `descriptor`, waiting at most ``startSeconds`` in all.
    private static func readLines(_ descriptor: Int32, count: Int) -> [String] {
        var bytes: [UInt8] = []
        var start = timespec()
        clock_gettime(CLOCK_MONOTONIC, &start)
        while bytes.filter({ $0 == UInt8(ascii: "\n") }).count < count, bytes.count < 8192 {
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            let left = startSeconds - Int(now.tv_sec - start.tv_sec)
            guard left > 0 else { break }
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, Int32(left * 1000))
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { break }
            var chunk = [UInt8](repeating: 0, count: 1024)
            let read = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            guard read > 0 else { break }
            bytes += chunk[0..<read]
        }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").prefix(count).map(String.init)
    }

    private static func failure(_ what: String, _ number: Int32) -> DeviceLoginError {
        DeviceLoginError(.configuration, "agent: \(what): " + AgentSocket.reason(number))
    }
}
