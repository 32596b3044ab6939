import Foundation
import Testing

@testable import DeviceLogin

@Suite("FileTokenStore+Pending: the pending sign-in beside the profile, 0600, atomic, one poller at a time")
struct FileTokenStorePendingTests {
    @Test("saved in NAME.pending, mode 0600, read back the same; not a profile; removed")
    func roundTrip() async throws {
        let (root, store) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: root) }
        #expect(try await store.loadPending(profile: "work") == nil)
        let pending = try pendingFixture()
        try await store.savePending(pending)
        let path = root + "/work.pending"
        #expect(try store.pendingPath(profile: "work") == path)
        #expect(try permissions(path) == 0o600)
        #expect(try await store.loadPending(profile: "work") == pending)
        #expect(try await store.profileNames() == [])
        // Saved again, replaced whole: no temporary file is left beside it.
        var later = pending
        later.progress.record(.polling(attempt: 1, elapsed: .seconds(5)), at: Fixtures.start.addingTimeInterval(5))
        try await store.savePending(later)
        #expect(try await store.loadPending(profile: "work") == later)
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: root)) == ["work.pending", "work.lock"])
        try await store.removePending(profile: "work")
        #expect(try await store.loadPending(profile: "work") == nil)
        try await store.removePending(profile: "work")
    }

    @Test("a temporary file a killed writer left is recognised as the profile's, and only its")
    func temporaryFiles() {
        #expect(FileTokenStore.isTemporaryFile(".work.pending.123.tmp", ofProfile: "work"))
        #expect(!FileTokenStore.isTemporaryFile(".work.pending.json.123.tmp", ofProfile: "work"))
        #expect(FileTokenStore.isTemporaryFile(".work.pending.json.123.tmp", ofProfile: "work.pending"))
    }

    @Test("a file others can read, a corrupt one or another profile's is refused, naming the file")
    func refused() async throws {
        let (root, store) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let path = root + "/work.pending"
        try await store.savePending(try pendingFixture())
        chmod(path, 0o644)
        let open = try await storageError { _ = try await store.loadPending(profile: "work") }
        #expect(open.message.contains("the pending sign-in file \(path) can be accessed by other users"))
        try write("{\"version\": 1}", to: path + ".x")
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.moveItem(atPath: path + ".x", toPath: path)
        let corrupt = try await storageError { _ = try await store.loadPending(profile: "work") }
        #expect(corrupt.message.hasPrefix("the pending sign-in file \(path) is corrupt"))
        #expect(corrupt.hint == "remove it (rm \(path)) and sign in again")
        try FileManager.default.removeItem(atPath: path)
        try await store.savePending(try pendingFixture(name: "other"))
        try FileManager.default.moveItem(atPath: root + "/other.pending", toPath: path)
        let other = try await storageError { _ = try await store.loadPending(profile: "work") }
        #expect(other.message.contains("is for profile \"other\", not \"work\""))
    }

    @Test("a file whose token endpoint is plain http off loopback is refused when read: exit 78's code, naming it")
    func insecureEndpointRefused() async throws {
        let (root, store) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: root) }
        var pending = try pendingFixture()
        pending.profile.endpoints.token = try #require(URL(string: "http://evil.example/token"))
        try await store.savePending(pending)
        let path = root + "/work.pending"
        let error = try await #require(throws: DeviceLoginError.self) {
            _ = try await store.loadPending(profile: "work")
        }
        #expect(error.code == .insecureEndpoint)
        #expect(
            error.message
                == "the pending sign-in file \(path) is refused: refusing plain HTTP to evil.example: use https, or allow"
                + " insecure HTTP explicitly")
        #expect(error.hint == "remove it (rm \(path)) and start the sign-in again with `device-login login`")
        // Against the saved profile of the same server: a host it does not talk to is refused too.
        pending = try pendingFixture()
        pending.profile.endpoints.token = try #require(URL(string: "https://evil.example/token"))
        try await store.savePending(pending)
        try await store.save(ProfileRecord(profile: try Fixtures.profile(name: "work"), tokens: nil))
        let other = try await #require(throws: DeviceLoginError.self) {
            _ = try await store.loadPending(profile: "work")
        }
        #expect(other.code == .configuration)
        #expect(other.message.contains("its token endpoint is on https://evil.example:443, none of the hosts"))
    }

    @Test("one poller at a time: a second is refused at once with this process's ID; free again afterwards")
    func onePoller() async throws {
        let (root, store) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let (entered, signal) = AsyncStream.makeStream(of: Void.self)
        let (release, releaser) = AsyncStream.makeStream(of: Void.self)
        async let first: Int = store.withPendingPolling(profile: "work") {
            signal.yield()
            for await _ in release { break }
            return 1
        }
        for await _ in entered { break }
        let busy = try await storageError { _ = try await store.withPendingPolling(profile: "work") { 2 } }
        #expect(busy.reason == .pendingSignInBusy(path: root + "/work.pending.lock", processID: Int(getpid())))
        #expect(
            busy.message == "another process (pid \(getpid())) is already polling the pending sign-in of profile 'work'"
        )
        // Another profile is not held.
        #expect(try await store.withPendingPolling(profile: "home") { 3 } == 3)
        releaser.yield()
        #expect(try await first == 1)
        #expect(try await store.withPendingPolling(profile: "work") { 4 } == 4)
    }

    @Test(
        "the process ID in the lock file is read only when it is one",
        arguments: [
            ("123\n", 123 as Int?), ("123", 123), ("", nil), ("0\n", nil), ("12a\n", nil), ("99999999999\n", nil),
            ("-1\n", nil),
        ])
    func processID(text: String, expected: Int?) {
        #expect(FileTokenStore.processID(in: Array(text.utf8)) == expected)
    }
}
