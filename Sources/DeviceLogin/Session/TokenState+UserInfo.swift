#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension TokenState {
    /// Fetches the user's claims from the userinfo endpoint (OpenID Connect Core §5.3).
    ///
    /// Sends `GET` with `Authorization: Bearer` and a fresh access token (refreshing first when needed) — or, for a
    /// DPoP-bound token, `Authorization: DPoP` and a proof (RFC 9449 §7.1). When the
    /// endpoint answers 401 with `WWW-Authenticate: Bearer error="invalid_token"` (RFC 6750 §3.1), the token is
    /// refreshed once, even if it looked valid, and the request sent once more. When the session has an ID token,
    /// the response's `sub` must equal the ID token's (§5.3.2: "the UserInfo Response MUST NOT be used" otherwise).
    ///
    /// ```swift
    /// let info = try await state.userInfo()
    /// print(info.preferredUsername ?? info.subject)
    /// ```
    /// - Returns: The claims.
    /// - Throws: ``DeviceLoginError``: ``DeviceLoginError/Code/configuration`` without a userinfo endpoint,
    ///   ``DeviceLoginError/Code/oauth`` when the endpoint refuses the token, ``DeviceLoginError/Code/transport``
    ///   for a network failure or an unexpected status, ``DeviceLoginError/Code/invalidResponse`` for an
    ///   unreadable answer or a `sub` that does not match; the errors of ``freshAccessToken(minimumTTL:)``.
    public func userInfo() async throws -> UserInfo {
        guard let endpoint = profile.endpoints.userinfo else {
            throw DeviceLoginError(
                .configuration, "the server of profile \(profile.name) has no userinfo endpoint",
                hint: "userinfo needs an OpenID Connect provider"
            )
        }
        var token = try await freshAccessToken()
        var retried = false
        while true {
            let response = try await sendUserInfoRequest(to: endpoint, token: token)
            let challenge = response.header("WWW-Authenticate").flatMap {
                BearerChallenge(header: $0) ?? BearerChallenge(header: $0, scheme: "dpop")
            }
            if response.status == 401, !retried, challenge?.error == OAuthError.Code.invalidToken.rawValue {
                retried = true
                token = try await freshAccessToken(replacing: token)
                continue
            }
            let info = try Self.userInfo(from: response, challenge: challenge)
            if let idToken = tokens?.idToken {
                let claims = try IDTokenClaims(idToken: idToken)
                guard claims.subject == info.subject else {
                    throw DeviceLoginError(
                        .invalidResponse,
                        "the userinfo response is about another user than the ID token (sub differs)",
                        hint: "sign in again"
                    )
                }
            }
            return info
        }
    }

    private func sendUserInfoRequest(to endpoint: URL, token: String) async throws -> HTTPResponse {
        do {
            try EndpointPolicy.check(endpoint, allowInsecureHTTP: client.allowInsecureHTTP)
            return try await sendAuthorized(
                method: .get, url: endpoint,
                headers: [HTTPHeader("Accept", "application/json")] + client.additionalHeaders, token: token
            )
        } catch let error as TransportError {
            throw DeviceLoginError.wrapping(error, while: "fetching userinfo")
        }
    }

    private static func userInfo(from response: HTTPResponse, challenge: BearerChallenge?) throws -> UserInfo {
        if response.status == 401 || response.status == 403, let challenge, let code = challenge.error {
            let error = OAuthError(
                code: OAuthError.Code(rawValue: code), description: challenge.errorDescription,
                httpStatus: response.status
            )
            throw DeviceLoginError.server(error, while: "the userinfo request")
        }
        guard response.status == 200 else {
            throw DeviceLoginError(
                .transport, "the userinfo endpoint answered HTTP \(response.status)",
                hint: response.status >= 500 ? "the server may be busy or down; try again later" : nil
            )
        }
        if response.mediaType == "application/jwt" {
            throw DeviceLoginError(.invalidResponse, "signed or encrypted userinfo responses are not supported")
        }
        guard let object = try? JSONValue.decodeObject(from: response.body) else {
            throw DeviceLoginError(.invalidResponse, "the userinfo response is not a JSON object")
        }
        return try UserInfo(jsonObject: object)
    }

    /// Decodes and checks the session's ID token without verifying its signature.
    /// - Important: Renamed ``unverifiedIDTokenClaims()`` to say so; use ``verifiedIDTokenClaims()`` for an identity
    ///   to show or trust.
    @available(*, deprecated, renamed: "unverifiedIDTokenClaims()")
    public func idTokenClaims() async throws -> IDTokenClaims {
        try await unverifiedIDTokenClaims()
    }
}
