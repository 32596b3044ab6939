// A helper process for FileTokenStore's crash and cross-process tests. Not shipped.
//
//   StoreCrashHelper write-loop <directory> <profile> <first>
//       Saves records numbered first, first+1, ... forever; prints "ready" after the first save.
//   StoreCrashHelper increment <directory> <profile> <times>
//       Adds one to the counter record <times> times, each read-modify-write inside withExclusiveAccess.
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

let arguments = CommandLine.arguments
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
