#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension TokenState {
    /// The verdict on the session's ID token: verified, refused (and why), or undetermined; nil when the session has
    /// no ID token.
    ///
    /// The verdict kept with the tokens (``TokenSet/idTokenVerification``) answers, with no request, when it is final
    /// and about this very token (``IDTokenVerification/isAbout(_:)``): ``store(_:revokingIfNotSaved:)`` judges the ID
    /// token of a sign-in, a refresh judges a new one when this state holds the issuer's keys. Otherwise the token is
    /// judged now (``IDTokenVerifier``), against the time the tokens were received: the issuer's key set is fetched
    /// when this state does not hold it, and for a profile saved before ID tokens were verified, which names no
    /// `jwks_uri`, the server's metadata first. A final verdict is then kept, in memory and in the store. So is one
    /// of keys that could not be fetched (``IDTokenVerification/keysUnavailableAt``), which then answers, with no
    /// request, for `recheckInterval` (5 minutes) after that check.
    ///
    /// ```swift
    /// if let verdict = try await state.idTokenVerification(), !verdict.isVerified {
    ///     print("The ID token is not verified: \(verdict.problem ?? "")")
    /// }
    /// ```
    /// - Returns: The verdict, or nil without an ID token.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/noSession`` when not signed in, the store's
    ///   errors while loading; `CancellationError`. Failing to verify is a verdict, not an error.
    public func idTokenVerification() async throws -> IDTokenVerification? {
        if case .unknown = phase { try await load() }
        guard let tokens else { throw notSignedIn }
        guard let idToken = tokens.idToken else { return nil }
        if let kept = tokens.idTokenVerification, kept.isFinal || kept.isRecent(at: now(), within: recheckInterval),
            kept.isAbout(idToken)
        {
            return kept
        }
        var endpoints = profile.endpoints
        if endpoints.jwks == nil, let issuer = endpoints.issuer ?? profile.issuer {
            // Saved before ID tokens were verified: the metadata names the key set.
            do {
                let metadata = try await Discovery(transport: transport, allowInsecureHTTP: client.allowInsecureHTTP)
                    .metadata(issuer: issuer)
                endpoints.issuer = endpoints.issuer ?? metadata.issuer
                endpoints.jwks = metadata.jwksURI.flatMap { URL(string: $0) }
                endpoints.idTokenSigningAlgorithms = metadata.idTokenSigningAlgorithms
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                return IDTokenVerification(
                    outcome: .undetermined,
                    problem: "the server's metadata, which names its keys, could not be fetched: "
                        + ((error as? DeviceLoginError)?.message ?? "\(error)"),
                    tokenDigest: nil, checkedAt: now()
                )
            }
        }
        guard
            let verdict = await idTokenVerdict(
                idToken, receivedAt: tokens.issuedAt, fetchingKeys: true, endpoints: endpoints
            )
        else { return nil }
        try Task.checkCancellation()
        if verdict.isFinal || verdict.keysUnavailableAt != nil {
            await keep(verdict, for: idToken, endpoints: endpoints == profile.endpoints ? nil : endpoints)
        }
        return verdict
    }

    /// How long a verdict of keys that could not be fetched (``IDTokenVerification/keysUnavailableAt``) is reused
    /// before they are fetched again: the key set cache's refetch allowance (``JSONWebKeySetCache/refetchInterval``,
    /// 5 minutes by default), so that a slow or unreachable `jwks_uri` does not make every `status` wait again.
    nonisolated var recheckInterval: Duration { keySets.refetchInterval }

    /// The claims of the session's ID token, when it is verified (``idTokenVerification()``): the identity to show
    /// and trust.
    ///
    /// ```swift
    /// let claims = try await state.verifiedIDTokenClaims()
    /// print("Signed in as \(claims.preferredUsername ?? claims.email ?? claims.subject)")
    /// ```
    /// - Returns: The claims.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/invalidIDToken`` when there is no ID token
    ///   or it is not verified (the message says why), ``DeviceLoginError/Code/noSession`` when not signed in;
    ///   `CancellationError`.
    public func verifiedIDTokenClaims() async throws -> IDTokenClaims {
        guard let verdict = try await idTokenVerification() else { throw noIDToken }
        guard verdict.isVerified, let idToken = tokens?.idToken else {
            throw DeviceLoginError(
                .invalidIDToken,
                "the ID token of profile \(profile.name) is not verified: "
                    + (verdict.problem ?? "no reason given"),
                hint: verdict.outcome == .undetermined ? "try again later" : "sign in again"
            )
        }
        return try IDTokenClaims(idToken: idToken)
    }

    /// Decodes and checks the session's ID token without verifying its signature (OpenID Connect Core §3.1.3.7
    /// items 2, 3 and 9 only): `iss` is the profile's issuer when known, `aud` contains the client ID, `exp` is in
    /// the future by the injected `now` (with ``idTokenLeeway``).
    ///
    /// - Important: Nothing here vouches for the claims: anyone who could write the token file could have written
    ///   them. Show or trust an identity only from ``verifiedIDTokenClaims()``.
    /// - Returns: The claims.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/noSession`` when not signed in,
    ///   ``DeviceLoginError/Code/invalidIDToken`` when there is no ID token or a check fails.
    public func unverifiedIDTokenClaims() async throws -> IDTokenClaims {
        if case .unknown = phase { try await load() }
        guard let tokens else { throw notSignedIn }
        guard let idToken = tokens.idToken else { throw noIDToken }
        let claims = try IDTokenClaims(idToken: idToken)
        try claims.validate(
            issuer: profile.issuer ?? profile.endpoints.issuer, clientID: client.clientID, now: now(),
            leeway: Self.idTokenLeeway
        )
        return claims
    }

    private var noIDToken: DeviceLoginError {
        DeviceLoginError(
            .invalidIDToken, "the session of profile \(profile.name) has no ID token",
            hint: "sign in with the openid scope"
        )
    }

    /// The verdict on `idToken`, received at `receivedAt`; nil without one.
    ///
    /// With `fetchingKeys` false (a refresh), nil too when this state does not hold the issuer's keys: then nothing
    /// is fetched or computed, and libcrypto is not loaded; the token is judged when asked
    /// (``idTokenVerification()``).
    func idTokenVerdict(
        _ idToken: String?, receivedAt: Date, fetchingKeys: Bool, endpoints: ServerEndpoints? = nil
    ) async -> IDTokenVerification? {
        guard let idToken else { return nil }
        let endpoints = endpoints ?? profile.endpoints
        if !fetchingKeys {
            guard let jwks = endpoints.jwks, await keySets.cached(jwks) != nil else { return nil }
        }
        guard let issuer = endpoints.issuer ?? profile.issuer else {
            return IDTokenVerification(
                outcome: .refused, problem: "the issuer is not known, so its ID tokens cannot be verified",
                tokenDigest: try? SHA256Digest.base64URL(of: idToken), checkedAt: receivedAt
            )
        }
        let expected = IDTokenVerifier.Expectations(
            issuer: issuer, clientID: client.clientID, algorithms: endpoints.idTokenSigningAlgorithms,
            leeway: Self.idTokenLeeway
        )
        let verifier = IDTokenVerifier(
            jwksURI: endpoints.jwks, keys: keySets,
            // The key set's wait is a network wait, measured in real time like the transport's own: on the state's
            // clock, a test's virtual time jumped past it while an in-process fetch was still being computed.
            fetcher: JSONWebKeySetFetcher(
                transport: transport, allowInsecureHTTP: client.allowInsecureHTTP, headers: client.additionalHeaders
            )
        )
        return await verifier.verify(
            idToken, expecting: expected, at: receivedAt, fetchingKeys: fetchingKeys, now: now())
    }

    /// The refreshed tokens `next` with the verdict on their ID token, when it is new and this state holds the keys.
    func judgingIDToken(of next: TokenSet) async -> TokenSet {
        guard next.idTokenVerification == nil, next.idToken != nil else { return next }
        var judged = next
        judged.idTokenVerification = await idTokenVerdict(next.idToken, receivedAt: now(), fetchingKeys: false)
        return judged
    }

    /// Keeps a final verdict on `idToken`: in memory, and in the store when the stored tokens still hold that token.
    /// The endpoints discovered for a profile saved without a key set are saved too. A store that cannot be written
    /// is not an error: the token is judged again next time.
    private func keep(_ verdict: IDTokenVerification, for idToken: String, endpoints: ServerEndpoints?) async {
        if case .authenticated(var current) = phase, current.idToken == idToken {
            current.idTokenVerification = verdict
            setPhase(.authenticated(current))
        }
        guard let tokenStore else { return }
        let name = profile.name
        try? await tokenStore.withExclusiveAccess(profile: name) {
            guard var record = try await tokenStore.load(profile: name), var stored = record.tokens,
                stored.idToken == idToken
            else { return }
            stored.idTokenVerification = verdict
            record.tokens = stored
            if let endpoints, record.profile.endpoints.jwks == nil {
                record.profile.endpoints.jwks = endpoints.jwks
                record.profile.endpoints.idTokenSigningAlgorithms = endpoints.idTokenSigningAlgorithms
            }
            try await tokenStore.save(record)
        }
    }
}
