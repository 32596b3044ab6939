import Testing

@testable import DeviceLoginCLI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("SignalRelay: which signals exec passes on to its command")
struct SignalRelayTests {
    /// device-login 100 leads group 100; the command 200 is in it. A shell 50 leads group 50.
    private static let family = SignalRelay.Family(parent: 100, parentGroup: 100, child: 200, childGroup: 100)
    /// device-login 100 was started by a script (group 50, led by the shell 50) and leads no group.
    private static let inScript = SignalRelay.Family(parent: 100, parentGroup: 50, child: 200, childGroup: 50)

    @Test(
        "the decision, by signal, sender and process groups",
        arguments: [
            // The terminal sends Ctrl-C, Ctrl-\ and a resize to its whole foreground group: the command has them.
            (SIGINT, SignalRelay.Origin.kernel, family, false),
            (SIGQUIT, .kernel, family, false),
            (SIGWINCH, .kernel, family, false),
            // ... unless the command left device-login's group (setsid, setpgid): then it would miss them.
            (SIGINT, .kernel, SignalRelay.Family(parent: 100, parentGroup: 100, child: 200, childGroup: 200), true),
            (SIGWINCH, .kernel, SignalRelay.Family(parent: 100, parentGroup: 100, child: 200, childGroup: 200), true),
            // A command whose group cannot be looked up has ended: nothing to pass on.
            (SIGINT, .kernel, SignalRelay.Family(parent: 100, parentGroup: 100, child: 200, childGroup: nil), false),
            // The kernel's other signals (a hang-up, say) are passed on, as sudo does.
            (SIGHUP, .kernel, family, true),
            (SIGTERM, .kernel, family, true),
            (SIGUSR1, .kernel, family, true),
            // `kill PID` from elsewhere (another terminal, a service manager, the test): passed on, every signal.
            (SIGINT, .process(pid: 300, group: 300), family, true),
            (SIGTERM, .process(pid: 300, group: 300), family, true),
            (SIGQUIT, .process(pid: 300, group: 300), family, true),
            (SIGHUP, .process(pid: 300, group: 300), family, true),
            (SIGUSR2, .process(pid: 300, group: 300), family, true),
            (SIGWINCH, .process(pid: 300, group: 300), family, true),
            // A sender that has ended (its group unknown): passed on.
            (SIGTERM, .process(pid: 300, group: nil), family, true),
            // The command signalling device-login: never sent back to it.
            (SIGTERM, .process(pid: 200, group: 100), family, false),
            (SIGUSR1, .process(pid: 200, group: 200), family, false),
            // From inside a group device-login or the command leads (`kill 0`, `killpg`): the command has it.
            (SIGTERM, .process(pid: 201, group: 100), family, false),
            (SIGINT, .process(pid: 201, group: 200), family, false),
            // A script that started device-login in the background kills it by PID: the script's group is led by
            // the shell, not by device-login, so it is passed on (else the command would never stop).
            (SIGTERM, .process(pid: 50, group: 50), inScript, true),
            (SIGINT, .process(pid: 51, group: 50), inScript, true),
        ])
    func decision(signal: Int32, origin: SignalRelay.Origin, family: SignalRelay.Family, expected: Bool) {
        #expect(SignalRelay.shouldForward(signal, from: origin, family: family) == expected)
    }

    @Test(
        "the sender from si_code and si_pid: a process only for kill, sigqueue and tgkill with a sender",
        arguments: [
            (Int32(SI_USER), pid_t(300), SignalRelay.Origin.process(pid: 300, group: 301)),
            (Int32(SI_QUEUE), 300, .process(pid: 300, group: 301)),
            (Int32(SI_TKILL), 300, .process(pid: 300, group: 301)),
            // The terminal's signals carry SI_KERNEL and no sender.
            (Int32(SI_KERNEL), 0, .kernel),
            (Int32(SI_USER), 0, .kernel),
            // Other codes (a timer, asynchronous I/O, a child's end) are not a process's kill.
            (Int32(SI_TIMER), 300, .kernel),
            (Int32(CLD_EXITED), 300, .kernel),
        ])
    func origin(code: Int32, pid: pid_t, expected: SignalRelay.Origin) {
        #expect(SignalRelay.origin(code: code, pid: pid, group: { $0 + 1 }) == expected)
    }

    @Test("the process group of this process, and none for a process that does not exist")
    func processGroup() {
        #expect(SignalRelay.processGroup(of: getpid()) == getpgrp())
        #expect(SignalRelay.processGroup(of: pid_t(Int32.max)) == nil)
    }

    @Test("the signals passed on: the issue's list")
    func relayed() {
        #expect(Set(SignalRelay.signals) == [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH])
    }
}
