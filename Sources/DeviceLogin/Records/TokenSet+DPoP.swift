extension TokenSet {
    /// Whether the main access token's `token_type` is `DPoP`, in any case (RFC 9449 §7.1): it is sent as
    /// `Authorization: DPoP <token>` with a proof of the key it is bound to.
    public var isDPoP: Bool { tokenType.lowercased() == "dpop" }
}
