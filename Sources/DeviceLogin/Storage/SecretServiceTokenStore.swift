#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A ``TokenStore`` in the freedesktop Secret Service (gnome-keyring, KeePassXC, KWallet's bridge) over D-Bus: one
/// item per profile in the default collection, holding the profile's record as compact JSON.
///
/// **Where.** Each item is labelled "DeviceLogin tokens for profile P (issuer)" and carries the attributes
/// `application=device-login`, `profile=P`, `home=<the profiles' folder>` (two folders never share an item) and
/// `kind=record` (a profile's DPoP key is a second item, `kind=dpop-key`), so that
/// `secret-tool search application device-login` finds them. The service keeps the collection on disk (gnome-keyring:
/// `~/.local/share/keyrings/login.keyring`, encrypted with the login password), so it survives a reboot.
///
/// **Who may read.** Any process of the user that reaches the session bus while the collection is unlocked; nothing
/// while it is locked. libsecret is loaded on first use (the `CSecretService` C target): a process that never uses this store
/// loads no D-Bus code.
///
/// **Never prompts.** Reads, writes and deletes never ask the service to unlock: a locked collection is "not signed
/// in" (``DeviceLoginError/Code/noSession``, exit 77 in the CLI) for a read, and an error for a write. Only
/// ``availability(unlock:environment:)`` with `unlock` asks the service to prompt, for a sign-in with a person at the terminal.
///
/// **Atomic.** A save replaces the item with the same attributes in one call of the service.
///
/// **The lock** stays a file lock (``FileLockedTokenStore``): `withExclusiveAccess(profile:_:)` is the given
/// ``FileTokenStore``'s.
public struct SecretServiceTokenStore: FileLockedTokenStore {
    /// The largest record kept: 64 KiB.
    public static let maximumRecordBytes = 64 << 10

    /// What the Secret Service offers at the moment of asking.
    public enum Availability: Sendable, Equatable {
        /// A service answers and its default collection is unlocked.
        case unlocked
        /// A service answers and its default collection is locked.
        case locked
        /// No service can be used; the reason says why, without any secret.
        case absent(reason: String)
    }

    /// The folder of the profiles: the `home` attribute of every item.
    public let home: String
    /// The store whose file locks serve as this store's locks.
    public let locks: FileTokenStore

    /// Creates a store.
    /// - Parameters:
    ///   - home: The `home` attribute of the items, the folder of the profiles.
    ///   - locks: The store whose profile locks this store takes.
    public init(home: String, locks: FileTokenStore) {
        self.home = home
        self.locks = locks
    }

    /// Whether a Secret Service answers with an unlocked default collection. With `unlock`, a locked collection is
    /// first unlocked through the service's own prompt: only when a person is there to answer it.
    /// - Parameters:
    ///   - unlock: Whether the service may prompt to unlock its default collection.
    ///   - environment: The environment whose session bus is meant (`DBUS_SESSION_BUS_ADDRESS`, else
    ///     `$XDG_RUNTIME_DIR/bus`): without one nothing is loaded and the answer is ``Availability/absent(reason:)``.
    ///     libsecret itself connects to the process's.
    public static func availability(unlock: Bool = false, environment: [String: String]) async -> Availability {
        if let reason = SecretService.sessionBusReason(environment) { return .absent(reason: reason) }
        return (try? await BlockingIO.run { availabilityOnCallingThread(unlock: unlock) })
            ?? .absent(reason: "cancelled")
    }

    static func availabilityOnCallingThread(unlock: Bool) -> Availability {
        do throws(SecretService.Failure) {
            return try SecretService.defaultCollection(unlock: unlock) ? .unlocked : .locked
        } catch {
            return .absent(reason: error.message)
        }
    }

    func attributes(_ name: String?, _ kind: SecretService.Attributes.Kind?) -> SecretService.Attributes {
        SecretService.Attributes(profile: name, home: home, kind: kind)
    }

    /// Reads a profile's record from its item; nil when there is none.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/noSession`` when the collection is locked,
    ///   ``DeviceLoginError/Code/storage`` when no service answers or the item is corrupt.
    public func load(profile name: String) async throws -> ProfileRecord? {
        try Profile.validate(name: name)
        return try await BlockingIO.run { [self] in try loadOnCallingThread(profile: name) }
    }

    /// ``load(profile:)`` on the calling thread (one D-Bus search and one read).
    func loadOnCallingThread(profile name: String) throws -> ProfileRecord? {
        let place = "the Secret Service item of profile \(name)"
        let bytes: [UInt8]?
        do throws(SecretService.Failure) {
            bytes = try SecretService.lookup(attributes(name, .record), maximumBytes: Self.maximumRecordBytes)
        } catch {
            throw storageError(error, doing: "read", profile: name)
        }
        return try bytes.map { try KeyringTokenStore.decodeRecord($0, place: place, profile: name) }
    }

    /// Replaces a profile's item, never prompting.
    public func save(_ record: ProfileRecord) async throws {
        try Profile.validate(name: record.name)
        try await BlockingIO.run { [self] in try saveOnCallingThread(record) }
    }

    func saveOnCallingThread(_ record: ProfileRecord) throws {
        let bytes = try KeyringTokenStore.encodeRecord(
            record, maximumBytes: Self.maximumRecordBytes, place: "the Secret Service item of profile \(record.name)")
        let issuer = record.profile.issuer.map { " (\($0))" } ?? ""
        do throws(SecretService.Failure) {
            try SecretService.store(
                bytes, label: "DeviceLogin tokens for profile \(record.name)\(issuer)",
                attributes: attributes(record.name, .record))
        } catch {
            throw storageError(error, doing: "write", profile: record.name)
        }
    }

    /// The private JWK of a profile's DPoP key, from its `kind=dpop-key` item; nil when there is none.
    func readDPoPKeyOnCallingThread(profile name: String) throws -> [UInt8]? {
        do throws(SecretService.Failure) {
            return try SecretService.lookup(
                attributes(name, .dpopKey), maximumBytes: FileTokenStore.maximumKeyFileBytes)
        } catch {
            throw storageError(error, doing: "read", profile: name)
        }
    }

    /// Saves a profile's DPoP key (its private JWK) in its `kind=dpop-key` item.
    func saveDPoPKeyOnCallingThread(_ bytes: [UInt8], profile name: String) throws {
        do throws(SecretService.Failure) {
            try SecretService.store(
                bytes, label: "DeviceLogin DPoP key for profile \(name)", attributes: attributes(name, .dpopKey))
        } catch {
            throw storageError(error, doing: "write", profile: name)
        }
    }

    /// Deletes a profile's items (its record and its DPoP key).
    public func remove(profile name: String) async throws {
        try Profile.validate(name: name)
        try await BlockingIO.run { [self] in try removeOnCallingThread(profile: name) }
    }

    func removeOnCallingThread(profile name: String, kind: SecretService.Attributes.Kind? = nil) throws {
        do throws(SecretService.Failure) {
            try SecretService.clear(attributes(name, kind))
        } catch {
            throw storageError(error, doing: "delete", profile: name)
        }
    }

    /// The profiles of this folder with an item, sorted.
    public func profileNames() async throws -> [String] {
        let found = try await BlockingIO.run { [self] () throws -> [String] in
            do throws(SecretService.Failure) {
                return try SecretService.profiles(attributes(nil, .record))
            } catch {
                throw storageError(error, doing: "list", profile: "*")
            }
        }
        return Set(found).filter { (try? Profile.validate(name: $0)) != nil }.sorted()
    }

    func storageError(_ failure: SecretService.Failure, doing action: String, profile name: String)
        -> DeviceLoginError
    {
        switch failure.kind {
        case .locked where action == "read":
            return DeviceLoginError(
                .noSession,
                "not signed in: profile '\(name)' keeps its tokens in the Secret Service, whose default collection "
                    + "is locked",
                hint: "unlock it (sign in to the desktop session), or run at a terminal: device-login login "
                    + "--profile \(name) (the service then asks for its password)")
        case .locked:
            return DeviceLoginError(
                .storage,
                "could not \(action) the Secret Service item of profile \(name): the default collection is locked",
                hint: "unlock it (sign in to the desktop session), or choose another store: --store keyring")
        case .unavailable, .noCollection:
            return DeviceLoginError(
                .storage,
                "could not \(action) the Secret Service item of profile \(name): \(failure.message)",
                hint: "start a Secret Service in this session (gnome-keyring-daemon), or sign in with another "
                    + "store: device-login login --profile \(name) --store keyring")
        case .tooLarge, .failed:
            return DeviceLoginError(
                .storage,
                "could not \(action) the Secret Service item of profile \(name): \(failure.message)",
                hint: "look at the item with: secret-tool search application device-login profile \(name)")
        }
    }
}
