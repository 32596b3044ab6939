import Foundation
import Testing

@testable import DeviceLogin

/// The kernel keyring for real, in a keyring of the test process's own (``KeyringSession``); skipped where the kernel
/// keyring cannot be used (a container whose seccomp profile forbids `keyctl`).
@Suite(.enabled(if: KeyringSession.keyring != nil, "the kernel keyring cannot be used here"))
struct KeyringTokenStoreTests {
    private func makeStore() throws -> (root: String, files: FileTokenStore) {
        let root = try Fixtures.temporaryDirectory()
        return (root, FileTokenStore(directory: root, keyring: try #require(KeyringSession.keyring)))
    }

    private func keyringRecord(_ name: String = "default", access: String = "AT-1") throws -> ProfileRecord {
        var record = try Fixtures.record(name: name, tokens: Fixtures.tokens(access: access, idToken: "ID-1"))
        record.profile.tokenStore = .keyring
        return record
    }

    @Test func theFileKeepsSettingsAndTheKeyringTheTokens() async throws {
        let (root, files) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let record = try keyringRecord()
        try await files.save(record)

        let text = try String(contentsOfFile: root + "/default.json", encoding: .utf8)
        #expect(!text.contains("AT-1") && !text.contains("RT-1") && !text.contains("ID-1"))
        #expect(text.contains("\"store\" : \"keyring\""))
        let key = try #require(try files.keyringStore.readOnCallingThread(files.keyNamespace + ":default"))
        #expect(String(decoding: key, as: UTF8.self).contains("RT-1"))
        #expect(try await files.load(profile: "default") == record)

        // The fast lane's read (the store's one reader, on the calling thread) takes its token from the key.
        let read = try #require(try files.glanceOnCallingThread(profile: "default"))
        #expect(read.profile.tokenStore == .keyring)
        #expect(read.accessToken?.value == "AT-1")
        // The keyring holds the whole record: the glance carries it, for the full path.
        #expect(read.record == record)
        try await files.remove(profile: "default")
        #expect(try files.keyringStore.readOnCallingThread(files.keyNamespace + ":default") == nil)
    }

    @Test func aSecretServiceProfileIsGlancedAtWithoutARecord() async throws {
        let (root, files) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let record = try keyringRecord()
        try await files.save(record)
        // As the Secret Service leaves a profile: its file names the Secret Service, and the kernel keyring holds a
        // copy of the access token alone (no refresh or ID token) for the lane.
        let path = root + "/default.json"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        try text.replacingOccurrences(of: #""store" : "keyring""#, with: #""store" : "secret-service""#)
            .write(toFile: path, atomically: false, encoding: .utf8)
        var copy = record
        copy.tokens?.refreshToken = nil
        copy.tokens?.idToken = nil
        try await files.keyringStore.save(copy)

        let glance = try #require(try files.glanceOnCallingThread(profile: "default"))
        #expect(glance.profile.tokenStore == .secretService)
        #expect(glance.accessToken?.value == "AT-1")
        // Not the record: the copy has no refresh token, and the full path must read the item itself.
        #expect(glance.record == nil)
        try await files.keyringStore.remove(profile: "default")
    }

    @Test func aFileRecordWritesNoStoreField() async throws {
        let (root, files) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await files.save(try Fixtures.record(tokens: Fixtures.tokens()))
        let text = try String(contentsOfFile: root + "/default.json", encoding: .utf8)
        #expect(!text.contains("\"store\""))
        #expect(try await files.load(profile: "default")?.profile.tokenStore == .file)
    }

    @Test func signingOutDeletesTheKey() async throws {
        let (root, files) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: root) }
        var record = try keyringRecord()
        try await files.save(record)
        record.tokens = nil
        try await files.save(record)
        #expect(try files.keyringStore.readOnCallingThread(files.keyNamespace + ":default") == nil)
        #expect(try await files.load(profile: "default")?.tokens == nil)
    }

    @Test func aKeyRevokedUnderneathIsNotSignedInAndCanBeReplaced() async throws {
        let (root, files) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await files.save(try keyringRecord())
        try files.keyringStore.kernel.revoke(files.keyNamespace + ":default")

        let loaded = try #require(try await files.load(profile: "default"))
        #expect(loaded.tokens == nil)
        #expect(loaded.profile.tokenStore == .keyring)
        #expect(try files.glanceOnCallingThread(profile: "default")?.accessToken == nil)

        try await files.save(try keyringRecord(access: "AT-2"))
        #expect(try await files.load(profile: "default")?.tokens?.accessToken == "AT-2")
        try await files.remove(profile: "default")
    }

    @Test func keysArePossessorOnlyAndOthersSeeNothing() async throws {
        let (root, files) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await files.save(try keyringRecord())
        let description = files.keyNamespace + ":default"
        let permissions = try #require(try files.keyringStore.kernel.permissions(of: description))
        // Possessor: view, read, write, search, link, setattr; user: view only; group and other: nothing.
        #expect(permissions == 0x3f01_0000)
        try await files.remove(profile: "default")
    }

    @Test func aRecordLargerThanAKeyIsAClearError() async throws {
        let (root, files) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let huge = String(repeating: "x", count: KeyringTokenStore.maximumRecordBytes)
        var record = try Fixtures.record(tokens: Fixtures.tokens(access: huge))
        record.profile.tokenStore = .keyring
        await #expect(throws: DeviceLoginError(.storage, "")) { try await files.save(record) }
        #expect(try await files.load(profile: "default") == nil)
    }

    @Test func aCorruptKeyIsAStorageError() async throws {
        let (root, files) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await files.save(try keyringRecord())
        let description = files.keyNamespace + ":default"
        try files.keyringStore.kernel.write(description, Array("{not json".utf8))
        await #expect(throws: DeviceLoginError(.storage, "")) { try await files.load(profile: "default") }
        try await files.remove(profile: "default")
        #expect(try files.keyringStore.readOnCallingThread(description) == nil)
    }

    @Test(arguments: [("persistent", KeyringTokenStore.Keyring.persistent), ("session", .session)])
    func theEnvironmentNamesTheKeyring(word: String, keyring: KeyringTokenStore.Keyring) throws {
        let store = try FileTokenStore(environment: ["DEVICE_LOGIN_HOME": "/x", "DEVICE_LOGIN_KEYRING": word])
        #expect(store.keyring == keyring)
        #expect(try FileTokenStore(environment: ["DEVICE_LOGIN_HOME": "/x"]).keyring == .persistent)
        #expect(throws: DeviceLoginError(.configuration, "")) {
            try FileTokenStore(environment: ["DEVICE_LOGIN_HOME": "/x", "DEVICE_LOGIN_KEYRING": "user"])
        }
    }
}
