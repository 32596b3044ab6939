import Foundation

/// The test process's own Secret Service: a private D-Bus session bus with gnome-keyring's
/// secrets component on it, its login collection created and unlocked with a test password; started once, the first
/// time a test asks, so that no test reads or writes the user's keyring. `DBUS_SESSION_BUS_ADDRESS` then names that
/// bus for the whole process (libsecret reads it when it connects).
///
/// Both run under `dbus-run-session` behind a shell that waits on a pipe this process holds: however the process
/// ends, the pipe closes, the shell exits, the bus goes and gnome-keyring with it. Nothing stays behind.
enum SecretServiceSession {
    /// Whether the service answers; false where `dbus-run-session` or `gnome-keyring-daemon` is missing or fails.
    static let started: Bool = start()

    /// The password of the test collection.
    static let password = "device-login-test-password"

    /// Whether CI runs the tests, where the Secret Service must be there: its tests then run, and fail, without it.
    static var required: Bool { ProcessInfo.processInfo.environment["CI"] != nil }

    /// The write end of the session's standard input, held open (never written) for the life of the process.
    nonisolated(unsafe) private static var keepAlive: Int32 = -1

    private static func start() -> Bool {
        let tools = ["dbus-run-session", "gnome-keyring-daemon", "dbus-send"]
        guard tools.allSatisfy({ path(of: $0) != nil }),
            let root = try? Fixtures.temporaryDirectory()
        else { return false }
        let script = """
            echo "$DBUS_SESSION_BUS_ADDRESS"
            printf '%s' "\(password)" | gnome-keyring-daemon --foreground --unlock --components=secrets >/dev/null 2>&1 &
            cat >/dev/null
            """
        do {
            try FileManager.default.createDirectory(atPath: root + "/run", withIntermediateDirectories: true)
        } catch {
            return false
        }
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = root
        environment["XDG_DATA_HOME"] = root + "/data"
        environment["XDG_RUNTIME_DIR"] = root + "/run"
        let arguments = [path(of: "dbus-run-session")!, "--", "sh", "-c", script]
        guard let output = spawn(arguments, environment: environment) else { return false }
        var address = [UInt8]()
        var byte: UInt8 = 0
        while address.count < 4096, read(output, &byte, 1) == 1, byte != UInt8(ascii: "\n") { address.append(byte) }
        close(output)
        let line = String(decoding: address, as: UTF8.self)
        guard line.hasPrefix("unix:") else { return false }
        for _ in 0..<100 where !nameHasOwner(address: line) {
            usleep(50_000)
        }
        guard nameHasOwner(address: line) else { return false }
        setenv("DBUS_SESSION_BUS_ADDRESS", line, 1)
        return true
    }

    /// Starts `arguments` with every signal unblocked and at its default action (a test thread blocks most
    /// signals, and `dbus-run-session` needs SIGCHLD and SIGTERM to end its bus), its standard input a pipe whose
    /// write end only this process holds (``keepAlive``); returns the read end of its standard output.
    private static func spawn(_ arguments: [String], environment: [String: String]) -> Int32? {
        var input: [Int32] = [-1, -1]
        var output: [Int32] = [-1, -1]
        guard pipe(&input) == 0, pipe(&output) == 0 else { return nil }
        for descriptor in input + output { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input[0], 0)
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        var all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0.key + "=" + $0.value) } + [nil]
        defer { for string in argv + envp { free(string) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, arguments[0], &actions, &attributes, argv, envp)
        close(input[0])
        close(output[1])
        guard spawned == 0 else {
            close(input[1])
            close(output[0])
            return nil
        }
        keepAlive = input[1]
        return output[0]
    }

    private static func nameHasOwner(address: String) -> Bool {
        let query = Process()
        query.executableURL = URL(fileURLWithPath: path(of: "dbus-send")!)
        query.arguments = [
            "--bus=" + address, "--print-reply", "--dest=org.freedesktop.DBus", "/",
            "org.freedesktop.DBus.NameHasOwner",
            "string:org.freedesktop.secrets",
        ]
        let output = Pipe()
        query.standardOutput = output
        query.standardError = FileHandle.nullDevice
        guard (try? query.run()) != nil else { return false }
        let reply = output.fileHandleForReading.readDataToEndOfFile()
        query.waitUntilExit()
        return String(decoding: reply, as: UTF8.self).contains("boolean true")
    }

    /// Locks (`lock`) the test collection through the service's D-Bus API, as the session's screen lock would.
    static func lockCollection() throws {
        let query = Process()
        query.executableURL = URL(fileURLWithPath: path(of: "dbus-send")!)
        query.arguments = [
            "--session", "--print-reply", "--dest=org.freedesktop.secrets", "/org/freedesktop/secrets",
            "org.freedesktop.Secret.Service.Lock", "array:objpath:/org/freedesktop/secrets/collection/login",
        ]
        query.standardOutput = FileHandle.nullDevice
        try query.run()
        query.waitUntilExit()
    }

    private static func path(of tool: String) -> String? {
        for folder in ["/usr/bin", "/bin", "/usr/local/bin"] where access(folder + "/" + tool, X_OK) == 0 {
            return folder + "/" + tool
        }
        return nil
    }
}
