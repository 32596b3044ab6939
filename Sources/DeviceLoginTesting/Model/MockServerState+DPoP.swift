import DeviceLogin

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension MockServerState {
    /// The longest DPoP header read: 8 KiB.
    static let maximumProofBytes = 8192
    /// The longest `jti` accepted: 256 bytes.
    static let maximumProofIDBytes = 256
    /// The most `jti`s remembered at once; older ones are forgotten first.
    static let maximumRememberedProofs = 100_000

    /// Whose nonce a proof must carry: the authorization server's (§8) or the resource endpoint's (§9).
    enum NonceOwner {
        case authorizationServer, resource
    }

    /// What a proof came to, before the endpoint's own rules (binding) apply.
    enum ProofVerdict {
        /// Every check passed: the thumbprint of the proof's key.
        case valid(String)
        /// Well made, without the current nonce.
        case needsNonce
        /// Refused, for this reason.
        case invalid(String)
    }

    /// The DPoP settings in force: the configured ones, or the defaults.
    var dpopSettings: Server.DPoPSettings { configuration.dpop ?? Server.DPoPSettings() }

    /// Replaces the authorization server's nonce.
    mutating func rotateNonce() {
        authorizationServerNonce = generator.token()
    }

    /// The current nonce of `owner`, made on first use.
    mutating func nonce(of owner: NonceOwner) -> String {
        switch owner {
        case .authorizationServer:
            if let authorizationServerNonce { return authorizationServerNonce }
            rotateNonce()
            return authorizationServerNonce ?? ""
        case .resource:
            if let resourceNonce { return resourceNonce }
            let made = generator.token()
            resourceNonce = made
            return made
        }
    }

    /// Whether `owner` demands a nonce.
    func demandsNonce(_ owner: NonceOwner) -> Bool {
        owner == .authorizationServer ? dpopSettings.requiresNonce : dpopSettings.resourceRequiresNonce
    }

    // MARK: - The authorization server's endpoints

    /// Checks the DPoP proof of a request to the device authorization or token endpoint (RFC 9449 §4.3, §5).
    /// - Parameters:
    ///   - incoming: The request.
    ///   - writer: How errors are written.
    ///   - required: Whether the request must carry a proof (the client is registered with
    ///     ``MockAuthorizationServer/Client/requiresDPoP``).
    ///   - boundTo: The thumbprint the device code or refresh token is bound to: the proof must be made with that
    ///     key (draft-parecki-oauth-dpop-device-flow; RFC 9449 §5).
    /// - Returns: The thumbprint of the proof's key; nil when the request carries no proof and needs none.
    /// - Throws: The `invalid_dpop_proof` or `use_dpop_nonce` answer.
    mutating func proofKey(
        _ incoming: Incoming, _ writer: WireWriter, required: Bool, boundTo: String?
    ) throws(ReplyError) -> String? {
        let headers = incoming.request.headers.filter { $0.name.lowercased() == "dpop" }
        if headers.isEmpty {
            guard required || boundTo != nil else { return nil }
            let reason = boundTo == nil ? "no DPoP proof" : "no DPoP proof for a grant bound to a key"
            proofCheck = Server.ProofCheck(verdict: .refused(reason))
            throw ReplyError(writer.oauthError(.invalidDPoPProof, "A DPoP proof is required (\(reason))."))
        }
        switch verifyProof(headers, incoming, accessToken: nil, nonceOwner: .authorizationServer) {
        case .valid(let thumbprint):
            if let boundTo, boundTo != thumbprint {
                proofCheck?.verdict = .refused("made with another key than the grant's")
                throw ReplyError(
                    writer.oauthError(.invalidDPoPProof, "The DPoP proof is made with another key than the grant's.")
                )
            }
            if boundTo != nil { proofCheck?.passed.append("key binding") }
            return thumbprint
        case .needsNonce:
            let nonce = nonce(of: .authorizationServer)
            throw ReplyError(
                writer.oauthError(
                    .useDPoPNonce, "The authorization server requires a nonce in the DPoP proof.",
                    headers: [HTTPHeader("DPoP-Nonce", nonce)]
                ))
        case .invalid(let reason):
            throw ReplyError(writer.oauthError(.invalidDPoPProof, "The DPoP proof is invalid: \(reason)."))
        }
    }

    /// Whether client `id` must prove its requests with DPoP.
    func requiresDPoP(client id: String) -> Bool {
        configuration.clients.first { $0.id == id }?.requiresDPoP ?? false
    }

    // MARK: - Resources

    /// Checks a request to a resource (the userinfo and resource endpoints) made with a DPoP-bound token or the
    /// `DPoP` scheme (RFC 9449 §7.1): the token must be sent as `Authorization: DPoP`, with a valid proof for it
    /// (`ath`) made with the key it is bound to.
    /// - Parameters:
    ///   - incoming: The request.
    ///   - token: The access token sent.
    ///   - scheme: The scheme it was sent with, lower-cased.
    ///   - binding: The thumbprint the token is bound to, nil for a Bearer token.
    ///   - nonceOwner: Whose nonce the proof must carry, if that owner demands one.
    /// - Returns: nil when the request may be answered; otherwise the 401 answer with its `WWW-Authenticate: DPoP`
    ///   challenge.
    mutating func resourceRefusal(
        _ incoming: Incoming, token: String, scheme: String, binding: String?, nonceOwner: NonceOwner
    ) -> Reply? {
        guard scheme == "dpop" else {
            // RFC 9449 §7.2: a DPoP-bound token must not be accepted as a Bearer token.
            guard binding != nil else { return nil }
            proofCheck = Server.ProofCheck(verdict: .refused("a DPoP-bound token sent as a Bearer token"))
            return challenge(.invalidToken, "The access token is DPoP-bound: send it with the DPoP scheme.")
        }
        guard let binding else {
            proofCheck = Server.ProofCheck(verdict: .refused("a Bearer token sent with the DPoP scheme"))
            return challenge(.invalidToken, "The access token is not DPoP-bound.")
        }
        let headers = incoming.request.headers.filter { $0.name.lowercased() == "dpop" }
        guard !headers.isEmpty else {
            proofCheck = Server.ProofCheck(verdict: .refused("no DPoP proof"))
            return challenge(.invalidDPoPProof, "A DPoP proof is required.")
        }
        switch verifyProof(headers, incoming, accessToken: token, nonceOwner: nonceOwner) {
        case .valid(let thumbprint):
            guard thumbprint == binding else {
                proofCheck?.verdict = .refused("made with another key than the token's")
                return challenge(.invalidToken, "The DPoP proof is made with another key than the token's.")
            }
            proofCheck?.passed.append("key binding")
            return nil
        case .needsNonce:
            return challenge(
                .useDPoPNonce, "The resource server requires a nonce in the DPoP proof.",
                nonce: nonce(of: nonceOwner))
        case .invalid(let reason):
            return challenge(.invalidDPoPProof, "The DPoP proof is invalid: \(reason).")
        }
    }

    /// HTTP 401 with `WWW-Authenticate: DPoP error=…` (RFC 9449 §7.1) and, for `use_dpop_nonce`, a `DPoP-Nonce`.
    func challenge(_ code: OAuthError.Code, _ description: String, nonce: String? = nil) -> Reply {
        let algorithms = dpopSettings.algorithms.map(\.name).joined(separator: " ")
        var headers = [
            HTTPHeader(
                "WWW-Authenticate",
                #"DPoP error="\#(code.rawValue)", error_description="\#(description)", algs="\#(algorithms)""#)
        ]
        if let nonce { headers.append(HTTPHeader("DPoP-Nonce", nonce)) }
        var reply = WireWriter.json(
            ["error": .string(code.rawValue), "error_description": .string(description)], status: 401,
            headers: headers
        )
        reply.answer = .oauthError(code, status: 401)
        return reply
    }

    // MARK: - The proof itself (RFC 9449 §4.3)

    /// Checks one request's DPoP proof as RFC 9449 §4.3 lists, and records each check in ``proofCheck``.
    ///
    /// In order: one `DPoP` header; a compact JWS; `typ` `dpop+jwt`; an `alg` of
    /// ``MockAuthorizationServer/DPoPSettings/algorithms``; a public `jwk` (no private member) that suits it; the
    /// signature; `jti`, `htm`, `htu` and `iat` present; `htm` the request's method; `htu` its URI without query and
    /// fragment (both normalised); `iat` within ``MockAuthorizationServer/DPoPSettings/proofWindow`` of the wall
    /// clock; a `jti` not seen within that window; the owner's nonce when it demands one; `ath` the hash of
    /// `accessToken` when there is one.
    mutating func verifyProof(
        _ headers: [HTTPHeader], _ incoming: Incoming, accessToken: String?, nonceOwner: NonceOwner
    ) -> ProofVerdict {
        var check = Server.ProofCheck(verdict: .accepted)
        let verdict = verifyProof(headers, incoming, accessToken: accessToken, nonceOwner: nonceOwner, into: &check)
        switch verdict {
        case .valid: check.verdict = .accepted
        case .needsNonce: check.verdict = .nonceDemanded
        case .invalid(let reason): check.verdict = .refused(reason)
        }
        proofCheck = check
        return verdict
    }

    private mutating func verifyProof(
        _ headers: [HTTPHeader], _ incoming: Incoming, accessToken: String?, nonceOwner: NonceOwner,
        into check: inout Server.ProofCheck
    ) -> ProofVerdict {
        guard headers.count == 1, let text = headers.first?.value else { return .invalid("more than one DPoP header") }
        let jws: CompactJWS
        do {
            jws = try CompactJWS(text, maximumBytes: Self.maximumProofBytes)
        } catch {
            return .invalid("not a compact JWS: \(error.reason)")
        }
        guard jws.header["typ"]?.stringValue?.lowercased() == "dpop+jwt" else { return .invalid("typ is not dpop+jwt") }
        check.passed.append("typ")
        guard let algorithm = SignatureAlgorithm(name: jws.algorithmName),
            dpopSettings.algorithms.contains(algorithm)
        else { return .invalid("alg \(jws.algorithmName.prefix(16)) is not accepted") }
        check.passed.append("alg \(algorithm)")
        guard case .object(let members)? = jws.header["jwk"] else { return .invalid("the header has no jwk") }
        guard members["d"] == nil, members["p"] == nil else { return .invalid("the jwk holds a private key") }
        guard let key = try? JSONWebKey(jsonObject: members), key.suits(algorithm),
            let thumbprint = try? key.thumbprint()
        else { return .invalid("the jwk is not a public key for \(algorithm)") }
        check.thumbprint = thumbprint
        check.passed.append("jwk")
        guard (try? jws.verifies(algorithm, with: key)) == true else {
            return .invalid("the signature does not verify")
        }
        check.passed.append("signature")
        guard let claims = try? JSONDecoder().decode(JSONObject.self, from: Data(jws.payload)) else {
            return .invalid("the claims are not a JSON object")
        }
        guard case .string(let proofID)? = claims["jti"], !proofID.isEmpty,
            proofID.utf8.count <= Self.maximumProofIDBytes,
            case .string(let method)? = claims["htm"], case .string(let target)? = claims["htu"],
            case .number(let issuedAt)? = claims["iat"], issuedAt.isFinite, abs(issuedAt) < 1e12
        else { return .invalid("jti, htm, htu or iat is missing or malformed") }
        check.proofID = proofID
        check.method = String(method.prefix(16))
        check.targetURI = String(target.prefix(256))
        check.carriedNonce = claims["nonce"] != nil
        check.carriedAccessTokenHash = claims["ath"] != nil
        guard method == incoming.request.method.rawValue else { return .invalid("htm is not the request's method") }
        check.passed.append("htm")
        guard let claimed = URL(string: target).flatMap(DPoPProof.targetURI(of:)),
            claimed == DPoPProof.targetURI(of: incoming.request.url)
        else { return .invalid("htu is not the request's URI") }
        check.passed.append("htu")
        let now = Int64(wallClock().timeIntervalSince1970.rounded(.down))
        let age = Int64(issuedAt.rounded(.down)) - now
        check.age = age
        let window = dpopSettings.proofWindow.components.seconds
        guard abs(age) <= window else { return .invalid("iat is \(age) s from the server's clock") }
        check.passed.append("iat")
        forgetProofs(before: now - window)
        guard seenProofs[proofID] == nil else { return .invalid("the jti was used before (a replayed proof)") }
        seenProofs[proofID] = Int64(issuedAt.rounded(.down))
        check.passed.append("jti")
        if demandsNonce(nonceOwner) {
            let current = nonce(of: nonceOwner)
            guard case .string(let sent)? = claims["nonce"], sent == current else { return .needsNonce }
            check.passed.append("nonce")
        }
        if let accessToken {
            guard case .string(let sent)? = claims["ath"], let expected = try? DPoPProof.accessTokenHash(accessToken),
                sent == expected
            else { return .invalid("ath is not the hash of the access token") }
            check.passed.append("ath")
        }
        return .valid(thumbprint)
    }

    /// Forgets the `jti`s of proofs made before `oldest` (Unix seconds): an older proof fails the `iat` check anyway.
    private mutating func forgetProofs(before oldest: Int64) {
        guard !seenProofs.isEmpty else { return }
        seenProofs = seenProofs.filter { $0.value >= oldest }
        if seenProofs.count >= Self.maximumRememberedProofs { seenProofs.removeAll() }
    }
}
