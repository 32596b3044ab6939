extension TokenState {
    /// Signs out: revokes the tokens at the server (RFC 7009), then clears them here and in the store.
    ///
    /// The refresh token is revoked first, then the access token, then each resource's access token, each with its
    /// `token_type_hint` and the client's authentication as at the token endpoint. The status becomes `noSession`
    /// at once, so no caller is handed a token being revoked. Inside the store's exclusive section the stored
    /// tokens are re-read first, so the newest refresh token is the one revoked even if another process refreshed.
    ///
    /// A failed revocation (or a server without a revocation endpoint) does not stop the local sign-out; the
    /// result lists each token and its outcome.
    ///
    /// ```swift
    /// let result = try await state.signOut()
    /// if !result.isComplete { print("some tokens stay valid at the server until they expire") }
    /// ```
    /// - Returns: What was revoked, token by token.
    /// - Throws: The store's ``DeviceLoginError`` when the tokens cannot be read or removed; `CancellationError`
    ///   (local credentials are still cleared when cancelled during revocation).
    @discardableResult
    public func signOut() async throws -> SignOutResult {
        try await waitForRefresh()
        let memory = tokens
        setPhase(.noSession)
        guard let tokenStore else { return try await revokeAll(memory) }
        let name = profile.name
        return try await tokenStore.withExclusiveAccess(profile: name) {
            let stored = try await tokenStore.load(profile: name)
            let result: SignOutResult
            do {
                result = try await self.revokeAll(stored?.tokens ?? memory)
            } catch {
                try await Self.removeTokens(from: tokenStore, profile: name)
                throw error
            }
            try await Self.removeTokens(from: tokenStore, profile: name)
            return result
        }
    }

    /// Revokes each token of `tokens` in order.
    /// - Throws: `CancellationError` only.
    private func revokeAll(_ tokens: TokenSet?) async throws -> SignOutResult {
        guard let tokens else { return SignOutResult(revocations: []) }
        typealias Hint = RevocationRequest.TokenTypeHint
        var order: [(SignOutResult.Token, String, Hint)] = []
        if let refreshToken = tokens.refreshToken { order.append((.refreshToken, refreshToken, .refreshToken)) }
        order.append((.accessToken, tokens.accessToken, .accessToken))
        for resource in tokens.resourceTokens.keys.sorted() {
            if let token = tokens.resourceTokens[resource]?.accessToken {
                order.append((.resourceAccessToken(resource: resource), token, .accessToken))
            }
        }
        var revocations: [SignOutResult.Revocation] = []
        for (kind, token, hint) in order {
            let outcome = try await revoke(token, hint: hint, describedAs: kind)
            revocations.append(SignOutResult.Revocation(token: kind, outcome: outcome))
        }
        return SignOutResult(revocations: revocations)
    }

    private func revoke(
        _ token: String, hint: RevocationRequest.TokenTypeHint, describedAs kind: SignOutResult.Token
    ) async throws -> SignOutResult.Outcome {
        guard let endpoint = profile.endpoints.revocation else {
            return .skipped(reason: "the server has no revocation endpoint")
        }
        let action = "revoking the \(kind)"
        let response: HTTPResponse
        do {
            try EndpointPolicy.check(endpoint, allowInsecureHTTP: client.allowInsecureHTTP)
            let request = RevocationRequest(token: token, tokenTypeHint: hint)
            response = try await transport.send(client.formRequest(to: endpoint, parameters: request.formParameters))
        } catch let error as TransportError {
            return .failed(DeviceLoginError.wrapping(error, while: action))
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            return .failed(DeviceLoginError(.transport, "\(action) failed: \(error)"))
        }
        // RFC 7009 §2.2: "The authorization server responds with HTTP status code 200 if the token has been revoked
        // successfully or if the client submitted an invalid token."
        if (200..<300).contains(response.status) { return .revoked }
        if case .oauthError(let error) = ServerReply(response) {
            return .failed(DeviceLoginError.server(error, while: action))
        }
        return .failed(DeviceLoginError(
            .transport, "the revocation endpoint answered HTTP \(response.status) while \(action)"
        ))
    }
}
