#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The profile's tokens in another store than its file (issue 21).
///
/// The file always holds the profile's settings and bindings, with no secret of the sign-in, so that the fast lane
/// and `status` find the profile; when its record names another store (``Profile/tokenStore``), the refresh,
/// access and ID tokens rest there, in a copy of the whole record, and the file's `tokens` stay empty. The lock stays
/// the file lock. Every other piece of the store — the checks, the temporary files, the lock — does not change.
extension FileTokenStore {
    /// The environment variable that names the kernel keyring ``KeyringTokenStore`` uses: `persistent` (the default)
    /// or `session`.
    public static let keyringVariable = "DEVICE_LOGIN_KEYRING"

    /// The namespace of this folder's keys: `device-login:<folder>`.
    public var keyNamespace: String { "device-login:" + directory }

    /// The kernel keyring store of this folder's profiles.
    public var keyringStore: KeyringTokenStore {
        KeyringTokenStore(namespace: keyNamespace, keyring: keyring, locks: self)
    }

    /// The keyring the environment names.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/configuration`` for another word.
    static func keyring(environment: [String: String]) throws -> KeyringTokenStore.Keyring {
        guard let text = environment[keyringVariable], !text.isEmpty else { return .persistent }
        guard let keyring = KeyringTokenStore.Keyring(text) else {
            throw DeviceLoginError(
                .configuration, "\(keyringVariable) is \(text), neither persistent nor session",
                hint: "unset \(keyringVariable), or set it to persistent or session")
        }
        return keyring
    }

    /// The Secret Service store of this folder's profiles (its items' `home` is ``directory``).
    public var secretServiceStore: SecretServiceTokenStore {
        SecretServiceTokenStore(home: directory, locks: self)
    }

    /// The record as loaded from the file, with its tokens from the store it names; no tokens when that store has
    /// none (signed out, or a key revoked or expired underneath us: not signed in).
    func withStoredTokens(_ record: ProfileRecord) throws -> ProfileRecord {
        var record = record
        switch record.profile.tokenStore {
        case .file: break
        case .keyring:
            record.tokens = try keyringTokens(profile: record.name)
        case .secretService:
            record.tokens = try secretServiceStore.loadOnCallingThread(profile: record.name)?.tokens
        }
        return record
    }

    /// What the fast lane reads of the record as loaded from the file: the whole record, its tokens from the store
    /// it names, for the file and the kernel keyring. For the Secret Service, the copy of its access token that
    /// rests in the kernel keyring beside the item (``placingTokens(_:)``), with no refresh or ID token, or none
    /// when there is no copy (the lane then leaves the answer to the full path, which asks the Secret Service): a
    /// glance without a record, since the lane never waits for D-Bus.
    func glance(_ record: ProfileRecord) throws -> ProfileGlance {
        switch record.profile.tokenStore {
        case .file, .keyring:
            return ProfileGlance(whole: try withStoredTokens(record))
        case .secretService:
            return ProfileGlance(profile: record.profile, accessTokenOf: try? keyringTokens(profile: record.name))
        }
    }

    /// The tokens of the profile's kernel keyring key, if any.
    private func keyringTokens(profile name: String) throws -> TokenSet? {
        let store = keyringStore
        let description = try store.keyDescription(profile: name)
        return try store.readOnCallingThread(description).map {
            try store.decode($0, description: description, profile: name).tokens
        } ?? nil
    }

    /// Puts `record`'s tokens in the store it names and returns what the file keeps: the record without tokens. For
    /// the file, the record itself. A record with no tokens (signed out) removes the other store's copy.
    ///
    /// For the Secret Service, the access token alone (no refresh or ID token) is also copied into the kernel
    /// keyring, so that the fast lane answers without D-Bus; when the keyring cannot be used there is no copy.
    func placingTokens(_ record: ProfileRecord) throws -> ProfileRecord {
        switch record.profile.tokenStore {
        case .file:
            return record
        case .keyring:
            try writeKeyringKey(record)
        case .secretService:
            let store = secretServiceStore
            if record.tokens != nil {
                try store.saveOnCallingThread(record)
            } else {
                try store.removeOnCallingThread(profile: record.name, kind: .record)
            }
            var copy = record
            copy.tokens?.refreshToken = nil
            copy.tokens?.idToken = nil
            do {
                try writeKeyringKey(copy)
            } catch {
                // No copy rather than a stale one: the fast lane then asks the Secret Service.
                try? removeKeyringKey(profile: record.name)
            }
        }
        var kept = record
        kept.tokens = nil
        return kept
    }

    /// Writes the record to the profile's kernel keyring key, or deletes the key when it has no tokens.
    private func writeKeyringKey(_ record: ProfileRecord) throws {
        let store = keyringStore
        let description = try store.keyDescription(profile: record.name)
        let bytes = try record.tokens.map { _ in try store.encode(record, description: description) }
        do throws(SystemCallError) {
            if let bytes {
                try store.kernel.write(description, bytes)
            } else {
                try store.kernel.remove(description)
            }
        } catch {
            throw store.storageError(error, doing: "write", description: description)
        }
    }

    /// Deletes the profile's kernel keyring key; a keyring that cannot be used has none.
    private func removeKeyringKey(profile name: String) throws {
        try removeKeyringKey(description: try keyringStore.keyDescription(profile: name))
    }

    /// Deletes the kernel keyring key `description`; a keyring that cannot be used has none.
    func removeKeyringKey(description: String) throws {
        let store = keyringStore
        do throws(SystemCallError) {
            try store.kernel.remove(description)
        } catch  where error.keyringIsUnavailable {
            return
        } catch {
            throw store.storageError(error, doing: "delete", description: description)
        }
    }

    /// Removes the copies of the profile's tokens that rest outside the file when they leave `source` for `target`
    /// (`logout` and deleting a profile: for the file; `store --to`; a sign-in into another store): the kernel
    /// keyring's key unless `target` keeps one (the keyring, or the Secret Service's copy of the access token), and
    /// the Secret Service's items when `source` is the Secret Service and `target` is not. A key store that is not
    /// there has no copy; the Secret Service is asked only when `source` names it.
    package func removeKeyStoreCopies(profile name: String, from source: TokenStoreKind, to target: TokenStoreKind)
        throws
    {
        if target == .file { try removeKeyringKey(profile: name) }
        if target != .keyring { try removeKeyringKey(description: try dpopKeyDescription(profile: name)) }
        if source == .secretService, target != .secretService {
            try secretServiceStore.removeOnCallingThread(profile: name)
        }
    }

    /// The store the profile's file names, read without its tokens; the file when the file is missing or unreadable.
    func storeNamed(profile name: String) -> TokenStoreKind {
        guard let path = try? filePath(profile: name),
            let bytes = try? readPrivateFile(at: path, kind: "token file", maximumBytes: Self.maximumFileBytes),
            let record = try? Self.decode(bytes, path: path, profile: name)
        else { return .file }
        return record.profile.tokenStore
    }
}
