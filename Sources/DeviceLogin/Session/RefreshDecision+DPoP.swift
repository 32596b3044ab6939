extension RefreshDecision {
    /// `decision` with RFC 9449's rules of a refresh applied:
    /// - New tokens must be of the type the proof asks for (``TokenResponse/tokenTypeRefusal(provenWithDPoP:)``):
    ///   a `Bearer` answer to a refresh proven with the DPoP key is a downgrade, refused like any reply whose tokens
    ///   would change the session (``reject(_:)``).
    /// - `invalid_dpop_proof` and `use_dpop_nonce` (when retrying with the nonce did not help) refuse the proof, not
    ///   the grant: the session goes on (``refuse(_:)``) instead of ending, so a refresh proven with the wrong key, or
    ///   a server's passing nonce trouble, never deletes the tokens.
    /// - Parameters:
    ///   - decision: What ``decide(reply:current:resource:grant:receivedAt:)`` made of the reply.
    ///   - resource: The resource the refresh asked for, or nil for the main access token.
    ///   - provenWithDPoP: Whether the refresh carried a DPoP proof.
    /// - Returns: The decision to apply.
    static func requiringDPoP(_ decision: RefreshDecision, resource: String?, provenWithDPoP: Bool) -> RefreshDecision {
        switch decision {
        case .store(let next):
            let tokenType = resource.map { next.resourceTokens[$0]?.tokenType ?? "" } ?? next.tokenType
            let response = TokenResponse(accessToken: "", tokenType: tokenType)
            if let refusal = response.tokenTypeRefusal(provenWithDPoP: provenWithDPoP) { return .reject(refusal) }
            return decision
        case .endSession(let error):
            guard let oauthError = error.oauthError,
                oauthError.code == .invalidDPoPProof || oauthError.code == .useDPoPNonce
            else { return decision }
            return .refuse(DeviceLoginError.server(oauthError, while: "refreshing the access token (the DPoP proof)"))
        case .useCurrent, .retryLater, .refuse, .unreadable, .reject:
            return decision
        }
    }
}
