extension TokenState {
    /// What ``signOut(whenRevocationFails:)`` does with the tokens when the server could not revoke one of them.
    public enum WhenRevocationFails: Sendable, Hashable {
        /// Clear them here and in the store anyway; those not revoked stay valid at the server until they expire.
        case clearTokens
        /// Keep them, here and in the store, exactly as they were, so that signing out can be tried again later (or
        /// the tokens cleared on purpose with ``clearCredentials()``). ``SignOutResult/keptTokens`` says so.
        case keepTokens
    }

    /// Signs out: revokes the tokens at the server (RFC 7009), then clears them here and in the store.
    ///
    /// The refresh token is revoked first, then the access token, then each resource's access token, each with its
    /// `token_type_hint` and the client's authentication as at the token endpoint. The status becomes `noSession`
    /// at once, so no caller is handed a token being revoked. Inside the store's exclusive section the stored
    /// tokens are re-read first, so the newest refresh token is the one revoked even if another process refreshed.
    ///
    /// When a revocation fails, `whenRevocationFails` decides: by default the local sign-out goes on; with
    /// ``WhenRevocationFails/keepTokens`` the tokens stay as they were (also when cancelled), and the status
    /// returns to `authenticated`. A server without a revocation endpoint is no failure: nothing can ever be sent
    /// there, so the tokens are cleared. The result lists each token and its outcome.
    ///
    /// ```swift
    /// let result = try await state.signOut(whenRevocationFails: .keepTokens)
    /// if result.keptTokens { print("the server could not revoke the tokens; still signed in") }
    /// ```
    /// - Parameter whenRevocationFails: Whether to clear or keep the tokens when a revocation fails; default
    ///   ``WhenRevocationFails/clearTokens``.
    /// - Returns: What was revoked, token by token, and whether the tokens were kept.
    /// - Throws: The store's ``DeviceLoginError`` when the tokens cannot be read or removed; `CancellationError`
    ///   (with ``WhenRevocationFails/clearTokens`` local credentials are still cleared when cancelled during
    ///   revocation).
    @discardableResult
    public func signOut(whenRevocationFails: WhenRevocationFails = .clearTokens) async throws -> SignOutResult {
        try await waitForRefresh()
        let memory = tokens
        setPhase(.noSession)
        let keeping = whenRevocationFails == .keepTokens
        guard let tokenStore else { return try await revokeAll(memory, restoringOnFailure: keeping) }
        let name = profile.name
        return try await tokenStore.withExclusiveAccess(profile: name) {
            let stored = try await tokenStore.load(profile: name)
            let result: SignOutResult
            do {
                result = try await self.revokeAll(stored?.tokens ?? memory, restoringOnFailure: keeping)
            } catch {
                if !keeping { try await Self.removeTokens(from: tokenStore, profile: name) }
                throw error
            }
            if !result.keptTokens { try await Self.removeTokens(from: tokenStore, profile: name) }
            return result
        }
    }

    /// Revokes tokens that were issued but could not be saved (``store(_:revokingIfNotSaved:)``), so that none
    /// stays valid with no copy anywhere.
    /// - Parameters:
    ///   - tokens: The tokens.
    ///   - failure: The store's error.
    /// - Returns: `failure`, its message saying what became of the tokens.
    func revokeUnsaved(_ tokens: TokenSet, failure: DeviceLoginError) async -> DeviceLoginError {
        setPhase(.noSession)
        var reported = failure
        let result: SignOutResult
        do {
            result = try await revokeAll(tokens, restoringOnFailure: false)
        } catch {
            reported.message +=
                "; the new tokens were not saved, and revoking them was cancelled: they stay valid "
                + "at the server until they expire"
            return reported
        }
        if result.isComplete {
            reported.message += "; the new tokens were not saved, so they were revoked at the server"
        } else {
            let names = result.unrevoked.map { "the \($0.token) (\($0.outcome))" }.joined(separator: ", ")
            reported.message +=
                "; the new tokens were not saved, and could not all be revoked: \(names) stay valid "
                + "at the server until they expire"
        }
        return reported
    }

    /// Revokes each token of `tokens` in order.
    ///
    /// With `restoringOnFailure`, a failed revocation or a cancellation puts `tokens` back as the current session,
    /// and the result says ``SignOutResult/keptTokens``.
    /// - Throws: `CancellationError` only.
    private func revokeAll(_ tokens: TokenSet?, restoringOnFailure: Bool) async throws -> SignOutResult {
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
        do {
            for (kind, token, hint) in order {
                let outcome = try await revoke(token, hint: hint, describedAs: kind)
                revocations.append(SignOutResult.Revocation(token: kind, outcome: outcome))
            }
        } catch {
            if restoringOnFailure { restore(tokens) }
            throw error
        }
        var result = SignOutResult(revocations: revocations)
        if restoringOnFailure, result.hasFailures {
            restore(tokens)
            result.keptTokens = true
        }
        return result
    }

    /// Puts `tokens` back as the session after a sign-out that keeps them, unless something else changed it since.
    private func restore(_ tokens: TokenSet) {
        guard case .noSession = phase else { return }
        setPhase(.authenticated(tokens))
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
        return .failed(
            DeviceLoginError(
                .transport, "the revocation endpoint answered HTTP \(response.status) while \(action)"
            ))
    }
}
