import Foundation
import Testing

@testable import DeviceLogin
@testable import StoreCrashHelper

/// Issue 8: a `.tmp` file with a rotated refresh token stayed behind after a kill between write and rename.
@Suite struct FileTokenStoreTemporaryFilesTests {
    /// A profile's stale temporary file, another profile's (`default.json`, whose name starts like it), and files
    /// that only look alike.
    static let stale = ".default.json.123456789.tmp"
    static let others = [
        ".default.json.json.5.tmp", ".other.json.5.tmp", ".default.json.12a.tmp", "default.json.5.tmp",
        ".default.json..tmp", ".default.json.5.tmp.bak",
    ]

    /// A store holding profile `default`, with the stale file and the look-alikes planted beside it.
    private func plantedStore() async throws -> (String, FileTokenStore) {
        let (root, store) = try makeStore()
        try await store.save(try Fixtures.record(tokens: Fixtures.tokens()))
        for name in [Self.stale] + Self.others { try write("{\"refresh_token\":\"RT-lost\"}", to: root + "/" + name) }
        return (root, store)
    }

    private static func entries(_ root: String) throws -> Set<String> {
        Set(try FileManager.default.contentsOfDirectory(atPath: root))
    }

    @Test("the names a write uses are the names the sweep takes: .NAME.json.<digits>.tmp, and no other")
    func namePattern() {
        let written = FileTokenStore.temporaryFileName(for: "/d/default.json")
        #expect(FileTokenStore.isTemporaryFile(written, ofProfile: "default"))
        #expect(FileTokenStore.isTemporaryFile(Self.stale, ofProfile: "default"))
        #expect(FileTokenStore.isTemporaryFile(".default.json.18446744073709551615.tmp", ofProfile: "default"))
        #expect(!FileTokenStore.isTemporaryFile(".default.json.184467440737095516150.tmp", ofProfile: "default"))
        for name in Self.others { #expect(!FileTokenStore.isTemporaryFile(name, ofProfile: "default"), "\(name)") }
        #expect(FileTokenStore.isTemporaryFile(".default.json.json.5.tmp", ofProfile: "default.json"))
    }

    @Test("the next load removes the profile's stale temporary file, and only that")
    func loadRemovesIt() async throws {
        let (root, store) = try await plantedStore()
        defer { try? FileManager.default.removeItem(atPath: root) }
        #expect(try await store.load(profile: "default")?.tokens == Fixtures.tokens())
        #expect(try Self.entries(root) == Set(["default.json", "default.lock"] + Self.others))
    }

    @Test("the next save removes it")
    func saveRemovesIt() async throws {
        let (root, store) = try await plantedStore()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await store.save(try Fixtures.record(tokens: Fixtures.tokens(access: "AT-2")))
        #expect(try Self.entries(root) == Set(["default.json", "default.lock"] + Self.others))
    }

    @Test("taking the profile's lock removes it before the critical section runs")
    func exclusiveAccessRemovesIt() async throws {
        let (root, store) = try await plantedStore()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let seen = try await store.withExclusiveAccess(profile: "default") { try Self.entries(root) }
        #expect(!seen.contains(Self.stale))
    }

    @Test("while another holds the profile's lock, a load leaves the file alone: it may be that writer's")
    func aHeldLockProtectsIt() async throws {
        let (root, store) = try await plantedStore()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let holder = try holdLock(root + "/default.lock")
        #expect(try await store.load(profile: "default")?.tokens == Fixtures.tokens())
        #expect(try Self.entries(root).contains(Self.stale))
        close(holder)
        _ = try await store.load(profile: "default")
        #expect(!(try Self.entries(root).contains(Self.stale)))
    }

    @Test("another profile's lock does not protect this profile's file, nor does its sweep take it")
    func otherProfiles() async throws {
        let (root, store) = try await plantedStore()
        defer { try? FileManager.default.removeItem(atPath: root) }
        _ = try await store.load(profile: "other")
        #expect(try Self.entries(root).contains(Self.stale))
        let holder = try holdLock(root + "/other.lock")
        defer { close(holder) }
        _ = try await store.load(profile: "default")
        #expect(!(try Self.entries(root).contains(Self.stale)))
    }

    // MARK: Recovering the record a killed writer had finished (issue 17)

    /// Plants `record`, numbered `revision`, as a temporary file of profile `default`, cut to `keeping` bytes.
    private static func plant(
        _ record: ProfileRecord, revision: Int, in root: String, keeping: Int? = nil,
        name: String = ".default.json.77.tmp"
    ) throws {
        var numbered = record
        numbered.revision = revision
        let bytes = try FileTokenStore.encode(numbered, path: root + "/default.json")
        try write(String(decoding: bytes.prefix(keeping ?? bytes.count), as: UTF8.self), to: root + "/" + name)
    }

    /// A store whose record (revision 1) holds expired tokens with refresh token `RT-old`.
    private func storeWithAnExpiredSession() async throws -> (String, FileTokenStore) {
        let (root, store) = try makeStore()
        try await store.save(try Fixtures.record(tokens: Self.expired(refresh: "RT-old")))
        return (root, store)
    }

    private static func expired(refresh: String) -> TokenSet {
        Fixtures.tokens(access: "AT-" + refresh, refresh: refresh, expiresIn: 60)
    }

    @Test("a save numbers the record one past the record it replaces")
    func savesNumberRecords() async throws {
        let (root, store) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: root) }
        for expected in 1...3 {
            try await store.save(try Fixtures.record(tokens: Fixtures.tokens()))
            #expect(try await store.load(profile: "default")?.revision == expected)
        }
    }

    @Test("a complete, newer record left in a temporary file is put in place, and the refresh sends ITS token")
    func recoversTheNewerRecord() async throws {
        let (root, store) = try await storeWithAnExpiredSession()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try Self.plant(try Fixtures.record(tokens: Self.expired(refresh: "RT-new")), revision: 2, in: root)

        let transport = ScriptedTransport([ScriptedTransport.json(Fixtures.tokenJSON(access: "AT-3", refresh: "RT-3"))])
        let state = TokenState(
            profile: try Fixtures.profile(), client: Fixtures.client, store: store, transport: transport,
            now: { Fixtures.start.addingTimeInterval(3_600) }
        )
        #expect(try await state.freshAccessToken() == "AT-3")
        #expect(transport.requests.map(\.bodyText) == [TokenStateHarness.refreshBody("RT-new")])
        #expect(try await store.load(profile: "default")?.tokens?.refreshToken == "RT-3")
        #expect(try Self.entries(root) == ["default.json", "default.lock"])
    }

    /// Each temporary file that must not be put in place, and what it is.
    static let refused: [(name: String, plant: @Sendable (String) throws -> Void)] = [
        (
            "a torn record (cut short)",
            { root in
                try plant(try Fixtures.record(tokens: expired(refresh: "RT-new")), revision: 2, in: root, keeping: 200)
            }
        ),
        (
            "an older record",
            { try plant(try Fixtures.record(tokens: expired(refresh: "RT-new")), revision: 0, in: $0) }
        ),
        (
            "a record as old as the one in place",
            { try plant(try Fixtures.record(tokens: expired(refresh: "RT-new")), revision: 1, in: $0) }
        ),
        (
            "another profile's record",
            { try plant(try Fixtures.record(name: "other", tokens: expired(refresh: "RT-new")), revision: 9, in: $0) }
        ),
        ("garbage", { try write("{\"refresh_token\":\"RT-new\"}", to: $0 + "/.default.json.77.tmp") }),
        (
            "a newer format version",
            { root in
                var record = try Fixtures.record(tokens: expired(refresh: "RT-new"))
                record.version = ProfileRecord.currentVersion + 1
                try plant(record, revision: 9, in: root)
            }
        ),
        (
            "a record others could have written (mode 0644)",
            { root in
                try plant(try Fixtures.record(tokens: expired(refresh: "RT-new")), revision: 9, in: root)
                try FileManager.default.setAttributes(
                    [.posixPermissions: 0o644], ofItemAtPath: root + "/.default.json.77.tmp")
            }
        ),
    ]

    @Test("a temporary file that is not a complete, newer record of the profile is removed", arguments: 0..<7)
    func removesWhatIsNotNewer(index: Int) async throws {
        let (root, store) = try await storeWithAnExpiredSession()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let refused = Self.refused[index]
        try refused.plant(root)
        #expect(try await store.load(profile: "default")?.tokens?.refreshToken == "RT-old", "\(refused.name)")
        #expect(try Self.entries(root) == ["default.json", "default.lock"], "\(refused.name)")
    }

    @Test("of several newer records, the newest is put in place")
    func theNewestWins() async throws {
        let (root, store) = try await storeWithAnExpiredSession()
        defer { try? FileManager.default.removeItem(atPath: root) }
        for (revision, name) in [(2, ".default.json.1.tmp"), (4, ".default.json.2.tmp"), (3, ".default.json.3.tmp")] {
            let record = try Fixtures.record(tokens: Self.expired(refresh: "RT-\(revision)"))
            try Self.plant(record, revision: revision, in: root, name: name)
        }
        let record = try await store.load(profile: "default")
        #expect(record?.tokens?.refreshToken == "RT-4")
        #expect(record?.revision == 4)
        #expect(try Self.entries(root) == ["default.json", "default.lock"])
    }

    @Test("with no record in place, a complete one is put in place: a first sign-in killed before its rename")
    func recoversAFirstSave() async throws {
        let (root, store) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try Self.plant(try Fixtures.record(tokens: Self.expired(refresh: "RT-new")), revision: 1, in: root)
        #expect(try await store.load(profile: "default")?.tokens?.refreshToken == "RT-new")
    }

    /// A real process takes the lock, writes and flushes its temporary file as a save does, and is killed with
    /// SIGKILL before the rename; the next load puts its record in place.
    @Test("a process killed with SIGKILL between writing and renaming loses nothing")
    func aKilledWritersRecordIsRecovered() async throws {
        let (root, store) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await store.save(crashRecord(profile: "default", number: 0))
        let (process, _) = try HelperProcess.start(["die-before-rename", root, "default", "1"])
        #expect(await HelperProcess.exitStatus(of: process) == SIGKILL)
        #expect(process.terminationReason == .uncaughtSignal)
        #expect(try Self.entries(root).contains { $0.hasSuffix(".tmp") }, "the helper left no temporary file")
        let tokens = try await store.load(profile: "default")?.tokens
        #expect(tokens?.refreshToken == "refresh-1")
        #expect(tokens == (try crashRecord(profile: "default", number: 1)).tokens)
        #expect(try Self.entries(root) == ["default.json", "default.lock"])
    }
}
