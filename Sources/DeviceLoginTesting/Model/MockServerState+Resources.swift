import DeviceLogin

extension MockServerState {
    // MARK: - Revocation (RFC 7009)

    mutating func revocation(_ incoming: Incoming) throws(ReplyError) -> Reply {
        let writer = writer(for: incoming)
        try checkOAuthPost(incoming, writer)
        let clientID = try authenticateClient(incoming, writer)
        guard let token = incoming.value("token") else {
            return writer.oauthError(.invalidRequest, "The token parameter is missing.")
        }
        // RFC 7009 §2.1: the hint only speeds up the lookup; both kinds are searched either way.
        var kind = Server.Revocation.TokenKind.unknown
        if let access = accessTokens[token], grants[access.grantID]?.clientID == clientID {
            accessTokens[token] = nil
            grants[access.grantID]?.accessTokens.remove(token)
            kind = .accessToken
        } else if let grantID = refreshTokens[token], let grant = grants[grantID], grant.clientID == clientID {
            // RFC 7009 §2.1: revoking a refresh token should also invalidate the access tokens of its grant.
            refreshTokens[token] = nil
            for accessToken in grant.accessTokens { accessTokens[accessToken] = nil }
            grants[grantID] = nil
            kind = .refreshToken
        }
        revocations.append(
            Server.Revocation(
                time: incoming.time, token: token, tokenTypeHint: incoming.value("token_type_hint"), kind: kind
            ))
        // RFC 7009 §2.2: 200 whether or not the token was valid.
        let response = HTTPResponse(status: 200, headers: [HTTPHeader("Cache-Control", "no-store")])
        return Reply(response: .respond(response), answer: .success(status: 200))
    }

    // MARK: - Userinfo (OpenID Connect Core §5.3, RFC 6750 §3)

    mutating func userinfo(_ incoming: Incoming) -> Reply {
        guard incoming.request.method == .get || incoming.request.method == .post else {
            return WireWriter.plain(status: 405, "Method Not Allowed", headers: [HTTPHeader("Allow", "GET, POST")])
        }
        guard let (scheme, token) = Self.credentials(incoming) else {
            // RFC 6750 §3.1: no error code when the request carries no authentication.
            return WireWriter.plain(status: 401, "Unauthorized", headers: [HTTPHeader("WWW-Authenticate", "Bearer")])
        }
        guard let access = accessTokens[token], incoming.time < access.expiresAt else {
            var reply = WireWriter.json(
                [
                    "error": .string("invalid_token"),
                    "error_description": .string(
                        WireWriter.standardDescription(of: .invalidToken)
                    ),
                ],
                status: 401,
                headers: [HTTPHeader("WWW-Authenticate", #"Bearer error="invalid_token""#)]
            )
            reply.answer = .oauthError(.invalidToken, status: 401)
            return reply
        }
        if let refusal = resourceRefusal(
            incoming, token: token, scheme: scheme, binding: access.dpopKey, nonceOwner: .authorizationServer
        ) {
            return refusal
        }
        let user = configuration.user
        return WireWriter.json([
            "sub": .string(user.subject), "name": .string(user.name), "email": .string(user.email),
        ])
    }

    /// The resource endpoint: for a valid DPoP-bound token sent with the `DPoP` scheme and a valid proof for it
    /// (RFC 9449 §7.1), HTTP 200 with the user, the method and the key's thumbprint; for anything else HTTP 401 with
    /// a `WWW-Authenticate: DPoP` challenge.
    mutating func resource(_ incoming: Incoming) -> Reply {
        guard incoming.request.method == .get || incoming.request.method == .post else {
            return WireWriter.plain(status: 405, "Method Not Allowed", headers: [HTTPHeader("Allow", "GET, POST")])
        }
        guard let (scheme, token) = Self.credentials(incoming), scheme == "dpop" else {
            proofCheck = Server.ProofCheck(verdict: .refused("no Authorization: DPoP"))
            let algorithms = dpopSettings.algorithms.map(\.name).joined(separator: " ")
            return WireWriter.plain(
                status: 401, "Unauthorized", headers: [HTTPHeader("WWW-Authenticate", #"DPoP algs="\#(algorithms)""#)]
            )
        }
        guard let access = accessTokens[token], incoming.time < access.expiresAt else {
            proofCheck = Server.ProofCheck(verdict: .refused("an invalid, expired or revoked access token"))
            return challenge(.invalidToken, WireWriter.standardDescription(of: .invalidToken))
        }
        if let refusal = resourceRefusal(
            incoming, token: token, scheme: scheme, binding: access.dpopKey, nonceOwner: .resource
        ) {
            return refusal
        }
        var reply = WireWriter.json([
            "sub": .string(configuration.user.subject), "method": .string(incoming.request.method.rawValue),
            "jkt": .string(access.dpopKey ?? ""),
        ])
        if dpopSettings.resourceRequiresNonce, case .respond(var response) = reply.response {
            response.headers.append(HTTPHeader("DPoP-Nonce", nonce(of: .resource)))
            reply.response = .respond(response)
        }
        return reply
    }

    /// The scheme (lower-cased) and token of the request's `Authorization` header, for `Bearer` and `DPoP`.
    static func credentials(_ incoming: Incoming) -> (scheme: String, token: String)? {
        guard let header = incoming.request.header("Authorization") else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2 else { return nil }
        let scheme = parts[0].lowercased()
        guard scheme == "bearer" || scheme == "dpop" else { return nil }
        return (scheme, String(parts[1]).filter { $0 != " " })
    }

    // MARK: - Discovery (RFC 8414, OpenID Connect Discovery 1.0)

    func discovery(_ incoming: Incoming) -> Reply {
        guard configuration.servesDiscovery else { return WireWriter.plain(status: 404, "Not Found") }
        guard incoming.request.method == .get else {
            return WireWriter.plain(status: 405, "Method Not Allowed", headers: [HTTPHeader("Allow", "GET")])
        }
        return WireWriter.json(metadata.jsonObject)
    }

    /// The metadata document: the same at both well-known locations.
    var metadata: AuthorizationServerMetadata {
        let paths = configuration.paths
        let algorithms = configuration.advertisedSigningAlgorithms ?? [configuration.idTokenSigning.algorithmName]
        var fields: JSONObject = ["subject_types_supported": .array([.string("public")])]
        if !algorithms.isEmpty {
            fields["id_token_signing_alg_values_supported"] = .array(algorithms.map(JSONValue.string))
        }
        return AuthorizationServerMetadata(
            issuer: layout.issuer,
            deviceAuthorizationEndpoint: configuration.advertisesDeviceAuthorizationEndpoint
                ? layout.url(paths.deviceAuthorization) : nil,
            tokenEndpoint: layout.url(paths.token),
            revocationEndpoint: layout.url(paths.revocation),
            userinfoEndpoint: layout.url(paths.userinfo),
            jwksURI: layout.url(paths.jwks),
            scopesSupported: configuration.supportedScopes,
            grantTypesSupported: [DeviceAccessTokenRequest.grantType, "refresh_token"],
            tokenEndpointAuthMethodsSupported: ["none", "client_secret_basic", "client_secret_post"],
            authorizationEndpoint: configuration.codeGrant == nil ? nil : layout.url(paths.authorization),
            codeChallengeMethodsSupported: configuration.codeGrant?.advertisedChallengeMethods,
            responseModesSupported: configuration.codeGrant == nil ? nil : ["query"],
            authorizationResponseIssuerSupported: configuration.codeGrant?.sendsIssuer,
            additionalFields: fields.merging(dpopMetadata) { $1 }
        )
    }

    // MARK: - The ID tokens' keys (RFC 7517 §5)

    mutating func jwks(_ incoming: Incoming) -> Reply {
        guard incoming.request.method == .get else {
            return WireWriter.plain(status: 405, "Method Not Allowed", headers: [HTTPHeader("Allow", "GET")])
        }
        _ = currentSigningKey()
        return WireWriter.json(JSONWebKeySet(keys: signingKeys.map(\.publicKey)).jsonObject)
    }

    /// The key ID tokens are signed with now, made (the process's standard key) on first use; nil when ID tokens
    /// are not signed with a key, or libcrypto cannot make one.
    mutating func currentSigningKey() -> MockSigningKey? {
        guard case .signed(let algorithm) = configuration.idTokenSigning else { return nil }
        if let current = signingKeys.last, current.key.algorithm == algorithm { return current }
        guard let key = MockSigningKey.standard(for: algorithm) else { return nil }
        signingKeys.append(key)
        return key
    }

    /// `dpop_signing_alg_values_supported` (RFC 9449 §5.1) when DPoP is configured.
    private var dpopMetadata: JSONObject {
        guard let dpop = configuration.dpop else { return [:] }
        return ["dpop_signing_alg_values_supported": .array(dpop.algorithms.map { .string($0.name) })]
    }

    // MARK: - The approval page

    mutating func approvalPage(_ incoming: Incoming) -> Reply {
        let action = layout.url(configuration.paths.verification)
        switch incoming.request.method {
        case .get:
            let query = incoming.request.url.query.map { FormEncoding.decodeObject($0) } ?? [:]
            let prefill = query["user_code"]?.stringValue ?? ""
            return WireWriter.html(status: 200, ApprovalPage.form(action: action, userCode: prefill))
        case .post:
            guard incoming.isForm else {
                return WireWriter.html(status: 400, ApprovalPage.result(.unknownCode, userCode: ""))
            }
            let userCode = incoming.value("user_code") ?? ""
            let approve = incoming.value("action") == "approve"
            let outcome = decide(userCode: userCode, approve: approve, at: incoming.time)
            let status = (outcome == .approved || outcome == .denied) ? 200 : 400
            return WireWriter.html(status: status, ApprovalPage.result(outcome, userCode: userCode))
        }
    }

    // MARK: - Decisions

    /// What approving or denying a code came to.
    enum DecisionOutcome: Equatable {
        case approved, denied, unknownCode, expired, alreadyDecided
    }

    /// Approves or denies the pending device code with this user code (case and dashes ignored).
    mutating func decide(userCode: String, approve: Bool, at time: Duration) -> DecisionOutcome {
        guard let deviceCode = userCodes[Self.normalise(userCode)] else { return .unknownCode }
        return decide(deviceCode: deviceCode, approve: approve, at: time)
    }

    /// Approves or denies a pending device code.
    mutating func decide(deviceCode: String, approve: Bool, at time: Duration) -> DecisionOutcome {
        guard let code = deviceCodes[deviceCode] else { return .unknownCode }
        guard !code.isExpired(at: time) else { return .expired }
        guard code.decision == .none, !code.consumed else { return .alreadyDecided }
        code.decision = approve ? .approved : .denied
        return approve ? .approved : .denied
    }

    /// A snapshot of one device code.
    func authorization(_ deviceCode: String, at time: Duration) -> Server.Authorization? {
        guard let code = deviceCodes[deviceCode] else { return nil }
        let status: Server.Authorization.Status
        if code.consumed {
            status = .consumed
        } else if code.isExpired(at: time) {
            status = .expired
        } else {
            switch code.decision {
            case .approved: status = .approved
            case .denied: status = .denied
            case .none: status = .pending
            }
        }
        return Server.Authorization(
            deviceCode: deviceCode, userCode: code.userCode, clientID: code.clientID, scopes: code.scopes,
            resources: code.resources, issuedAt: code.issuedAt, expiresAt: code.expiresAt, interval: code.interval,
            pollCount: code.polls, status: status
        )
    }
}
