#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Verifies ID tokens: the signature against the issuer's published key, and the claims (OpenID Connect Core 1.0
/// §3.1.3.7).
///
/// In order, each failure a ``IDTokenVerification/Outcome/refused`` verdict that says why:
/// 1. The token is a compact JWS (RFC 7515 §7.1), strictly: three parts of unpadded base64url, no `crit`.
/// 2. `alg` is not `none`, not an HMAC algorithm (`HS256`...: a public key must never serve as a shared secret,
///    RFC 8725 §3.1–3.2), is one the server lists in `id_token_signing_alg_values_supported` (RS256 alone when the
///    metadata does not list any, §3.1.3.7 item 7), and one this library verifies (``SignatureAlgorithm``).
/// 3. The claims: `iss` is the issuer exactly, `aud` contains the client ID,
///    `azp` is the client ID when present and required with several audiences, `exp` is after the time checked
///    (less ``Expectations/leeway``) and `iat` not after it (plus the leeway).
/// 4. The key: the one the header's `kid` names in the issuer's key set (``JSONWebKeySetCache``), or without a
///    `kid` the only key that suits the algorithm. A `kid` the set lacks fetches the set again once — the issuer may
///    have rotated its keys — no more than once per ``JSONWebKeySetCache/refetchInterval``.
/// 5. The signature verifies with that key.
///
/// A failure to check — the key set cannot be fetched, libcrypto cannot be loaded, the set may not be fetched again
/// yet — is an ``IDTokenVerification/Outcome/undetermined`` verdict instead: not verified, and worth trying later.
///
/// ```swift
/// let verifier = IDTokenVerifier(jwksURI: endpoints.jwks, keys: JSONWebKeySetCache(),
///                                fetcher: JSONWebKeySetFetcher(transport: transport))
/// let expected = IDTokenVerifier.Expectations(issuer: metadata.issuer, clientID: "cli",
///                                             algorithms: metadata.idTokenSigningAlgorithms)
/// let verdict = await verifier.verify(idToken, expecting: expected, at: .now)
/// ```
public struct IDTokenVerifier: Sendable {
    /// What a token must say: who issued it, to whom, signed how.
    public struct Expectations: Sendable, Hashable {
        /// The issuer identifier `iss` must equal, character for character (§3.1.3.7 item 2).
        public var issuer: String
        /// The client ID `aud` must contain (item 3) and `azp` must be (item 4–5).
        public var clientID: String
        /// `id_token_signing_alg_values_supported` as the metadata lists it; nil when it does not (RS256 only).
        public var algorithms: [String]?
        /// The clock difference tolerated on `exp` and `iat`.
        public var leeway: Duration

        /// Creates expectations.
        /// - Parameters:
        ///   - issuer: The issuer identifier, exactly as the metadata's `issuer`.
        ///   - clientID: The client ID.
        ///   - algorithms: The metadata's `id_token_signing_alg_values_supported`, if listed.
        ///   - leeway: Clock difference tolerated; default ``IDTokenVerifier/defaultLeeway``.
        public init(issuer: String, clientID: String, algorithms: [String]? = nil, leeway: Duration = defaultLeeway) {
            self.issuer = issuer
            self.clientID = clientID
            self.algorithms = algorithms
            self.leeway = leeway
        }

        /// The expectations of a profile's tokens: its server's issuer (the metadata's, else the profile's), its
        /// client, its server's algorithms. Nil when the issuer is not known.
        public init?(profile: Profile, leeway: Duration = defaultLeeway) {
            guard let issuer = profile.endpoints.issuer ?? profile.issuer else { return nil }
            self.init(
                issuer: issuer, clientID: profile.clientID, algorithms: profile.endpoints.idTokenSigningAlgorithms,
                leeway: leeway
            )
        }
    }

    /// The clock difference tolerated on `exp` and `iat`: 60 seconds.
    public static let defaultLeeway = IDTokenClaims.defaultLeeway

    /// The issuer's `jwks_uri`; nil when it publishes none (then no token verifies).
    public let jwksURI: URL?
    let keys: JSONWebKeySetCache
    let fetcher: JSONWebKeySetFetcher

    /// Creates a verifier.
    /// - Parameters:
    ///   - jwksURI: The issuer's `jwks_uri`.
    ///   - keys: The key sets known to this process.
    ///   - fetcher: How key sets are fetched.
    public init(jwksURI: URL?, keys: JSONWebKeySetCache, fetcher: JSONWebKeySetFetcher) {
        self.jwksURI = jwksURI
        self.keys = keys
        self.fetcher = fetcher
    }

    /// Verifies `idToken`.
    /// - Parameters:
    ///   - idToken: The ID token, a compact JWS.
    ///   - expected: What it must say.
    ///   - time: The time `exp` and `iat` are checked against: when the token arrived, by the injected `now`.
    ///   - fetchingKeys: Whether the key set may be fetched (and fetched again); false checks with a kept set only,
    ///     and is undetermined without one. Default true.
    ///   - now: When the keys are fetched, by the injected `now`: a verdict of keys that could not be fetched records
    ///     it (``IDTokenVerification/keysUnavailableAt``). Default `time`.
    /// - Returns: The verdict. Never throws: every failure is a verdict that says why.
    public func verify(
        _ idToken: String, expecting expected: Expectations, at time: Date, fetchingKeys: Bool = true,
        now: Date? = nil
    ) async -> IDTokenVerification {
        let digest: String
        do {
            digest = try SHA256Digest.base64URL(of: idToken)
        } catch {
            return IDTokenVerification(
                outcome: .undetermined, problem: error.message, tokenDigest: nil, checkedAt: time)
        }
        func verdict(_ outcome: IDTokenVerification.Outcome, _ problem: String?, _ alg: String?, _ kid: String?)
            -> IDTokenVerification
        {
            IDTokenVerification(
                outcome: outcome, problem: problem, algorithm: alg, keyID: kid, tokenDigest: digest, checkedAt: time
            )
        }
        let jws: CompactJWS
        do {
            jws = try CompactJWS(idToken, maximumBytes: IDTokenClaims.maximumTokenBytes)
        } catch {
            return verdict(.refused, "the ID token is malformed: \(error.reason)", nil, nil)
        }
        // No key's kid is longer (JSONWebKey's bound); a longer one would only bloat the verdict and the messages.
        if let kid = jws.keyID, kid.utf8.count > JSONWebKey.maximumKeyIDBytes {
            return verdict(
                .refused, "the ID token names a key (kid) longer than \(JSONWebKey.maximumKeyIDBytes) bytes", nil, nil
            )
        }
        let keyID = jws.keyID
        let algorithm: SignatureAlgorithm
        switch Self.algorithm(jws.algorithmName, allowed: expected.algorithms) {
        case .success(let found): algorithm = found
        case .failure(let problem): return verdict(.refused, problem.message, nil, keyID)
        }
        do {
            let claims = try IDTokenClaims(jsonObject: try JSONValue.decodeObject(from: Data(jws.payload)))
            if let problem = Self.claimsProblem(claims, expecting: expected, at: time) {
                return verdict(.refused, problem, algorithm.name, keyID)
            }
        } catch let error as DeviceLoginError {
            return verdict(.refused, error.message, algorithm.name, keyID)
        } catch {
            return verdict(.refused, "the ID token's payload is not a JSON object", algorithm.name, keyID)
        }
        let key: JSONWebKey
        switch await self.key(for: algorithm, keyID: keyID, fetching: fetchingKeys) {
        case .success(let found): key = found
        case .failure(let problem):
            var judged = verdict(problem.outcome, problem.message, algorithm.name, keyID)
            if problem.keysUnavailable { judged.keysUnavailableAt = now ?? time }
            return judged
        }
        do {
            guard try jws.verifies(algorithm, with: key) else {
                return verdict(
                    .refused,
                    "the ID token's signature does not verify with the issuer's key"
                        + (key.keyID.map { " \(Self.quoted($0))" } ?? ""), algorithm.name, key.keyID ?? keyID
                )
            }
        } catch {
            let outcome: IDTokenVerification.Outcome = error.code == .libraryUnavailable ? .undetermined : .refused
            return verdict(outcome, "the issuer's key cannot verify it: \(error.message)", algorithm.name, keyID)
        }
        return verdict(.verified, nil, algorithm.name, key.keyID ?? keyID)
    }

    /// Why a check could not pass: the words, and whether it is final.
    struct Problem: Error, Sendable, Hashable {
        var message: String
        var outcome: IDTokenVerification.Outcome = .refused
        /// Whether the key set could not be fetched (undetermined).
        var keysUnavailable = false
    }

    /// The algorithm a header's `alg` names, when it may be verified (§3.1.3.7 items 6–7, RFC 8725 §3.1–3.2).
    /// - Parameters:
    ///   - name: The header's `alg`.
    ///   - allowed: The metadata's `id_token_signing_alg_values_supported`; nil for RS256 only.
    static func algorithm(_ name: String, allowed: [String]?) -> Result<SignatureAlgorithm, Problem> {
        if name == "none" {
            return .failure(Problem(message: "the ID token is not signed (alg none), which is never accepted"))
        }
        if SignatureAlgorithm.isHMAC(name) {
            return .failure(
                Problem(
                    message: "the ID token is signed with \(quoted(name)), an HMAC algorithm, which is never accepted")
            )
        }
        let listed = allowed ?? [SignatureAlgorithm.rs256.name]
        guard listed.contains(name) else {
            let list = allowed.map { "lists " + $0.prefix(8).map(quoted).joined(separator: ", ") }
            return .failure(
                Problem(
                    message: "the ID token is signed with \(quoted(name)), which the server does not list "
                        + "(its metadata \(list ?? "lists none, so only RS256 is accepted"))"
                ))
        }
        guard let algorithm = SignatureAlgorithm(name: name) else {
            return .failure(Problem(message: "the ID token is signed with \(quoted(name)), which is not supported"))
        }
        return .success(algorithm)
    }

    /// Why `claims` do not fit `expected` at `time`, or nil when they do (OpenID Connect Core §3.1.3.7 items 2–5, 9,
    /// 10).
    ///
    /// - `iss` must equal the issuer exactly (item 2: "MUST exactly match").
    /// - `aud` must contain the client ID (item 3); with several audiences `azp` must be present (item 4), and when
    ///   present it must be the client ID (item 5).
    /// - `exp` must be after `time` less the leeway (item 9); `iat` must not be after `time` plus the leeway (item
    ///   10: "reject tokens that were issued too far away from the current time").
    static func claimsProblem(_ claims: IDTokenClaims, expecting expected: Expectations, at time: Date) -> String? {
        let leeway = expected.leeway.timeInterval
        if claims.issuer != expected.issuer {
            return "the ID token was issued by \(quoted(claims.issuer)), not by \(quoted(expected.issuer))"
        }
        guard claims.audience.contains(expected.clientID) else {
            let audience = claims.audience.prefix(8).map(quoted).joined(separator: ", ")
            return "the ID token is for \(audience.isEmpty ? "no audience" : audience), not for client "
                + quoted(expected.clientID)
        }
        if claims.audience.count > 1, claims.authorizedParty == nil {
            return "the ID token has several audiences but no azp naming the client"
        }
        if let party = claims.authorizedParty, party != expected.clientID {
            return "the ID token was issued to \(quoted(party)) (azp), not to client \(quoted(expected.clientID))"
        }
        guard time < claims.expiresAt.addingTimeInterval(leeway) else {
            return "the ID token had expired (exp \(DateStamp.text(claims.expiresAt))) when it was checked"
        }
        guard claims.issuedAt <= time.addingTimeInterval(leeway) else {
            return "the ID token was issued in the future (iat \(DateStamp.text(claims.issuedAt)))"
        }
        return nil
    }

    /// The key for `algorithm` and `keyID` from the issuer's set, fetching it (again) when allowed and needed.
    private func key(for algorithm: SignatureAlgorithm, keyID: String?, fetching: Bool) async
        -> Result<JSONWebKey, Problem>
    {
        guard let jwksURI else {
            return .failure(Problem(message: "the server publishes no key set (jwks_uri) to verify it with"))
        }
        let set: JSONWebKeySet
        do {
            if let kept = await keys.cached(jwksURI) {
                set = kept
            } else if fetching {
                set = try await keys.keySet(jwksURI, using: fetcher)
            } else {
                return .failure(Problem(message: "the issuer's keys are not at hand", outcome: .undetermined))
            }
            if let key = try set.key(for: algorithm, keyID: keyID) { return .success(key) }
            guard fetching else {
                return .failure(Problem(message: Self.unknownKey(keyID, algorithm, in: set), outcome: .undetermined))
            }
            // §10.1.1: a signer may rotate its keys; a kid the kept set lacks may be a new key. Fetched again once.
            guard let fresh = try await keys.refetch(jwksURI, using: fetcher) else {
                let interval = DateStamp.minutes(keys.refetchInterval)
                return .failure(
                    Problem(
                        message: Self.unknownKey(keyID, algorithm, in: set) + "; the set was fetched again less than "
                            + "\(interval) ago, so not now", outcome: .undetermined
                    ))
            }
            guard let key = try fresh.key(for: algorithm, keyID: keyID) else {
                return .failure(Problem(message: Self.unknownKey(keyID, algorithm, in: fresh) + ", even fetched again"))
            }
            return .success(key)
        } catch let error as CryptoError {
            return .failure(Problem(message: "no key of the issuer's can verify it: \(error.message)"))
        } catch let error as DeviceLoginError {
            return .failure(Problem(message: error.message, outcome: .undetermined, keysUnavailable: true))
        } catch {
            let message = "the issuer's keys could not be fetched"
            return .failure(Problem(message: message, outcome: .undetermined, keysUnavailable: true))
        }
    }

    /// Why `set` gives no key for `keyID`: the reason the set refused the entry with that `kid`, when it did (a
    /// 1024-bit RSA key is refused, not missing), else that there is none.
    private static func unknownKey(_ keyID: String?, _ algorithm: SignatureAlgorithm, in set: JSONWebKeySet) -> String {
        guard let keyID else { return "the issuer's key set has no key for \(algorithm)" }
        if let reason = set.refusedKeys[keyID] {
            return "the issuer's key \(quoted(keyID)) was refused: \(visible(reason, limit: 160))"
        }
        return "the issuer's key set has no key \(quoted(keyID))"
    }

    /// A value in a message: quoted, at most 64 characters, with no character that draws nothing (controls, escape
    /// sequences' introducers, bidi overrides): a `kid` or an `alg` comes from the server.
    static func quoted(_ value: String) -> String {
        "\"" + visible(value, limit: 64) + "\""
    }

    /// `value` without the characters that draw nothing, at most `limit` characters (then an ellipsis).
    private static func visible(_ value: String, limit: Int) -> String {
        let kept = String(String.UnicodeScalarView(value.unicodeScalars.filter { !$0.drawsNothing }))
        return kept.count > limit ? String(kept.prefix(limit)) + "…" : kept
    }
}

/// Times in verification messages.
private enum DateStamp {
    /// Unix seconds, as the claims carry them.
    static func text(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970
        guard seconds.isFinite, abs(seconds) < 1e15 else { return "far off" }
        return "\(Int64(seconds.rounded(.down)))"
    }

    /// A duration in whole minutes: "5 minutes".
    static func minutes(_ duration: Duration) -> String {
        let minutes = max(1, duration.components.seconds / 60)
        return minutes == 1 ? "1 minute" : "\(minutes) minutes"
    }
}
