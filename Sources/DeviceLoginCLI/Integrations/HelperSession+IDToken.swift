import DeviceLogin

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension HelperSession {
    /// The sign-in's ID token, valid for at least ``minimumLifetime``, with its `exp`: for the Kubernetes clusters
    /// that authenticate with their OpenID Connect authenticator, which takes ID tokens (kubelogin's answer).
    ///
    /// When the stored ID token expires sooner, the tokens are refreshed first, with the same single-flight refresh
    /// as ``freshToken()``: an OpenID provider sends a new ID token with each refresh (OpenID Connect Core §12.2).
    /// Its claims are read, not verified: the cluster verifies the signature.
    /// - Parameter now: The wall clock.
    /// - Throws: ``SignInNeeded`` as ``freshToken()``; ``DeviceLoginError`` with code
    ///   ``DeviceLoginError/Code/invalidIDToken`` (exit 76) when the sign-in holds no ID token (it did not ask for the
    ///   `openid` scope) or the refresh brought none that stays valid.
    func freshIDToken(now: @Sendable () -> Date) async throws -> (token: String, expiresAt: Date?) {
        let state = session.state
        let lifetime = TimeInterval(Self.minimumLifetime.components.seconds)
        return try await session.needingSignIn {
            let access = try await state.freshAccessToken(minimumTTL: Self.minimumLifetime)
            guard await state.tokens?.idToken != nil else {
                throw DeviceLoginError(
                    .invalidIDToken, "the sign-in of profile '\(profile.name)' holds no ID token",
                    hint: "sign in with the openid scope (device-login login --scope openid ...)")
            }
            if let usable = Self.idToken(in: await state.tokens, validAfter: now().addingTimeInterval(lifetime)) {
                return usable
            }
            _ = try await state.freshAccessToken(replacing: access)
            if let usable = Self.idToken(in: await state.tokens, validAfter: now().addingTimeInterval(lifetime)) {
                return usable
            }
            throw DeviceLoginError(
                .invalidIDToken, "the server's refresh brought no ID token that stays valid for 60 s",
                hint: "sign in again, or leave out --id-token to answer with the access token")
        }
    }

    /// The ID token in `tokens` with its expiry, when it can be read and expires after `validAfter`.
    static func idToken(in tokens: TokenSet?, validAfter: Date) -> (token: String, expiresAt: Date?)? {
        guard let idToken = tokens?.idToken, let claims = try? IDTokenClaims(idToken: idToken),
            claims.expiresAt > validAfter
        else { return nil }
        return (idToken, claims.expiresAt)
    }
}
