import DeviceLoginTestSupport
import Foundation
import Testing

@testable import DeviceLogin
@testable import StoreCrashHelper

@Suite struct FileTokenStoreTests {
    // MARK: Where

    @Test func deviceLoginHomeWinsOverXDG() throws {
        let environment = ["DEVICE_LOGIN_HOME": "/srv/dl", "XDG_STATE_HOME": "/x", "HOME": "/home/u"]
        #expect(try FileTokenStore.defaultDirectory(environment: environment) == "/srv/dl")
    }

    @Test func xdgStateHomeThenHome() throws {
        #expect(
            try FileTokenStore.defaultDirectory(environment: ["XDG_STATE_HOME": "/x", "HOME": "/home/u"])
                == "/x/device-login")
        // The XDG spec: a relative path is invalid and ignored.
        #expect(
            try FileTokenStore.defaultDirectory(environment: ["XDG_STATE_HOME": "rel", "HOME": "/home/u"])
                == "/home/u/.local/state/device-login")
        #expect(
            try FileTokenStore.defaultDirectory(environment: ["HOME": "/home/u/"])
                == "/home/u/.local/state/device-login")
    }

    @Test func noUsableDirectoryIsAClearError() {
        #expect(throws: DeviceLoginError(.storage, "")) { try FileTokenStore.defaultDirectory(environment: [:]) }
        #expect(throws: DeviceLoginError(.storage, "")) {
            try FileTokenStore.defaultDirectory(environment: ["DEVICE_LOGIN_HOME": "relative/dir"])
        }
    }

    // MARK: Round trip and permissions

    @Test func savesWithPrivatePermissionsAndLoadsBack() async throws {
        let root = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let store = try FileTokenStore(environment: ["DEVICE_LOGIN_HOME": root + "/a/b"])
        #expect(try await store.load(profile: "default") == nil)
        #expect(try await store.profileNames() == [])

        let record = try Fixtures.record(tokens: Fixtures.tokens(idToken: "ID"))
        try await store.save(record)
        try await store.save(try Fixtures.record(name: "work", tokens: nil))

        #expect(try permissions(root + "/a/b") == 0o700)
        #expect(try permissions(root + "/a/b/default.json") == 0o600)
        #expect(try await store.load(profile: "default") == record)
        #expect(try await store.profileNames() == ["default", "work"])
        let entries = try FileManager.default.contentsOfDirectory(atPath: root + "/a/b")
        #expect(entries.sorted() == ["default.json", "work.json"])
    }

    @Test func refusesAFileOthersCanRead() async throws {
        let (root, store) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await store.save(try Fixtures.record(tokens: Fixtures.tokens()))
        let path = root + "/default.json"
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        let error = try await storageError { _ = try await store.load(profile: "default") }
        #expect(error.message.contains(path))
        #expect(error.message.contains("0644"))
        #expect(error.hint == "run: chmod 600 \(path)")
    }

    @Test func refusesADirectoryOthersCanRead() async throws {
        let (root, store) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: root)
        let error = try await storageError { _ = try await store.load(profile: "default") }
        #expect(error.hint == "run: chmod 700 \(root)")
        await #expect(throws: DeviceLoginError(.storage, "")) {
            try await store.save(try Fixtures.record(tokens: nil))
        }
    }

    @Test func refusesASymbolicLink() async throws {
        let (root, store) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await store.save(try Fixtures.record(name: "real", tokens: nil))
        try FileManager.default.createSymbolicLink(atPath: root + "/default.json", withDestinationPath: "real.json")
        let error = try await storageError { _ = try await store.load(profile: "default") }
        #expect(error.message.contains("symbolic link"))
    }

    // MARK: Corruption

    @Test(arguments: ["", "{", "[1,2]", "{\"version\":1}", "{\"version\":1,\"profile\":{\"name\":\"default\"}}"])
    func aCorruptFileIsAnErrorNamingItAndIsLeftAlone(content: String) async throws {
        let (root, store) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let path = root + "/default.json"
        try write(content, to: path)
        let error = try await storageError { _ = try await store.load(profile: "default") }
        #expect(error.message.contains(path))
        #expect(error.message.contains("corrupt"))
        #expect(error.hint?.contains("mv \(path) \(path).bad") == true)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == content)
    }

    @Test func corruptionMessageNamesTheMissingField() async throws {
        let (root, store) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try write("{\"version\":1,\"profile\":{\"name\":\"default\"}}", to: root + "/default.json")
        let error = try await storageError { _ = try await store.load(profile: "default") }
        #expect(error.message.contains("endpoints"))
    }

    @Test func aFileOverTheSizeLimitIsRefused() async throws {
        let (root, store) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try write(String(repeating: " ", count: FileTokenStore.maximumFileBytes + 1), to: root + "/default.json")
        let error = try await storageError { _ = try await store.load(profile: "default") }
        #expect(error.message.contains("larger than"))
    }

    @Test func aNewerFormatOrAnotherProfileIsRefused() async throws {
        let (root, store) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await store.save(try Fixtures.record(name: "other", tokens: nil))
        try FileManager.default.moveItem(atPath: root + "/other.json", toPath: root + "/default.json")
        let misplaced = try await storageError { _ = try await store.load(profile: "default") }
        #expect(misplaced.message.contains("holds profile \"other\""))

        try write("{\"version\":2}", to: root + "/next.json")
        let newer = try await storageError { _ = try await store.load(profile: "next") }
        #expect(newer.message.contains("version 2"))
    }

    // MARK: Times in the file (issue 8, bug 1: a stored expires_at of ±1e300 or 9.3e18 made every status trap)

    /// A saved record of profile `default` with one time replaced by `seconds`, written as the file's JSON number.
    static func plantTime(_ seconds: Double, at keys: [String], in root: String) async throws {
        let store = FileTokenStore(directory: root)
        var tokens = Fixtures.tokens()
        tokens.resourceTokens[Fixtures.api] = .init(accessToken: "API-1", expiresAt: nil, issuedAt: Fixtures.start)
        try await store.save(try Fixtures.record(tokens: tokens))
        let path = root + "/default.json"
        let marker = 1_234_567_890.5
        var object = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
                as? [String: Any])
        func replace(_ value: Any, at keys: ArraySlice<String>, in dictionary: inout [String: Any]) {
            guard let key = keys.first else { return }
            if keys.count == 1 {
                dictionary[key] = value
            } else {
                var inner = dictionary[key] as? [String: Any] ?? [:]
                replace(value, at: keys.dropFirst(), in: &inner)
                dictionary[key] = inner
            }
        }
        replace(marker, at: keys[...], in: &object)
        let text = String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
        // The number exactly as a file could hold it (JSONSerialization would write 1e300 in its own way).
        try FileManager.default.removeItem(atPath: path)
        try write(text.replacingOccurrences(of: "\(marker)", with: "\(seconds)"), to: path)
    }

    @Test(
        "a time outside 1970...9999 in the file is an error naming the file and the field, and the file is kept",
        arguments: [
            (["tokens", "expires_at"], 1e300), (["tokens", "expires_at"], -1e300), (["tokens", "expires_at"], 9.3e18),
            (["tokens", "expires_at"], 253_402_300_800.0), (["tokens", "expires_at"], -1.0),
            (["tokens", "issued_at"], 1e300), (["tokens", "issued_at"], -0.5),
            (["tokens", "resources", Fixtures.api, "expires_at"], 9.3e18),
            (["tokens", "resources", Fixtures.api, "issued_at"], -1e300),
        ] as [([String], Double)])
    func outOfRangeTimes(keys: [String], seconds: Double) async throws {
        let (root, store) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await Self.plantTime(seconds, at: keys, in: root)
        let path = root + "/default.json"
        let before = try String(contentsOfFile: path, encoding: .utf8)
        #expect(before.contains("\(seconds)"))
        let error = try await storageError { _ = try await store.load(profile: "default") }
        #expect(error.message.hasPrefix("the token file \(path) is corrupt: "), "\(error.message)")
        #expect(error.message.contains(keys.joined(separator: ".") + " is \(seconds), outside the times"))
        #expect(error.hint == "move it aside (mv \(path) \(path).bad) and sign in again")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == before)
    }

    @Test("the ends of the range are read as they are", arguments: [0, 253_402_300_799])
    func timesAtTheEnds(seconds: Double) async throws {
        let (root, store) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await Self.plantTime(seconds, at: ["tokens", "expires_at"], in: root)
        let tokens = try await store.load(profile: "default")?.tokens
        #expect(tokens?.expiresAt == Date(timeIntervalSince1970: seconds))
    }

    @Test("a token set with a time outside the range is not written: a storage error, and the old file stays")
    func outOfRangeTimesAreNotWritten() async throws {
        let (root, store) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await store.save(try Fixtures.record(tokens: Fixtures.tokens()))
        var far = Fixtures.tokens(access: "AT-far")
        far.expiresAt = Date(timeIntervalSince1970: 1e300)
        let error = try await storageError { try await store.save(try Fixtures.record(tokens: far)) }
        #expect(error.message.contains("tokens.expires_at is 1e+300, outside the times"), "\(error.message)")
        #expect(try await store.load(profile: "default")?.tokens == Fixtures.tokens())
    }

    // MARK: Atomic replace

    @Test func saveReplacesTheFileAtomically() async throws {
        let (root, store) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let path = root + "/default.json"
        let first = try Fixtures.record(tokens: Fixtures.tokens(access: "AT-1"))
        try await store.save(first)
        let firstBytes = try Data(contentsOf: URL(fileURLWithPath: path))
        // A reader that opened the old file keeps reading the whole old content: the new one is a new file
        // renamed over it, never the old file rewritten in place.
        let reader = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? reader.close() }
        try await store.save(try Fixtures.record(tokens: Fixtures.tokens(access: "AT-2")))
        #expect(try reader.readToEnd() == firstBytes)
        #expect(try await store.load(profile: "default")?.tokens?.accessToken == "AT-2")
        #expect(try FileManager.default.contentsOfDirectory(atPath: root) == ["default.json"])
    }

    @Test func removeDeletesTheRecordAndToleratesNone() async throws {
        let (root, store) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await store.remove(profile: "default")
        try await store.save(try Fixtures.record(tokens: nil))
        try await store.remove(profile: "default")
        #expect(try await store.load(profile: "default") == nil)
    }

    @Test func invalidProfileNamesNeverReachTheFileSystem() async throws {
        let (root, store) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: root) }
        await #expect(throws: DeviceLoginError(.configuration, "")) { _ = try await store.load(profile: "../x") }
    }

    // MARK: Crash safety

    /// A child process saving records in a loop is killed with SIGKILL at random moments, 200 times; after each
    /// kill the file parses and holds one complete record, the old one or one of the child's. Tagged `stress`: CI runs
    /// it, `Scripts/test.sh --quick` leaves it out.
    @Test(.tags(.stress), .timeLimit(.minutes(1)))
    func survivesSIGKILLAtRandomMoments() async throws {
        let (root, store) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await store.save(crashRecord(profile: "default", number: 0))
        var previous = 0
        var changed = 0
        for round in 1...200 {
            let first = round * 1_000_000
            let (ready, killed) = try await HelperProcess.killWhileWriting(
                ["write-loop", root, "default", String(first)]
            )
            #expect(ready, "the helper did not start (round \(round))")
            #expect(killed)

            let tokens = try #require(try await store.load(profile: "default")?.tokens, "round \(round)")
            // Issue 8: a kill between write and rename left a .tmp file with a token in it; the load removes it.
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: root).filter { $0.hasSuffix(".tmp") }
            #expect(leftovers.isEmpty, "round \(round)")
            let number = Int(tokens.issuedAt.timeIntervalSince1970)
            let expected = try crashRecord(profile: "default", number: number)
            #expect(tokens == expected.tokens, "torn record in round \(round)")
            #expect(number == previous || number >= first, "unexpected record \(number) in round \(round)")
            if number != previous { changed += 1 }
            previous = number
        }
        // The child had saved at least once before every kill, so every round replaced the record.
        #expect(changed == 200)
    }
}

/// A store in a fresh private directory.
func makeStore(clock: any Clock<Duration> = ContinuousClock(), lockTimeout: Duration = .seconds(60)) throws
    -> (String, FileTokenStore)
{
    let root = try Fixtures.temporaryDirectory()
    return (root, FileTokenStore(directory: root, clock: clock, lockTimeout: lockTimeout))
}

func permissions(_ path: String) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
}

func write(_ content: String, to path: String) throws {
    let created = FileManager.default.createFile(
        atPath: path, contents: Data(content.utf8), attributes: [.posixPermissions: 0o600]
    )
    #expect(created, "could not create \(path)")
}

/// Runs `body`, expecting a storage error, and returns it.
func storageError(_ body: () async throws -> Void) async throws -> DeviceLoginError {
    do {
        try await body()
    } catch let error as DeviceLoginError {
        #expect(error.code == .storage)
        return error
    }
    Issue.record("no error thrown")
    return DeviceLoginError(.storage, "")
}
