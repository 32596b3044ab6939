import Foundation
import Testing

@testable import DeviceLogin

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
}
