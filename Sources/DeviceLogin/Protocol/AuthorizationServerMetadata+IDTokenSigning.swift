extension AuthorizationServerMetadata {
    /// `id_token_signing_alg_values_supported` (OpenID Connect Discovery 1.0 §3): the JWS algorithms the server
    /// signs ID tokens with, as listed; nil when the metadata does not say (then RS256 only, the OpenID Connect
    /// default). Read from ``additionalFields``.
    public var idTokenSigningAlgorithms: [String]? {
        guard case .array(let values)? = additionalFields["id_token_signing_alg_values_supported"] else { return nil }
        return values.compactMap { value in
            guard case .string(let name) = value else { return nil }
            return name
        }
    }
}
