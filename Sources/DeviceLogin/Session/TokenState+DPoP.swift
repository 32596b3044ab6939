#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension TokenState {
    /// A fresh access token for one request to a resource server, with a DPoP proof made for it when the token is
    /// DPoP-bound (RFC 9449 §7.1: `Authorization: DPoP <token>` and a proof whose `ath` is the token's hash).
    ///
    /// The token is refreshed first when needed, as ``freshAccessToken(minimumTTL:)`` does.
    ///
    /// ```swift
    /// let authorization = try await state.authorization(method: "POST", url: URL(string: "https://api.example.com/v1/items")!)
    /// request.headers += authorization.headers     // Authorization: DPoP …, DPoP: …
    /// ```
    /// - Parameters:
    ///   - method: The request's HTTP method (`htm`).
    ///   - url: The request's URL (`htu`: its query and fragment are left out).
    ///   - minimumTTL: How long the token must stay valid.
    ///   - nonce: The resource server's `DPoP-Nonce`, when it asked for one (RFC 9449 §9); default the one it sent
    ///     last to this state, if any.
    /// - Returns: The token, its scheme and the proof.
    /// - Throws: As ``freshAccessToken(minimumTTL:)``; ``DeviceLoginError`` with code
    ///   ``DeviceLoginError/Code/configuration`` when the token is DPoP-bound and the state has no DPoP key, or the
    ///   proof cannot be made.
    public func authorization(
        method: String, url: URL, minimumTTL: Duration = .zero, nonce: String? = nil
    ) async throws -> RequestAuthorization {
        let token = try await freshAccessToken(minimumTTL: minimumTTL)
        let expiresAt = tokens?.expiresAt
        guard tokens?.isDPoP == true else {
            return RequestAuthorization(accessToken: token, scheme: "Bearer", expiresAt: expiresAt)
        }
        let proof = try requireDPoP().proof(method: method, url: url, accessToken: token, nonce: nonce)
        return RequestAuthorization(accessToken: token, scheme: "DPoP", proof: proof, expiresAt: expiresAt)
    }

    /// The DPoP key of a profile whose tokens are bound to one.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/configuration`` when the client has none.
    func requireDPoP() throws(DeviceLoginError) -> DPoPProver {
        guard let dpop = client.dpop else {
            throw DeviceLoginError(
                .configuration,
                "the tokens of profile \(profile.name) are bound to a DPoP key, and no key was given to prove them",
                hint: "give the profile's DPoP key, or sign in again"
            )
        }
        return dpop
    }

    /// Sends a refresh request to the token endpoint: with a DPoP proof when the client has a key (RFC 9449 §5: a
    /// DPoP-bound refresh token is refused without the key's proof), and once more with the server's nonce if it
    /// asks for one (§8).
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/configuration`` when `profile` uses DPoP and
    ///   the client has no key (nothing is sent: the server would refuse it); what the transport throws.
    func sendRefresh(_ request: HTTPRequest, profile: Profile) async throws -> HTTPResponse {
        if let dpop = client.dpop { return try await dpop.send(request, through: transport) }
        if profile.usesDPoP { _ = try requireDPoP() }
        return try await transport.send(request)
    }

    /// Sends a request that carries the main access token `token` to a resource (the userinfo endpoint): as is for
    /// a Bearer token; for a DPoP-bound one with `Authorization: DPoP` and a proof, and once more with the
    /// server's nonce if it asks for one (RFC 9449 §7.1, §9).
    /// - Parameters:
    ///   - method: The method.
    ///   - url: The URL.
    ///   - headers: Headers besides `Authorization`.
    ///   - token: The access token.
    /// - Throws: As ``requireDPoP()``; what the transport throws.
    func sendAuthorized(
        method: HTTPRequest.Method, url: URL, headers: [HTTPHeader], token: String
    ) async throws -> HTTPResponse {
        guard tokens?.isDPoP == true else {
            let request = HTTPRequest(
                method: method, url: url, headers: [HTTPHeader("Authorization", "Bearer \(token)")] + headers
            )
            return try await transport.send(request)
        }
        let request = HTTPRequest(
            method: method, url: url, headers: [HTTPHeader("Authorization", "DPoP \(token)")] + headers
        )
        return try await requireDPoP().send(request, accessToken: token, through: transport)
    }
}
