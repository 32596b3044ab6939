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

    /// The record as loaded from the file, with its tokens from the store it names; no tokens when that store has
    /// none (signed out, or a key revoked or expired underneath us: not signed in).
    func withStoredTokens(_ record: ProfileRecord) throws -> ProfileRecord {
        var record = record
        switch record.profile.tokenStore {
        case .file: break
        case .keyring:
            let store = keyringStore
            let description = try store.keyDescription(profile: record.name)
            record.tokens =
                try store.readOnCallingThread(description).map {
                    try store.decode($0, description: description, profile: record.name).tokens
                } ?? nil
        case .secretService:
            throw Self.secretServiceMissing(profile: record.name)
        }
        return record
    }

    /// Puts `record`'s tokens in the store it names and returns what the file keeps: the record without tokens. For
    /// the file, the record itself. A record with no tokens (signed out) removes the other store's copy.
    func placingTokens(_ record: ProfileRecord) throws -> ProfileRecord {
        switch record.profile.tokenStore {
        case .file:
            return record
        case .keyring:
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
            var kept = record
            kept.tokens = nil
            return kept
        case .secretService:
            throw Self.secretServiceMissing(profile: record.name)
        }
    }

    /// Removes the copies of the profile's tokens in every store but the file (`logout`, `store --to`, deleting a
    /// profile): a key store that is not there has no copy.
    package func removeKeyStoreCopies(profile name: String) throws {
        let store = keyringStore
        let description = try store.keyDescription(profile: name)
        do throws(SystemCallError) {
            try store.kernel.remove(description)
        } catch  where error.keyringIsUnavailable {
            return
        } catch {
            throw store.storageError(error, doing: "delete", description: description)
        }
    }

    static func secretServiceMissing(profile name: String) -> DeviceLoginError {
        DeviceLoginError(
            .storage, "the profile \(name) keeps its tokens in the Secret Service, which this build cannot reach",
            hint: "move it: device-login store --profile \(name) --to keyring")
    }
}
