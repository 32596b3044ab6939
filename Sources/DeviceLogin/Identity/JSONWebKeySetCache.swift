#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The issuers' key sets (`jwks_uri`, OpenID Connect Discovery 1.0 §3) this process has fetched, in memory.
///
/// A set is fetched once and kept; ``refetch(_:using:)`` fetches it again when a token names a key the set lacks
/// (the issuer may have rotated its keys), at most once per ``refetchInterval`` for each `jwks_uri`, measured on the
/// injected clock — a flood of tokens naming unknown keys costs one request, not one each. The first fetch of a
/// set does not count against that allowance.
///
/// One cache per process serves every profile; a ``TokenState`` makes its own unless it is given one.
///
/// ```swift
/// let keys = JSONWebKeySetCache(clock: ContinuousClock())
/// let state = TokenState(record: record, client: client, store: store, transport: transport, keySets: keys)
/// ```
public actor JSONWebKeySetCache {
    /// How often a set may be fetched again for an unknown key: 5 minutes.
    public static let defaultRefetchInterval = Duration.seconds(300)

    /// How often a set may be fetched again for an unknown key.
    public nonisolated let refetchInterval: Duration
    private let clock: FlowClock
    private var sets: [URL: JSONWebKeySet] = [:]
    /// When each set was last fetched again, on the clock.
    private var refetchedAt: [URL: Duration] = [:]

    /// Creates an empty cache.
    /// - Parameters:
    ///   - clock: The clock the refetch allowance is measured on; default ``SystemTime/clock``.
    ///   - refetchInterval: How often a set may be fetched again; default ``defaultRefetchInterval``.
    public init(clock: any Clock<Duration> = SystemTime.clock, refetchInterval: Duration = defaultRefetchInterval) {
        self.clock = FlowClock(clock)
        self.refetchInterval = refetchInterval
    }

    /// The set kept for `url`, without any request.
    public func cached(_ url: URL) -> JSONWebKeySet? {
        sets[url]
    }

    /// The set for `url`: the one kept, or fetched now when there is none.
    /// - Parameters:
    ///   - url: The `jwks_uri`.
    ///   - fetcher: How to fetch it.
    /// - Throws: ``DeviceLoginError`` as ``JSONWebKeySetFetcher/fetch(_:)``; `CancellationError`.
    public func keySet(_ url: URL, using fetcher: JSONWebKeySetFetcher) async throws -> JSONWebKeySet {
        if let set = sets[url] { return set }
        let set = try await fetcher.fetch(url)
        sets[url] = set
        return set
    }

    /// Fetches the set for `url` again, unless it was fetched again less than ``refetchInterval`` ago.
    /// - Returns: The new set, or nil when the allowance is spent (the kept set stays).
    /// - Throws: As ``keySet(_:using:)``; a failed fetch spends the allowance too.
    public func refetch(_ url: URL, using fetcher: JSONWebKeySetFetcher) async throws -> JSONWebKeySet? {
        let now = clock.elapsed()
        if let last = refetchedAt[url], now < last + refetchInterval { return nil }
        // Taken before the request: callers that arrive while it runs do not send one of their own.
        refetchedAt[url] = now
        let set = try await fetcher.fetch(url)
        sets[url] = set
        return set
    }

    /// Keeps `set` for `url`, as if fetched (for sets obtained elsewhere, and tests).
    public func store(_ set: JSONWebKeySet, for url: URL) {
        sets[url] = set
    }
}
