// A helper process for FileTokenStore's crash and cross-process tests. Not shipped.
//
//   StoreCrashHelper write-loop <directory> <profile> <first>
//       Saves records numbered first, first+1, ... forever; prints "ready" after the first save.
//   StoreCrashHelper increment <directory> <profile> <times>
//       Adds one to the counter record <times> times, each read-modify-write inside withExclusiveAccess.
//
// And for ProcessHardening, which must not be tried in the test runner itself:
//
//   StoreCrashHelper hardening
//       Prints the core file limits and the dumpable attribute as the kernel reports them ("core SOFT HARD" and
//       "dumpable N", -1 where there is none), applies ProcessHardening, and prints them again.
//   StoreCrashHelper crash [hardened]
//       Holds a secret in memory and crashes on an index out of range; "hardened" applies ProcessHardening and
//       removes the runtime's crash handlers first.
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

let arguments = CommandLine.arguments
switch arguments.dropFirst().first {
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
    fail("usage: StoreCrashHelper write-loop|increment <directory> <profile> <number>")
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
