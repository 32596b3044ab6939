// A helper process for FileTokenStore's crash and cross-process tests. Not shipped.
//
//   StoreCrashHelper write-loop <directory> <profile> <first>
//       Saves records numbered first, first+1, ... forever; prints "ready" after the first save.
//   StoreCrashHelper increment <directory> <profile> <times>
//       Adds one to the counter record <times> times, each read-modify-write inside withExclusiveAccess.
//   StoreCrashHelper die-before-rename <directory> <profile> <number>
//       Inside withExclusiveAccess, writes record <number> to its temporary file as a save does (complete and
//       flushed), then kills itself with SIGKILL before the rename.
//
// And for ProcessHardening, which must not be tried in the test runner itself:
//
//   StoreCrashHelper hardening
//       Prints the core file limits and the dumpable attribute as the kernel reports them ("core SOFT HARD" and
//       "dumpable N", -1 where there is none), applies ProcessHardening, and prints them again.
//   StoreCrashHelper crash [hardened]
//       Holds a secret in memory and crashes on an index out of range; "hardened" applies ProcessHardening and
//       removes the runtime's crash handlers first.
//
// And for exec's signal catcher (CExec), which takes signals over for the whole process:
//
//   StoreCrashHelper signal-catcher [recatch]
//       Catches SIGUSR1 with dl_catch_signals, then registers a Dispatch source for it (libdispatch installs its
//       own handler the first time it registers one for a signal) and cancels it, as exec does with
//       InterruptHandler's; "recatch" calls dl_recatch_signals. Then sends itself SIGUSR1, unblocked on the main
//       thread as exec's supervisor unblocks it on its own. Prints "replaced N" (what dl_recatch_signals
//       returned), then "catcher N" when the catcher's pipe got signal N within 2 s, else "catcher none".
import CExec
import CProcessHardening
import DeviceLogin
import Foundation

/// The test process that started this helper. When it dies the helper is re-parented, and must stop: an orphaned
/// write loop would hold the test runner's output pipe open forever.
let parent = getppid()

/// The record numbered `number`: every field carries the number, and the access token is long, so a torn
/// write would show.
func crashRecord(profile: String, number: Int) throws -> ProfileRecord {
    let endpoints = ServerEndpoints(
        deviceAuthorization: URL(fileURLWithPath: "/device"), token: URL(fileURLWithPath: "/token")
    )
    let tokens = TokenSet(
        accessToken: "token-\(number)-" + String(repeating: "x", count: 16_384), expiresAt: nil,
        refreshToken: "refresh-\(number)", issuedAt: Date(timeIntervalSince1970: Double(number))
    )
    return ProfileRecord(profile: try Profile(name: profile, endpoints: endpoints, clientID: "crash"), tokens: tokens)
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(2)
}

/// Prints what the kernel says about core files and dumpability, under `label`.
func printHardening(_ label: String) {
    var limit = rlimit()
    #if canImport(Glibc)
    let status = getrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &limit)
    #else
    let status = getrlimit(RLIMIT_CORE, &limit)
    #endif
    let core = status == 0 ? "\(limit.rlim_cur) \(limit.rlim_max)" : "unknown"
    print("\(label) core \(core)")
    print("\(label) dumpable \(dl_get_dumpable())")
}

/// Crashes with a secret in memory, so that a crash report that dumps memory could show it.
func crash(hardened: Bool) -> Never {
    if hardened {
        ProcessHardening.apply()
        ProcessHardening.removeCrashHandlers()
    }
    let secret = Array("SECRET-" + String(repeating: "s", count: 64))
    let index = secret.count + Int(getpid() % 2) + 1
    FileHandle.standardOutput.write(Data("crashing\n".utf8))
    print(secret[index])
    exit(0)
}

/// `signal-catcher [recatch]`, described at the top.
func signalCatcher(recatch: Bool) -> Never {
    var signals: [Int32] = [SIGUSR1]
    let caught = dl_catch_signals(&signals, 1)
    guard caught >= 0 else { fail("dl_catch_signals failed: errno \(errno)") }
    let registered = DispatchSemaphore(value: 0)
    let source = DispatchSource.makeSignalSource(signal: SIGUSR1, queue: .global())
    source.setRegistrationHandler { registered.signal() }
    source.resume()
    guard registered.wait(timeout: .now() + 10) == .success else { fail("the Dispatch source was not registered") }
    // Cancelled, as exec's handing over cancels InterruptHandler's sources: its signalfd is closed.
    let cancelled = DispatchSemaphore(value: 0)
    source.setCancelHandler { cancelled.signal() }
    source.cancel()
    guard cancelled.wait(timeout: .now() + 10) == .success else { fail("the Dispatch source was not cancelled") }
    let replaced = recatch ? dl_recatch_signals() : 0
    FileHandle.standardOutput.write(Data("replaced \(replaced)\n".utf8))
    // This thread takes the signal, as exec's supervisor does (libdispatch's threads block every signal).
    var mask = sigset_t()
    sigemptyset(&mask)
    sigaddset(&mask, SIGUSR1)
    pthread_sigmask(SIG_UNBLOCK, &mask, nil)
    kill(getpid(), SIGUSR1)
    var watching = pollfd(fd: caught, events: Int16(POLLIN), revents: 0)
    var record = dl_caught_signal()
    var line = "catcher none"
    if poll(&watching, 1, 2_000) > 0, read(caught, &record, MemoryLayout<dl_caught_signal>.size) > 0 {
        line = "catcher \(record.number)"
    }
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
    exit(0)
}

let arguments = CommandLine.arguments
switch arguments.dropFirst().first {
case "signal-catcher":
    signalCatcher(recatch: arguments.dropFirst(2).first == "recatch")
case "hardening":
    printHardening("before")
    ProcessHardening.apply()
    printHardening("after")
    exit(0)
case "crash":
    crash(hardened: arguments.dropFirst(2).first == "hardened")
default:
    break
}
guard arguments.count == 5, let number = Int(arguments[4]) else {
    fail("usage: StoreCrashHelper write-loop|increment|die-before-rename <directory> <profile> <number>")
}
let store = FileTokenStore(directory: arguments[2])
let profile = arguments[3]

do {
    switch arguments[1] {
    case "write-loop":
        var next = number
        try await store.save(crashRecord(profile: profile, number: next))
        FileHandle.standardOutput.write(Data("ready\n".utf8))
        while getppid() == parent {
            next += 1
            try await store.save(crashRecord(profile: profile, number: next))
        }
    case "die-before-rename":
        try await store.withExclusiveAccess(profile: profile) {
            _ = try store.writeTemporaryFileOnly(crashRecord(profile: profile, number: number))
            _ = kill(getpid(), SIGKILL)
        }
    case "increment":
        for _ in 0..<number where getppid() == parent {
            try await store.withExclusiveAccess(profile: profile) {
                let current = try await store.load(profile: profile)?.tokens?.issuedAt.timeIntervalSince1970 ?? 0
                try await store.save(crashRecord(profile: profile, number: Int(current) + 1))
            }
        }
    default:
        fail("unknown mode \(arguments[1])")
    }
} catch {
    fail("StoreCrashHelper: \(error)")
}
