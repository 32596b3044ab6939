#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The shared token state of one profile: hands out fresh access tokens, refreshes them, signs out.
///
/// An `actor` with an explicit state machine (``Status``): `unknown` until loaded, then `noSession` or
/// `authenticated`. A refresh is an internal state of its own: while it runs, the public status stays
/// `authenticated` with the old tokens.
///
/// **Fresh tokens.** ``freshAccessToken(minimumTTL:)`` returns the cached access token while it has more than
/// ``refreshMargin`` (or the caller's `minimumTTL`) left, by the injected `now`; otherwise it refreshes with the
/// refresh-token grant (RFC 6749 §6). A stored, still-valid token therefore costs one read of the store and no
/// network — none at all with ``init(record:client:store:transport:clock:now:refreshMargin:keySets:)``.
///
/// **One refresh at a time.** Actors are re-entrant across `await`, so "check, then refresh" would let many
/// callers refresh at once. The refresh therefore runs in one stored `Task`; every caller that needs it waits on
/// that same task and gets the same token. Only one refresh runs at a time even across targets (the main token
/// and RFC 8707 resources), because each one may rotate the refresh token. A caller that is cancelled stops
/// waiting at once; the refresh itself is not cancelled, so a rotated refresh token is never lost half-way.
///
/// **Across processes.** The refresh runs inside the store's ``TokenStore/withExclusiveAccess(profile:_:)``,
/// and re-reads the stored tokens first: when another process has already refreshed, its tokens are used and
/// nothing is sent — also when they live less than the caller's `minimumTTL`, if they arrived after the call
/// began (the server gives no longer-lived token). A rotated refresh token is saved before any caller gets the new
/// access token; a response without `refresh_token` keeps the old one.
///
/// **The same session.** A reply whose tokens would change the session — an ID token of another user or issuer,
/// for another client or already expired, or a wider scope — is refused with
/// ``DeviceLoginError/Code/invalidIDToken`` or ``DeviceLoginError/Code/invalidResponse``; nothing is stored
/// (OpenID Connect Core §12.2, RFC 6749 §6).
///
/// **Identity.** An ID token is believed only once verified (``IDTokenVerifier``: the signature with the issuer's key
/// from `jwks_uri`, and the claims): ``store(_:revokingIfNotSaved:)`` judges the sign-in's, a refresh judges a new
/// one when this state holds the issuer's key set (so a refresh fetches no keys), and ``idTokenVerification()``
/// judges on demand. The verdict is kept with the tokens; ``verifiedIDTokenClaims()`` gives the claims of a verified
/// token only.
///
/// **Failures.** An OAuth error from the token endpoint (`invalid_grant`, `invalid_client`...) ends the session:
/// the status becomes `noSession`, the stored tokens are removed and callers get
/// ``DeviceLoginError/Code/sessionEnded``. A network failure or a 5xx is transient: the session stays and the
/// caller gets ``DeviceLoginError/Code/transport``. After a 429 or 503 with `Retry-After`, no new refresh is
/// sent before that time (on the injected clock); callers get the same error meanwhile.
///
/// **Observing.** Each read of ``states`` makes a new stream that yields the current status, then every change.
///
/// ```swift
/// let store = try FileTokenStore(environment: ProcessInfo.processInfo.environment)
/// if let record = try await store.load(profile: "default") {
///     let state = TokenState(record: record, client: try record.profile.clientConfiguration(),
///                            store: store, transport: transport)
///     let token = try await state.freshAccessToken()  // no network while the stored token is valid
///     for await status in await state.states { print(status) }
/// }
/// ```
public actor TokenState {
    /// The session's status as observers see it.
    public enum Status: Sendable, Hashable {
        /// The store has not been read yet.
        case unknown
        /// Nobody is signed in (never, signed out, or the server ended the session).
        case noSession
        /// Signed in with these tokens.
        case authenticated(TokenSet)
    }

    /// The internal state: ``Status`` plus the refresh in flight.
    enum Phase {
        case unknown
        case noSession
        case authenticated(TokenSet)
        /// A refresh of `tokens` is running; every caller that needs it waits on `flight`.
        case refreshing(TokenSet, RefreshFlight)
    }

    /// The one refresh in flight: what it refreshes, its stored task, and its result for the waiters.
    struct RefreshFlight: Sendable {
        /// The resource the access token is for, or nil for the main access token.
        var resource: String?
        /// The result every waiter receives.
        var outcome: SharedOutcome<TokenSet>
        /// The task doing the work; stored so the refresh is one explicit unit, not per caller.
        var task: Task<Void, Never>
    }

    /// How many status changes a slow observer's stream buffers; older ones are dropped, the newest kept.
    public static let observerBufferSize = 64
    /// The refresh margin when none is given: 60 seconds.
    public static let defaultRefreshMargin = Duration.seconds(60)
    /// Leeway for the ID token's `exp` (see ``IDTokenClaims/validate(issuer:clientID:now:leeway:)``).
    public static let idTokenLeeway = IDTokenClaims.defaultLeeway

    /// The profile: its name keys the store, its endpoints are where requests go.
    public nonisolated let profile: Profile
    /// The client configuration used for every request (authentication, extra headers).
    public nonisolated let client: ClientConfiguration
    /// How long before expiry an access token is refreshed: default ``defaultRefreshMargin``.
    public nonisolated let refreshMargin: Duration

    let tokenStore: (any TokenStore)?
    let transport: any HTTPTransport
    let now: @Sendable () -> Date
    /// The injected clock, measured from when the state was created (for `Retry-After`).
    let clock: FlowClock
    /// The issuers' key sets, for verifying ID tokens.
    let keySets: JSONWebKeySetCache

    var phase: Phase
    /// Counts phase changes, so a slow `load()` does not overwrite a newer state with what it read.
    var generation: UInt64 = 0
    /// After a 429 or 503 with `Retry-After`: no refresh before this point on the clock, with the error to give.
    var retryNotBefore: (instant: Duration, error: DeviceLoginError)?
    private var observers: [UInt64: AsyncStream<Status>.Continuation] = [:]
    private var nextObserverID: UInt64 = 0
    private var lastPublished: Status

    /// Creates the state of a profile; it reads the store on first use (or on ``load()``).
    /// - Parameters:
    ///   - profile: The profile.
    ///   - client: The client configuration (usually `profile.clientConfiguration()`).
    ///   - store: Where tokens are kept; nil turns persistence off (tokens live in memory only).
    ///   - transport: How requests are sent.
    ///   - clock: The clock for waiting out `Retry-After`; default ``SystemTime/clock``.
    ///   - now: Wall-clock time, for expiry; default ``SystemTime/now()``.
    ///   - refreshMargin: How long before expiry to refresh; default ``defaultRefreshMargin``.
    ///   - keySets: The issuers' key sets known to the process, for verifying ID tokens; default a cache of this
    ///     state's own, on `clock`.
    public init(
        profile: Profile,
        client: ClientConfiguration,
        store: (any TokenStore)?,
        transport: any HTTPTransport,
        clock: any Clock<Duration> = SystemTime.clock,
        now: @escaping @Sendable () -> Date = SystemTime.now,
        refreshMargin: Duration = defaultRefreshMargin,
        keySets: JSONWebKeySetCache? = nil
    ) {
        self.init(
            profile: profile, client: client, store: store, transport: transport, clock: clock, now: now,
            refreshMargin: refreshMargin, phase: .unknown, keySets: keySets
        )
    }

    /// Creates the state from a record already read from `store`, so a still-valid token needs no further read.
    /// - Parameters:
    ///   - record: The profile's record, as read from `store`.
    ///   - client: The client configuration (usually `record.profile.clientConfiguration()`).
    ///   - store: The store the record came from; nil turns persistence off.
    ///   - transport: How requests are sent.
    ///   - clock: The clock for waiting out `Retry-After`.
    ///   - now: Wall-clock time, for expiry.
    ///   - refreshMargin: How long before expiry to refresh.
    ///   - keySets: The issuers' key sets known to the process; default a cache of this state's own.
    public init(
        record: ProfileRecord,
        client: ClientConfiguration,
        store: (any TokenStore)?,
        transport: any HTTPTransport,
        clock: any Clock<Duration> = SystemTime.clock,
        now: @escaping @Sendable () -> Date = SystemTime.now,
        refreshMargin: Duration = defaultRefreshMargin,
        keySets: JSONWebKeySetCache? = nil
    ) {
        self.init(
            profile: record.profile, client: client, store: store, transport: transport, clock: clock, now: now,
            refreshMargin: refreshMargin, phase: record.tokens.map { .authenticated($0) } ?? .noSession,
            keySets: keySets
        )
    }

    private init(
        profile: Profile,
        client: ClientConfiguration,
        store: (any TokenStore)?,
        transport: any HTTPTransport,
        clock: any Clock<Duration>,
        now: @escaping @Sendable () -> Date,
        refreshMargin: Duration,
        phase: Phase,
        keySets: JSONWebKeySetCache?
    ) {
        self.profile = profile
        self.client = client
        self.tokenStore = store
        self.transport = transport
        self.now = now
        self.clock = FlowClock(clock)
        self.keySets = keySets ?? JSONWebKeySetCache(clock: clock)
        self.refreshMargin = refreshMargin
        self.phase = phase
        self.lastPublished = Self.status(of: phase)
    }

    deinit {
        for observer in observers.values { observer.finish() }
    }

    // MARK: - Status

    /// The current status.
    public var status: Status { Self.status(of: phase) }

    /// The current tokens, without refreshing or reading the store; nil when not known to be signed in.
    public var tokens: TokenSet? {
        switch phase {
        case .authenticated(let tokens), .refreshing(let tokens, _): return tokens
        case .unknown, .noSession: return nil
        }
    }

    /// A new stream of status changes: the current status first, then each change, until the state is released.
    ///
    /// Any number of observers may listen; each read of this property makes a new stream. A slow observer's
    /// stream keeps the newest ``observerBufferSize`` changes.
    public var states: AsyncStream<Status> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: Status.self, bufferingPolicy: .bufferingNewest(Self.observerBufferSize)
        )
        continuation.yield(status)
        nextObserverID += 1
        observers[nextObserverID] = continuation
        return stream
    }

    static func status(of phase: Phase) -> Status {
        switch phase {
        case .unknown: return .unknown
        case .noSession: return .noSession
        case .authenticated(let tokens), .refreshing(let tokens, _): return .authenticated(tokens)
        }
    }

    /// Moves to `next` and tells observers when the public status changed.
    func setPhase(_ next: Phase) {
        phase = next
        generation &+= 1
        let published = Self.status(of: next)
        guard published != lastPublished else { return }
        lastPublished = published
        for (id, observer) in observers {
            if case .terminated = observer.yield(published) { observers[id] = nil }
        }
    }

    // MARK: - Loading and storing

    /// Reads the profile's tokens from the store.
    ///
    /// Waits for a refresh in flight first. Without a store, an unknown state becomes `noSession`.
    /// - Returns: The status after loading.
    /// - Throws: The store's ``DeviceLoginError`` (code ``DeviceLoginError/Code/storage``); `CancellationError`.
    @discardableResult
    public func load() async throws -> Status {
        try await waitForRefresh()
        guard let tokenStore else {
            if case .unknown = phase { setPhase(.noSession) }
            return status
        }
        let before = generation
        let record = try await tokenStore.load(profile: profile.name)
        // Something else changed the state while the store was read: it is newer than what was read.
        guard generation == before else { return status }
        setPhase(record?.tokens.map { .authenticated($0) } ?? .noSession)
        return status
    }

    /// Stores the tokens of a new sign-in, replacing the profile's tokens (atomically, in the store too).
    ///
    /// The profile is saved with them. Waits for a refresh in flight first, so it cannot overwrite these tokens.
    ///
    /// An ID token among them is verified first (``IDTokenVerifier``: the issuer's key from `jwks_uri`, fetched when
    /// this state does not hold it yet, and the claims), and the verdict kept with the tokens
    /// (``TokenSet/idTokenVerification``); a token that does not verify is stored all the same, judged unverified.
    ///
    /// A program that ends after signing in (a command-line tool) loses tokens it could not save: with
    /// `revokingIfNotSaved`, they are then revoked at the server (RFC 7009, as ``signOut(whenRevocationFails:)``
    /// does) rather than left valid with no copy anywhere, and the error says whether that worked. Check the store
    /// before the sign-in starts (``FileTokenStore/checkReady(profile:)``) so that this stays rare.
    ///
    /// ```swift
    /// try await store.checkReady(profile: profile.name)       // before the device authorization request
    /// let response = try await flow.pollForToken(authorization)
    /// try await state.store(response, revokingIfNotSaved: true)
    /// ```
    /// - Parameters:
    ///   - response: The token response of the device grant.
    ///   - revokingIfNotSaved: Whether to revoke the tokens when the store fails; default false: they are kept in
    ///     memory, and the status stays `authenticated`.
    /// - Throws: The store's ``DeviceLoginError``, saying what became of the tokens when they were revoked (the
    ///   status is then `noSession`); `CancellationError`.
    public func store(_ response: TokenResponse, revokingIfNotSaved: Bool = false) async throws {
        let receivedAt = now()
        let verdict = await idTokenVerdict(response.idToken, receivedAt: receivedAt, fetchingKeys: true)
        try await waitForRefresh()
        var tokens = TokenSet(response: response, receivedAt: receivedAt)
        tokens.idTokenVerification = verdict
        retryNotBefore = nil
        setPhase(.authenticated(tokens))
        guard let tokenStore else { return }
        let record = ProfileRecord(profile: profile, tokens: tokens)
        do {
            try await tokenStore.withExclusiveAccess(profile: profile.name) {
                try await tokenStore.save(record)
            }
        } catch let error as DeviceLoginError where revokingIfNotSaved {
            throw await revokeUnsaved(tokens, failure: error)
        }
    }

    /// Forgets the tokens here and in the store, without telling the server (see ``signOut(whenRevocationFails:)``
    /// for that).
    ///
    /// The profile's settings stay in the store.
    /// - Throws: The store's ``DeviceLoginError``; `CancellationError`.
    public func clearCredentials() async throws {
        try await waitForRefresh()
        setPhase(.noSession)
        try await clearStoredTokens()
    }

    /// Removes the tokens from the store's record, under the profile's lock.
    func clearStoredTokens() async throws {
        guard let tokenStore else { return }
        let name = profile.name
        try await tokenStore.withExclusiveAccess(profile: name) {
            try await Self.removeTokens(from: tokenStore, profile: name)
        }
    }

    /// Saves the profile's record without tokens. Call only inside the profile's exclusive section.
    static func removeTokens(from store: any TokenStore, profile name: String) async throws {
        guard var record = try await store.load(profile: name), record.tokens != nil else { return }
        record.tokens = nil
        try await store.save(record)
    }

    /// Waits until no refresh is in flight. A refresh's failure is not this caller's: it is ignored.
    func waitForRefresh() async throws {
        while case .refreshing(_, let flight) = phase {
            _ = try? await flight.outcome.value()
            try Task.checkCancellation()
        }
    }

    /// The error for a caller who asks for a token with nobody signed in.
    var notSignedIn: DeviceLoginError {
        DeviceLoginError(
            .noSession, "not signed in (profile \(profile.name))", hint: "sign in first",
            reason: .notSignedIn(profile: profile.name)
        )
    }
}
