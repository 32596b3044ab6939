#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension RefreshDecision {
    /// What a refresh must not change: the issuer and client the session belongs to, and the scopes it asked for.
    struct Grant: Sendable, Hashable {
        /// The issuer ID tokens must come from (the profile's); nil when it is not known.
        var issuer: String?
        /// The client ID, which an ID token's `aud` must contain.
        var clientID: String
        /// The scopes asked for at sign-in: the scope held when the server's answer did not name one (RFC 6749 §5.1).
        var requestedScopes: [String]
        /// Clock difference tolerated on an ID token's `exp`.
        var leeway: Duration = IDTokenClaims.defaultLeeway
    }

    /// Why the tokens of a refresh reply must not replace `current`, or nil when they may.
    ///
    /// A refresh renews a session; it must not change whose it is or what it may do:
    /// - A new ID token must pass the checks of OpenID Connect Core §3.1.3.7 that need no key (`iss` the issuer,
    ///   `aud` the client, `exp` in the future), and §12.2: "its iss Claim Value MUST be the same as in the ID Token
    ///   issued when the original authentication occurred, its sub Claim Value MUST be the same", and "its aud Claim
    ///   Value MUST be the same" (as a set: the order is not meaningful). The comparison is
    ///   with the session's ID token when it can be read; a session without one has no identity to keep.
    /// - A `scope` may be narrower than the one held, never wider (RFC 6749 §6: the scope "MUST NOT include any scope
    ///   not originally granted by the resource owner"). The scope held is the session's, or when the server never
    ///   named one, the scopes asked for; when neither is known there is nothing to compare with.
    /// - Parameters:
    ///   - response: The refresh reply, read.
    ///   - current: The tokens whose refresh token was sent.
    ///   - grant: The issuer, client and scopes of the session.
    ///   - receivedAt: When the reply arrived, for `exp`.
    /// - Returns: ``DeviceLoginError/Code/invalidIDToken`` for an ID token that does not fit,
    ///   ``DeviceLoginError/Code/invalidResponse`` for a wider scope; nil when the tokens may be stored.
    static func refusal(
        of response: TokenResponse, replacing current: TokenSet, grant: Grant, receivedAt: Date
    ) -> DeviceLoginError? {
        if let idToken = response.idToken,
            let refusal = idTokenRefusal(idToken, replacing: current.idToken, grant: grant, receivedAt: receivedAt)
        {
            return refusal
        }
        return scopeRefusal(response.scope, holding: current.scope, grant: grant)
    }

    private static func idTokenRefusal(
        _ idToken: String, replacing original: String?, grant: Grant, receivedAt: Date
    ) -> DeviceLoginError? {
        let claims: IDTokenClaims
        do {
            claims = try IDTokenClaims(idToken: idToken)
            try claims.validate(issuer: grant.issuer, clientID: grant.clientID, now: receivedAt, leeway: grant.leeway)
        } catch let error as DeviceLoginError {
            return refused(.invalidIDToken, error.message)
        } catch {
            return refused(.invalidIDToken, "the new ID token cannot be read")
        }
        guard let original = original.flatMap({ try? IDTokenClaims(idToken: $0) }) else { return nil }
        if claims.issuer != original.issuer {
            return refused(
                .invalidIDToken,
                "the new ID token was issued by \(quoted(claims.issuer)), the session's by \(quoted(original.issuer))"
            )
        }
        if claims.subject != original.subject {
            return refused(
                .invalidIDToken,
                "the new ID token is for another user (sub \(quoted(claims.subject)), the session's is "
                    + "\(quoted(original.subject)))",
                hint: "sign in again to change accounts"
            )
        }
        if Set(claims.audience) != Set(original.audience) {
            let audiences = { (list: [String]) in list.prefix(8).map(quoted).joined(separator: ", ") }
            return refused(
                .invalidIDToken,
                "the new ID token is for other audiences (\(audiences(claims.audience)); the session's: "
                    + "\(audiences(original.audience)))"
            )
        }
        return nil
    }

    private static func scopeRefusal(_ scope: String?, holding held: String?, grant: Grant) -> DeviceLoginError? {
        guard let scope else { return nil }
        let reference = held.map { Set(words($0)) } ?? Set(grant.requestedScopes)
        guard held != nil || !reference.isEmpty else { return nil }
        let wider = words(scope).filter { !reference.contains($0) }
        guard !wider.isEmpty else { return nil }
        let names = Array(Set(wider)).sorted().prefix(8).map(quoted).joined(separator: ", ")
        return refused(
            .invalidResponse, "the server granted scope the session does not hold (\(names))", rule: "RFC 6749 §6",
            hint: "sign in again to ask for more scope"
        )
    }

    /// The refusal of a refresh reply: `reason`, the rule it breaks, and that the session stays as it was.
    private static func refused(
        _ code: DeviceLoginError.Code, _ reason: String, rule: String = "OpenID Connect Core §12.2",
        hint: String = "the server may be misconfigured; if this persists, sign in again"
    ) -> DeviceLoginError {
        DeviceLoginError(
            code, "refused the tokens of a refresh: \(reason) (\(rule)); the session is kept as it was", hint: hint
        )
    }

    private static func words(_ scope: String) -> [String] {
        scope.split(separator: " ").map(String.init)
    }

    /// A claim or scope value in a message: quoted, at most 64 characters.
    private static func quoted(_ value: String) -> String {
        "\"" + (value.count > 64 ? String(value.prefix(64)) + "…" : value) + "\""
    }
}
