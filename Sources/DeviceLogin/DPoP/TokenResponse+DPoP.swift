extension TokenResponse {
    /// Whether `token_type` is `DPoP`, in any case (RFC 9449 §5, §7.1: the access token is bound to the client's key).
    public var isDPoP: Bool { tokenType.lowercased() == "dpop" }

    /// Why a token response cannot be accepted with the proof the request carried (RFC 9449 §5), or nil when it can.
    ///
    /// - A request proven with a DPoP key must get `token_type: DPoP`. A `Bearer` answer means the server did not
    ///   bind the access token to the key: RFC 9449 §5 lets a client go on with it unless DPoP's protection "is
    ///   deemed important", and a client configured for DPoP deems it so — it is refused, rather than kept as a token
    ///   a thief could use anywhere (a downgrade the person asked not to have).
    /// - A request without a proof cannot use a `DPoP` token: it would be sent as a Bearer token, which a resource
    ///   server that checks the binding refuses.
    /// - Parameter provenWithDPoP: Whether the request carried a DPoP proof.
    /// - Returns: ``DeviceLoginError`` with code ``DeviceLoginError/Code/invalidResponse``, or nil.
    public func tokenTypeRefusal(provenWithDPoP: Bool) -> DeviceLoginError? {
        if provenWithDPoP, !isDPoP {
            return DeviceLoginError(
                .invalidResponse,
                "the server issued a token of type '\(tokenType.prefix(40))' to a request proven with a DPoP key: it"
                    + " did not bind the token to the key (RFC 9449 §5), so the token was refused",
                hint: "sign in without DPoP if the server does not support it"
            )
        }
        if !provenWithDPoP, isDPoP {
            return DeviceLoginError(
                .invalidResponse,
                "the server issued a DPoP-bound token to a request without a DPoP proof; it cannot be used",
                hint: "sign in with DPoP"
            )
        }
        return nil
    }
}
