import Foundation
import Testing

@testable import DeviceLogin

@Suite("FileTokenStore+DPoPKey: the DPoP key beside the profile, 0600, atomic, checked like a token file")
struct FileTokenStoreDPoPKeyTests {
    @Test("saved as a private JWK in NAME.dpop.jwk, mode 0600, and read back as the same key")
    func roundTrip() async throws {
        let (root, store) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: root) }
        #expect(try await store.loadDPoPKey(profile: "work") == nil)
        let key = try ECP256PrivateKey.generate()
        try await store.saveDPoPKey(key, profile: "work")
        let path = root + "/work.dpop.jwk"
        #expect(try store.dpopKeyPath(profile: "work") == path)
        #expect(try permissions(path) == 0o600)
        let object = try JSONValue.decodeObject(from: try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(Set(object.keys).isSuperset(of: ["kty", "crv", "x", "y", "d"]))
        let read = try #require(try await store.loadDPoPKey(profile: "work"))
        #expect(try read.thumbprint() == key.thumbprint())
        // Not a profile: the listing shows none.
        #expect(try await store.profileNames() == [])
        // Saved again, replaced whole: no temporary file is left.
        try await store.saveDPoPKey(try ECP256PrivateKey.generate(), profile: "work")
        #expect(try FileManager.default.contentsOfDirectory(atPath: root) == ["work.dpop.jwk"])
    }

    @Test("removing the profile removes its key; removeDPoPKey removes only the key; neither minds a missing one")
    func removal() async throws {
        let (root, store) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await store.save(try Fixtures.record(name: "work", tokens: Fixtures.tokens()))
        try await store.saveDPoPKey(try ECP256PrivateKey.generate(), profile: "work")
        try await store.removeDPoPKey(profile: "work")
        #expect(try await store.loadDPoPKey(profile: "work") == nil)
        #expect(try await store.load(profile: "work") != nil)
        try await store.removeDPoPKey(profile: "work")
        try await store.saveDPoPKey(try ECP256PrivateKey.generate(), profile: "work")
        try await store.remove(profile: "work")
        #expect(!FileManager.default.fileExists(atPath: root + "/work.dpop.jwk"))
        #expect(!FileManager.default.fileExists(atPath: root + "/work.json"))
    }

    @Test("a key file others can read, a symbolic link, or one that is no key is refused, naming the file")
    func refused() async throws {
        let (root, store) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let path = root + "/work.dpop.jwk"
        try await store.saveDPoPKey(try ECP256PrivateKey.generate(), profile: "work")
        chmod(path, 0o644)
        let open = try await storageError { _ = try await store.loadDPoPKey(profile: "work") }
        #expect(open.message.contains("the DPoP key file \(path) can be accessed by other users"))
        #expect(open.hint == "run: chmod 600 \(path)")
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: root + "/elsewhere")
        let link = try await storageError { _ = try await store.loadDPoPKey(profile: "work") }
        #expect(link.message.contains("is a symbolic link"))
        // checkReady sees the link before a sign-in asks the person anything.
        let ready = try await storageError { try await store.checkReady(profile: "work") }
        #expect(ready.message.contains("the DPoP key file \(path) is a symbolic link"))
        try FileManager.default.removeItem(atPath: path)
        for text in ["not json", #"{"kty":"EC","crv":"P-256"}"#, #"{"kty":"RSA","n":"AQAB","e":"AQAB"}"#] {
            try write(text, to: path)
            let bad = try await storageError { _ = try await store.loadDPoPKey(profile: "work") }
            #expect(bad.message.hasPrefix("the DPoP key file \(path) "), "\(text)")
            #expect(bad.hint?.contains("sign in again with DPoP") == true)
            try FileManager.default.removeItem(atPath: path)
        }
    }

    @Test("a temporary key file a killed writer left is swept like a record's; other profiles' are not")
    func temporaryFiles() {
        #expect(FileTokenStore.isTemporaryFile(".work.dpop.jwk.123.tmp", ofProfile: "work"))
        #expect(
            FileTokenStore.isTemporaryFile(
                FileTokenStore.temporaryFileName(for: "/d/work.dpop.jwk"), ofProfile: "work"))
        #expect(!FileTokenStore.isTemporaryFile(".work.dpop.jwk.json.1.tmp", ofProfile: "work"))
        #expect(FileTokenStore.isTemporaryFile(".work.dpop.jwk.json.1.tmp", ofProfile: "work.dpop.jwk"))
        #expect(!FileTokenStore.isTemporaryFile(".work.dpop.jwk.1.tmp", ofProfile: "work.dpop"))
        #expect(FileTokenStore.isTemporaryFile(".work.dpop.dpop.jwk.1.tmp", ofProfile: "work.dpop"))
    }
}

/// The DPoP key in the store the profile's tokens rest in (issue 21): the kernel keyring's key
/// `<namespace>:<profile>:dpop-key`, the Secret Service's `kind=dpop-key` item; never the file beside them.
@Suite("FileTokenStore+DPoPKey in the key stores: the key rests with the tokens, and goes with them")
struct DPoPKeyInKeyStoresTests {
    static let kinds: [TokenStoreKind] =
        (KeyringSession.keyring == nil ? [] : [.keyring])
        + (SecretServiceSession.started || SecretServiceSession.required ? [.secretService] : [])

    @Test(arguments: kinds) func savedInTheStoreReadBackAndRemovedByLogout(kind: TokenStoreKind) async throws {
        let root = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let store = FileTokenStore(directory: root, keyring: try #require(KeyringSession.keyring))
        var record = try Fixtures.record(name: "work", tokens: Fixtures.tokens())
        record.profile.tokenStore = kind
        try await store.save(record)
        // A key file an earlier sign-in left goes when the key is saved in the store.
        try await store.saveDPoPKey(try ECP256PrivateKey.generate(), profile: "work")
        let key = try ECP256PrivateKey.generate()
        try await store.saveDPoPKey(key, profile: "work", in: kind)
        #expect(!FileManager.default.fileExists(atPath: root + "/work.dpop.jwk"))
        #expect(try await store.loadDPoPKey(profile: "work") == nil)
        let read = try #require(try await store.loadDPoPKey(profile: "work", in: kind))
        #expect(try read.thumbprint() == key.thumbprint())
        #expect(try await store.profileNames() == ["work"])
        if kind == .keyring { #expect(try await store.keyringStore.profileNames() == ["work"]) }

        try await store.remove(profile: "work")
        #expect(try await store.loadDPoPKey(profile: "work", in: kind) == nil)
        #expect(try await store.load(profile: "work") == nil)
    }
}
