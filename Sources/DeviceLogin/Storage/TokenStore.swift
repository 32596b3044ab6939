#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where profiles and their tokens are kept between runs.
///
/// The requirements are `async`: a store may have blocking work to do (the file store's `fsync`, a future
/// Keychain store's user prompts) and must do it without holding a thread of Swift's cooperative pool, which
/// a synchronous requirement would force on it. The callers (``TokenState`` and the CLI) are async already.
///
/// ``withExclusiveAccess(profile:_:)`` is the cross-process critical section around read-refresh-write: two
/// processes refreshing the same profile at once would both spend the refresh token, and with rotation the
/// loser's grant is rejected — or, on servers that detect reuse, the whole session is revoked. Inside the
/// section ``TokenState`` re-reads the stored tokens first and adopts them when another process already
/// refreshed. Plain ``load(profile:)`` needs no lock: writes replace a record atomically.
///
/// Implementations: ``FileTokenStore`` (the default on Linux; a profile whose ``Profile/tokenStore`` is
/// ``TokenStoreKind/keyring`` keeps its settings there and its tokens in the kernel keyring), ``KeyringTokenStore`` (the
/// kernel keyring alone); the testing kit has `InMemoryTokenStore`. One contract suite runs against each.
/// A Keychain store for macOS can conform later behind `canImport(Security)`; nothing here assumes files.
///
/// ```swift
/// let store = try FileTokenStore(environment: ProcessInfo.processInfo.environment)
/// if let record = try await store.load(profile: "default"), let tokens = record.tokens {
///     print(tokens)
/// }
/// ```
public protocol TokenStore: Sendable {
    /// Reads a profile's record.
    /// - Parameter name: The profile name.
    /// - Returns: The record, or nil when the profile has never been saved.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/storage`` when the record exists but
    ///   cannot be read safely (corrupt, unsafe permissions); never nil in that case.
    func load(profile name: String) async throws -> ProfileRecord?

    /// Replaces a profile's record atomically: a reader sees the old record or the new one, never a mix.
    /// - Parameter record: The record; its profile's name is the key.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/storage``.
    func save(_ record: ProfileRecord) async throws

    /// Deletes a profile's record; nothing happens when there is none.
    /// - Parameter name: The profile name.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/storage``.
    func remove(profile name: String) async throws

    /// The names of the stored profiles, sorted.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/storage``.
    func profileNames() async throws -> [String]

    /// Runs `body` while holding the profile's cross-process lock.
    ///
    /// Not re-entrant: `body` must not ask for the same profile's section again. `body` may call ``load(profile:)``
    /// and ``save(_:)``, which take no lock.
    /// - Parameters:
    ///   - name: The profile name.
    ///   - body: The critical section.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws; ``DeviceLoginError`` with code ``DeviceLoginError/Code/storage`` when the lock
    ///   cannot be taken; `CancellationError` when cancelled while waiting for it.
    func withExclusiveAccess<Value: Sendable>(
        profile name: String,
        _ body: @Sendable () async throws -> Value
    ) async throws -> Value

    /// Notes, inside the profile's exclusive section, that a refresh just failed for a reason that will not change in
    /// a moment (the server did not answer), so that the processes waiting for the lock take that outcome instead of
    /// each sending a request of its own (``TokenState/sharedFailureWindow``).
    /// - Parameters:
    ///   - name: The profile name.
    ///   - failedAt: When it failed (the caller's injected `now`).
    ///   - message: What failed, without any secret.
    func recordRefreshFailure(profile name: String, at failedAt: Date, message: String) async

    /// The refresh failure last noted for the profile (``recordRefreshFailure(profile:at:message:)``), if any. Call
    /// inside the profile's exclusive section.
    func lastRefreshFailure(profile name: String) async -> (at: Date, message: String)?
}

extension TokenStore {
    /// A store that shares nothing between processes keeps no failure.
    public func recordRefreshFailure(profile name: String, at failedAt: Date, message: String) async {}

    /// A store that shares nothing between processes keeps no failure.
    public func lastRefreshFailure(profile name: String) async -> (at: Date, message: String)? { nil }
}

/// A ``TokenStore`` that keeps its records elsewhere but takes the profile locks of a ``FileTokenStore`` (the kernel
/// keyring's, the Secret Service's): the lock, and the refresh failure noted beside it, stay files on every store.
public protocol FileLockedTokenStore: TokenStore {
    /// The store whose file locks serve as this store's locks.
    var locks: FileTokenStore { get }
}

extension FileLockedTokenStore {
    /// Runs `body` holding the file lock of ``locks``.
    public func withExclusiveAccess<Value: Sendable>(
        profile name: String,
        _ body: @Sendable () async throws -> Value
    ) async throws -> Value {
        try await locks.withExclusiveAccess(profile: name, body)
    }

    /// Notes the failure beside the lock, as ``locks`` does.
    public func recordRefreshFailure(profile name: String, at failedAt: Date, message: String) async {
        await locks.recordRefreshFailure(profile: name, at: failedAt, message: message)
    }

    /// The failure ``locks`` noted.
    public func lastRefreshFailure(profile name: String) async -> (at: Date, message: String)? {
        await locks.lastRefreshFailure(profile: name)
    }
}
