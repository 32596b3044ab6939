import DeviceLoginTesting
import Foundation
import Testing

@testable import DeviceLogin

/// The one contract every ``TokenStore`` keeps, run against each of them: the file, the kernel keyring alone, the
/// file with its tokens in the keyring, the Secret Service alone, the file with its tokens in the Secret Service, and
/// the testing kit's in-memory store.
@Suite struct TokenStoreContractTests {
    enum Kind: String, CaseIterable, CustomTestStringConvertible {
        case file, keyring, fileWithKeyring, inMemory, secretService, fileWithSecretService
        var testDescription: String { rawValue }

        /// Every kind where the kernel keyring can be used (a container's seccomp profile may forbid `keyctl`), else
        /// those without it; the Secret Service's where a test session of gnome-keyring starts
        /// (``SecretServiceSession``), and always in CI, where it must.
        static let available: [Kind] =
            (KeyringSession.keyring == nil ? [.file, .inMemory] : [.file, .keyring, .fileWithKeyring, .inMemory])
            + (SecretServiceSession.started || SecretServiceSession.required
                ? [.secretService, .fileWithSecretService] : [])
    }

    /// A fresh, empty store of `kind`, the record shape it keeps, and how to clean up.
    struct Subject {
        var store: any TokenStore
        var placing: TokenStoreKind
        var root: String
        var files: FileTokenStore

        init(_ kind: Kind) throws {
            root = try Fixtures.temporaryDirectory()
            files = FileTokenStore(directory: root, keyring: try #require(KeyringSession.keyring))
            switch kind {
            case .fileWithKeyring: placing = .keyring
            case .fileWithSecretService: placing = .secretService
            default: placing = .file
            }
            switch kind {
            case .file, .fileWithKeyring, .fileWithSecretService: store = files
            case .keyring: store = files.keyringStore
            case .inMemory: store = InMemoryTokenStore()
            case .secretService: store = files.secretServiceStore
            }
        }

        func record(_ name: String = "default", access: String = "AT-1") throws -> ProfileRecord {
            var record = try Fixtures.record(name: name, tokens: Fixtures.tokens(access: access))
            record.profile.tokenStore = placing
            return record
        }

        func cleanUp() async {
            for name in (try? await files.keyringStore.profileNames()) ?? [] {
                try? await files.keyringStore.remove(profile: name)
            }
            if SecretServiceSession.started {
                for name in (try? await files.secretServiceStore.profileNames()) ?? [] {
                    try? await files.secretServiceStore.remove(profile: name)
                }
            }
            try? FileManager.default.removeItem(atPath: root)
        }
    }

    @Test(arguments: Kind.available) func roundTripReplaceAndRemove(kind: Kind) async throws {
        let subject = try Subject(kind)
        let store = subject.store
        #expect(try await store.load(profile: "default") == nil)
        #expect(try await store.profileNames() == [])

        let first = try subject.record()
        try await store.save(first)
        #expect(try await store.load(profile: "default") == first)

        let second = try subject.record(access: "AT-2")
        try await store.save(second)
        #expect(try await store.load(profile: "default")?.tokens?.accessToken == "AT-2")

        try await store.save(try subject.record("work"))
        #expect(try await store.profileNames() == ["default", "work"])

        try await store.remove(profile: "default")
        #expect(try await store.load(profile: "default") == nil)
        #expect(try await store.load(profile: "work") != nil)
        try await store.remove(profile: "default") // nothing there: no error
        #expect(try await store.profileNames() == ["work"])
        await subject.cleanUp()
    }

    @Test(arguments: Kind.available) func signedOutRecordKeepsTheProfile(kind: Kind) async throws {
        let subject = try Subject(kind)
        var record = try subject.record()
        try await subject.store.save(record)
        record.tokens = nil
        try await subject.store.save(record)
        let loaded = try #require(try await subject.store.load(profile: "default"))
        #expect(loaded.tokens == nil)
        #expect(loaded.profile == record.profile)
        await subject.cleanUp()
    }

    @Test(arguments: Kind.available) func exclusiveAccessRunsTheBodyAndPassesItsValue(kind: Kind) async throws {
        let subject = try Subject(kind)
        let store = subject.store
        let record = try subject.record()
        let value = try await store.withExclusiveAccess(profile: "default") {
            try await store.save(record)
            return try await store.load(profile: "default")?.tokens?.accessToken
        }
        #expect(value == "AT-1")
        await #expect(throws: DeviceLoginError.self) {
            try await store.withExclusiveAccess(profile: "default") { () async throws -> Int in
                throw DeviceLoginError(.storage, "inside")
            }
        }
        await subject.cleanUp()
    }
}
