import Testing

@testable import DeviceLoginCLI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("ChildStatus and CommandNotStarted: how exec's command ended, and its exit code")
struct ChildStatusTests {
    @Test(
        "a waitpid status decoded as the W* macros do",
        arguments: [
            (Int32(0x0000), ChildStatus.exited(0) as ChildStatus?),
            (0x0300, .exited(3)),
            (0xFF00, .exited(255)),
            (0x000F, .signalled(SIGTERM)),
            (0x0009, .signalled(SIGKILL)),
            // SIGSEGV with the core-dump bit.
            (0x008B, .signalled(SIGSEGV)),
            // Stopped (SIGSTOP) and continued: not an end.
            (0x137F, nil),
            (0xFFFF, nil),
        ])
    func decode(status: Int32, expected: ChildStatus?) {
        #expect(ChildStatus(waitStatus: status) == expected)
    }

    @Test(
        "the exit code: the status itself, or 128 + N for signal N",
        arguments: [
            (ChildStatus.exited(0), Int32(0)), (.exited(3), 3), (.exited(255), 255), (.exited(77), 77),
            (.signalled(SIGINT), 130), (.signalled(SIGTERM), 143), (.signalled(SIGKILL), 137),
            (.signalled(SIGUSR1), 128 + SIGUSR1),
        ])
    func exitCode(status: ChildStatus, expected: Int32) {
        #expect(status.exitCode.rawValue == expected)
    }

    @Test(
        "a command that could not be started: 127 when not found, 126 when not runnable, as a shell says",
        arguments: [
            (
                CommandNotStarted(command: "frobnicate", number: ENOENT), Int32(127),
                "exec: frobnicate: command not found"
            ),
            (CommandNotStarted(command: "./missing", number: ENOENT), 127, "exec: ./missing: no such file"),
            (
                CommandNotStarted(command: "./script", number: ENOENT, exists: true), 126,
                "exec: cannot run ./script: its interpreter (#!) was not found"
            ),
            (CommandNotStarted(command: "./data", number: EACCES), 126, "exec: cannot run ./data: Permission denied"),
            (
                CommandNotStarted(command: "./blob", number: ENOEXEC), 126,
                "exec: cannot run ./blob: Exec format error"
            ),
        ])
    func notStarted(error: CommandNotStarted, code: Int32, message: String) {
        #expect(error.exitCode.rawValue == code)
        #expect(error.message == message)
    }
}
