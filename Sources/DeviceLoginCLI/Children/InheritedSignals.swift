import DeviceLogin

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The signals the process was started with set to be ignored, recorded before the tool changes their handling.
///
/// `nohup` starts a program with SIGHUP ignored, a shell's background job (`cmd &` in a script) with SIGINT and
/// SIGQUIT ignored. The tool takes over SIGINT, SIGTERM, SIGHUP and SIGQUIT (``InterruptHandler``), so the
/// dispositions its own program was given are only known from here. `exec` gives them to its command, as a shell's
/// `exec` or `env` would leave them (``ChildLauncher``): an ignored signal stays ignored, the others are back to
/// their default. (SIGQUIT arrives already changed: the Swift runtime takes it over for its crash reports before
/// the first line of the program runs, so it is never found ignored.)
enum InheritedSignals {
    /// The signals found ignored when ``ignore(_:)`` first changed them.
    private static let ignoredAtStart = Locked<Set<Int32>>([])
    /// The signals ``ignore(_:)`` changed.
    private static let changed = Locked<Set<Int32>>([])

    /// Sets `signal` to be ignored, first noting whether it was ignored already.
    static func ignore(_ signal: Int32) {
        var ignoring = ignoreAction()
        var previous = sigaction()
        guard sigaction(signal, &ignoring, &previous) == 0 else { return }
        record(signal, wasIgnored: isIgnoring(previous))
    }

    /// Notes whether `signal` is ignored now, as ``ignore(_:)`` does, without changing it: for the fast lane's
    /// `exec` (``ChildLauncher/runOnCallingThread(_:environment:)``), which catches the signals instead.
    static func note(_ signal: Int32) {
        var current = sigaction()
        guard sigaction(signal, nil, &current) == 0 else { return }
        record(signal, wasIgnored: isIgnoring(current))
    }

    private static func record(_ signal: Int32, wasIgnored: Bool) {
        let first = changed.withLock { $0.insert(signal).inserted }
        if first, wasIgnored { ignoredAtStart.withLock { _ = $0.insert(signal) } }
    }

    /// The signals that were ignored when the process started, of those the tool changed.
    static var ignored: Set<Int32> { ignoredAtStart.withLock { $0 } }

    /// The signals the tool changed and found not ignored: a command it starts gets their default action back.
    static var toRestore: Set<Int32> {
        let ignored = ignored
        return changed.withLock { $0 }.subtracting(ignored)
    }

    /// The action that ignores a signal (`SIG_IGN`).
    static func ignoreAction() -> sigaction {
        var action = sigaction()
        sigemptyset(&action.sa_mask)
        #if canImport(Glibc)
        action.__sigaction_handler.sa_handler = SIG_IGN
        #elseif canImport(Darwin)
        action.__sigaction_u.__sa_handler = SIG_IGN
        #endif
        return action
    }

    /// Whether `action` ignores its signal (`SIG_IGN`, which is the handler value 1 on Linux and macOS; C function
    /// pointers cannot be compared in Swift).
    static func isIgnoring(_ action: sigaction) -> Bool {
        guard action.sa_flags & SA_SIGINFO == 0 else { return false }
        #if canImport(Glibc)
        let handler = action.__sigaction_handler.sa_handler
        #elseif canImport(Darwin)
        let handler = action.__sigaction_u.__sa_handler
        #endif
        return handler.map { unsafeBitCast($0, to: Int.self) == 1 } ?? false
    }
}
