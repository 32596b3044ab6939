#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension TokenState {
    /// Marks the access token as expired after a resource server rejected it, so that the next
    /// ``freshAccessToken(minimumTTL:)``, in this process or another, refreshes it. Signs nothing out: the refresh
    /// token stays.
    ///
    /// This is git's `erase`: git rejected the credential a helper gave it. Nothing is marked when the token held
    /// now is another one — a refresh in between already replaced the rejected token, and marking its successor
    /// would throw a good token away. The change is made inside the store's
    /// ``TokenStore/withExclusiveAccess(profile:_:)``, so it cannot undo a concurrent refresh.
    /// - Parameter rejectedToken: The access token that was rejected; nil marks whichever is held.
    /// - Returns: Whether a token was marked.
    /// - Throws: The store's errors; `CancellationError`.
    @discardableResult
    public func markAccessTokenStale(_ rejectedToken: String?) async throws -> Bool {
        try await waitForRefresh()
        let mark: @Sendable (TokenSet) -> TokenSet? = { tokens in
            guard rejectedToken == nil || tokens.accessToken == rejectedToken else { return nil }
            var stale = tokens
            stale.expiresAt = Date(timeIntervalSince1970: 0)
            return stale
        }
        guard let tokenStore else {
            guard let held = tokens, let stale = mark(held) else { return false }
            setPhase(.authenticated(stale))
            return true
        }
        let name = profile.name
        let marked = try await tokenStore.withExclusiveAccess(profile: name) { () async throws -> TokenSet? in
            guard let record = try await tokenStore.load(profile: name), let stored = record.tokens,
                let stale = mark(stored)
            else { return nil }
            try await tokenStore.save(ProfileRecord(profile: record.profile, tokens: stale))
            return stale
        }
        guard let marked else { return false }
        setPhase(.authenticated(marked))
        return true
    }
}
