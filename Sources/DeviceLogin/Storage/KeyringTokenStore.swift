#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A ``TokenStore`` in the Linux kernel's key retention service: one `user` key per profile, holding the profile's
/// record as compact JSON, in the user's persistent keyring.
///
/// **Where.** The key of profile `work` is described `<namespace>:work` (``FileTokenStore`` uses
/// `device-login:<its folder>`, so that two folders never share a key). ``Keyring/persistent`` outlives logout
/// (every process of the user reaches it again) but not a reboot, and the kernel drops it after
/// `/proc/sys/kernel/keys/persistent_keyring_expiry` seconds (3 days by default) in which no process asked for it.
///
/// **Who may read.** Only a possessor of the key may read it: a process of the same user that reached it through
/// its keyrings. Other users (root aside) can neither read nor see it; the same user's processes without possession
/// see its description only. The key's payload never touches a disk, swap aside.
///
/// **Atomic.** A save is one `add_key`, which replaces the payload in one step: a reader — or a process killed at any
/// moment — sees the old record or the new one. The record is at most ``maximumRecordBytes``; the kernel also caps a
/// user's keys in total (`/proc/sys/kernel/keys/maxbytes`, 20000 bytes for users other than root by default), and a
/// save over that cap is an error that says so.
///
/// **A key revoked or expired underneath** reads as no record (the profile is not signed in); the next save
/// replaces it.
///
/// **The lock** stays a file lock (``FileLockedTokenStore``): `withExclusiveAccess(profile:_:)` is the given
/// ``FileTokenStore``'s.
public struct KeyringTokenStore: FileLockedTokenStore {
    /// Which keyring holds the keys.
    public enum Keyring: Sendable, Hashable {
        /// The user's persistent keyring: survives logout, not reboot (the default).
        case persistent
        /// The calling process's session keyring, which its children share: gone with the session.
        case session
        /// A keyring by its serial number, which the user must be allowed to link and search.
        case serial(Int32)

        /// `persistent` or `session` (``FileTokenStore/keyringVariable``); nil for another word.
        public init?(_ word: String) {
            switch word {
            case "persistent": self = .persistent
            case "session": self = .session
            default: return nil
            }
        }
    }

    /// The largest record kept: the largest payload of a `user` key, 32767 bytes.
    public static let maximumRecordBytes = KernelKeyring.maximumPayloadBytes

    /// The keys' description prefix (before `:` and the profile name).
    public let namespace: String
    /// The keyring.
    public let keyring: Keyring
    /// The store whose file locks serve as this store's locks.
    public let locks: FileTokenStore

    /// Creates a store.
    /// - Parameters:
    ///   - namespace: The description prefix of the keys, e.g. `device-login:/home/me/.local/state/device-login`.
    ///   - keyring: The keyring; default ``Keyring/persistent``.
    ///   - locks: The store whose profile locks this store takes.
    public init(namespace: String, keyring: Keyring = .persistent, locks: FileTokenStore) {
        self.namespace = namespace
        self.keyring = keyring
        self.locks = locks
    }

    var kernel: KernelKeyring { KernelKeyring(anchor: keyring) }

    /// The key description of a profile.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/configuration`` for an invalid name.
    public func keyDescription(profile name: String) throws -> String {
        try Profile.validate(name: name)
        return namespace + ":" + name
    }

    /// Reads a profile's record from its key; nil when there is none, or when it was revoked or expired.
    public func load(profile name: String) async throws -> ProfileRecord? {
        let description = try keyDescription(profile: name)
        guard let bytes = try readOnCallingThread(description) else { return nil }
        return try decode(bytes, description: description, profile: name)
    }

    /// The key's bytes, on the calling thread (one search and one read: no I/O to wait for); nil when there is none
    /// or it was revoked or expired.
    func readOnCallingThread(_ description: String) throws -> [UInt8]? {
        do throws(SystemCallError) {
            return try kernel.read(description)
        } catch  where error.keyIsDead {
            return nil
        } catch {
            throw storageError(error, doing: "read", description: description)
        }
    }

    /// Replaces a profile's record in one `add_key`.
    public func save(_ record: ProfileRecord) async throws {
        let description = try keyDescription(profile: record.name)
        let bytes = try encode(record, description: description)
        do throws(SystemCallError) {
            try kernel.write(description, bytes)
        } catch {
            throw storageError(error, doing: "write", description: description)
        }
    }

    /// Deletes a profile's key for every process (an invalidated key is gone at once).
    public func remove(profile name: String) async throws {
        let description = try keyDescription(profile: name)
        do throws(SystemCallError) {
            try kernel.remove(description)
        } catch {
            throw storageError(error, doing: "delete", description: description)
        }
    }

    /// The profiles with a key in the keyring, sorted.
    public func profileNames() async throws -> [String] {
        let prefix = namespace + ":"
        let found: [String]
        do throws(SystemCallError) {
            found = try kernel.descriptions(withPrefix: prefix)
        } catch {
            throw storageError(error, doing: "list", description: prefix + "*")
        }
        return found.map { String($0.dropFirst(prefix.count)) }.filter { (try? Profile.validate(name: $0)) != nil }
            .sorted()
    }

    /// Whether the kernel keyring answers here (the system calls exist and are permitted): the keyring is found.
    public func isUsable() -> Bool {
        (try? kernel.keyring()) != nil
    }

    // MARK: - The record's bytes

    func encode(_ record: ProfileRecord, description: String) throws -> [UInt8] {
        try Self.encodeRecord(record, maximumBytes: Self.maximumRecordBytes, place: "the keyring key \(description)")
    }

    func decode(_ bytes: [UInt8], description: String, profile name: String) throws -> ProfileRecord {
        try Self.decodeRecord(bytes, place: "the keyring key \(description)", profile: name)
    }

    /// A record as compact JSON, for a key store's item (`place` names it in errors: "the keyring key …"); at most
    /// `maximumBytes`.
    static func encodeRecord(_ record: ProfileRecord, maximumBytes: Int, place: String) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let bytes: [UInt8]
        do {
            bytes = Array(try encoder.encode(record))
        } catch {
            throw DeviceLoginError(.storage, "could not encode the record for \(place)")
        }
        guard bytes.count <= maximumBytes else {
            throw DeviceLoginError(
                .storage,
                "the record of \(record.name) is \(bytes.count) bytes, more than \(place) holds (\(maximumBytes))",
                hint: "choose another store: device-login store --profile \(record.name) --to file")
        }
        return bytes
    }

    /// The record a key store's item holds, read with the one reader of a record (no JSONDecoder: the fast lane reads
    /// keys too); it must be of profile `name`, in a format this version reads.
    static func decodeRecord(_ bytes: [UInt8], place: String, profile name: String) throws -> ProfileRecord {
        let hint = "delete it and sign in again: device-login logout --profile \(name)"
        let record: ProfileRecord
        do {
            record = try ProfileRecord(stored: try JSONFields(try JSONParser.parse(bytes)))
        } catch {
            throw DeviceLoginError(.storage, "\(place) is corrupt", hint: hint)
        }
        guard record.version <= ProfileRecord.currentVersion, record.name == name else {
            throw DeviceLoginError(.storage, "\(place) holds another profile or a newer format", hint: hint)
        }
        return record
    }

    func storageError(_ error: SystemCallError, doing action: String, description: String) -> DeviceLoginError {
        var hint = "check the kernel keyring with: keyctl show @u"
        if error.keyQuotaIsFull {
            hint =
                "the kernel's key quota for this user is full (/proc/sys/kernel/keys/maxbytes); "
                + "choose another store: device-login store --to file"
        } else if error.keyringIsUnavailable {
            hint = "the kernel keyring is not available here (a container may forbid it); choose --store file"
        } else if error.keyIsTooLarge {
            hint = "the record is larger than a keyring key holds; choose --store file"
        }
        return DeviceLoginError(
            .storage, "could not \(action) the keyring key \(description): \(error.call): \(error.reason)", hint: hint)
    }
}
