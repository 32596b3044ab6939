import DeviceLogin

/// A `TokenStore` that keeps records in memory, for tests and for processes that must not write to disk.
///
/// Its exclusive section is a no-op: there is no other process to exclude, and `TokenState` already runs one
/// refresh at a time within a process.
///
/// ```swift
/// let store = InMemoryTokenStore()
/// let state = TokenState(profile: profile, client: client, store: store, transport: transport)
/// ```
public actor InMemoryTokenStore: TokenStore {
    private var records: [String: ProfileRecord]

    /// Creates a store holding `records`.
    /// - Parameter records: The initial records.
    public init(records: [ProfileRecord] = []) {
        self.records = Dictionary(records.map { ($0.name, $0) }, uniquingKeysWith: { _, last in last })
    }

    /// Reads a profile's record.
    public func load(profile name: String) async throws -> ProfileRecord? {
        records[name]
    }

    /// Replaces a profile's record.
    public func save(_ record: ProfileRecord) async throws {
        records[record.name] = record
    }

    /// Deletes a profile's record.
    public func remove(profile name: String) async throws {
        records[name] = nil
    }

    /// The names of the stored profiles, sorted.
    public func profileNames() async throws -> [String] {
        records.keys.sorted()
    }

    /// Runs `body` directly: there is no other process to exclude.
    public nonisolated func withExclusiveAccess<Value: Sendable>(
        profile name: String,
        _ body: @Sendable () async throws -> Value
    ) async throws -> Value {
        try await body()
    }
}
