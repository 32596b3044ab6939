import DeviceLoginTesting
import Foundation
import Testing

@testable import DeviceLogin

@Suite struct IDTokenVerifierTests {
    typealias Harness = VerifierHarness

    // MARK: - A good token, in every algorithm

    @Test(arguments: SignatureAlgorithm.all)
    func aGoodTokenVerifies(algorithm: SignatureAlgorithm) async throws {
        let harness = try Harness(algorithm)
        let token = try harness.token()
        let verdict = await harness.verify(token)
        #expect(verdict.outcome == .verified, "\(verdict)")
        #expect(verdict.problem == nil)
        #expect(verdict.algorithm == algorithm.name)
        #expect(verdict.keyID == harness.server.signingKeySet.keys.first?.keyID)
        #expect(verdict.isAbout(token) && verdict.isFinal)
        #expect(verdict.checkedAt == Harness.now)
        #expect(harness.fetches == 1)
        #expect(await harness.verify(token).isVerified)
        #expect(harness.fetches == 1, "the key set is kept")
    }

    // MARK: - Tampering

    @Test(arguments: SignatureAlgorithm.all)
    func aTamperedPayloadIsRefused(algorithm: SignatureAlgorithm) async throws {
        let harness = try Harness(algorithm)
        let token = try Harness.spoiled(try harness.token()) { $0["email"] = .string("root@example.test") }
        let verdict = await harness.verify(token)
        #expect(verdict.outcome == .refused)
        #expect(verdict.problem?.contains("signature does not verify") == true, "\(verdict)")
    }

    /// The header's `alg` changed to another algorithm the server lists: the signature is not that algorithm's.
    @Test(arguments: [("RS256", "PS256"), ("PS256", "RS256"), ("ES256", "ES384"), ("EdDSA", "ES256")])
    func aSwappedAlgorithmIsRefused(signedWith: String, claimed: String) async throws {
        let algorithm = try #require(SignatureAlgorithm(name: signedWith))
        let harness = try Harness(algorithm, advertised: [signedWith, claimed])
        let token = try Harness.spoiled(try harness.token(), header: true) { $0["alg"] = .string(claimed) }
        let verdict = await harness.verify(token)
        #expect(verdict.outcome == .refused, "\(verdict)")
        #expect(verdict.problem != nil)
    }

    @Test(arguments: SignatureAlgorithm.all)
    func aSignatureByAnotherKeyIsRefused(algorithm: SignatureAlgorithm) async throws {
        let harness = try Harness(algorithm)
        let kid = try #require(harness.server.signingKeySet.keys.first?.keyID)
        let impostor = try PrivateSigningKey.generate(for: algorithm)
        let token = try impostor.compactJWS(header: ["kid": .string(kid)], claims: harness.claims())
        let verdict = await harness.verify(token)
        #expect(verdict.outcome == .refused)
        #expect(verdict.problem?.contains("signature does not verify") == true, "\(verdict)")
        #expect(harness.fetches == 1, "the kid is known: nothing to fetch again")
    }

    @Test func unsignedAndHMACTokensAreRefusedWhateverTheMetadataSays() async throws {
        let harness = try Harness(.rs256, advertised: ["RS256", "none", "HS256"])
        let good = try harness.token()
        for alg in ["none", "HS256", "HS512"] {
            let token = try Harness.spoiled(good, header: true) { $0["alg"] = .string(alg) }
            let verdict = await harness.verify(token)
            #expect(verdict.outcome == .refused)
            #expect(verdict.problem?.contains("never accepted") == true, "\(verdict)")
        }
        let unsigned = try Harness.spoiled(good, header: true) { $0["alg"] = .string("none") }
        let stripped = unsigned.split(separator: ".", omittingEmptySubsequences: false).prefix(2).joined(separator: ".")
        #expect(await harness.verify(stripped + ".").outcome == .refused)
        #expect(harness.fetches == 0, "refused before any key is needed")
    }

    @Test func theMockServersOwnUnsignedAndHMACTokensAreRefused() async throws {
        for signing in [MockAuthorizationServer.IDTokenSigning.unsigned, .hs256(key: "secret")] {
            let clock = ManualClock()
            let server = MockAuthorizationServer(
                configuration: .init(idTokenSigning: signing, defaultScript: .approve(afterPolls: 0)), clock: clock
            )
            let token = try await VerifierHarness.signIn(to: server)
            let endpoints = try server.endpoints()
            let verifier = IDTokenVerifier(
                jwksURI: endpoints.jwks, keys: JSONWebKeySetCache(clock: clock),
                fetcher: JSONWebKeySetFetcher(transport: InProcessTransport(server: server))
            )
            let expected = IDTokenVerifier.Expectations(
                issuer: server.issuer, clientID: Harness.clientID, algorithms: endpoints.idTokenSigningAlgorithms
            )
            let verdict = await verifier.verify(token, expecting: expected, at: SystemTime.now())
            #expect(verdict.outcome == .refused)
            #expect(verdict.problem?.contains("never accepted") == true, "\(verdict)")
        }
    }

    @Test func anAlgorithmTheMetadataDoesNotListIsRefused() async throws {
        let listed = try Harness(.es256, advertised: ["RS256"])
        let verdict = await listed.verify(try listed.token())
        #expect(verdict.outcome == .refused)
        #expect(verdict.problem?.contains(#"does not list (its metadata lists "RS256")"#) == true, "\(verdict)")
        // No list at all: RS256 only, the OpenID Connect default.
        let unlisted = try Harness(.es256, advertised: [])
        #expect(unlisted.expected.algorithms == nil)
        let refused = await unlisted.verify(try unlisted.token())
        #expect(refused.problem?.contains("lists none, so only RS256 is accepted") == true, "\(refused)")
        let rs = try Harness(.rs256, advertised: [])
        #expect(await rs.verify(try rs.token()).isVerified)
    }

    // MARK: - Keys

    /// A `kid` the set lacks fetches the set once more; still unknown, the token is refused. A second unknown
    /// `kid` within five minutes fetches nothing; after five minutes the set is fetched again.
    @Test func anUnknownKeyIsFetchedAgainOnceAndRateLimited() async throws {
        let harness = try Harness(.es256)
        #expect(await harness.verify(try harness.token()).isVerified)
        #expect(harness.fetches == 1)
        let stranger = try PrivateSigningKey.generate(for: .es256)
        let first = try stranger.compactJWS(header: ["kid": .string("unknown-1")], claims: harness.claims())
        let refused = await harness.verify(first)
        #expect(refused.outcome == .refused)
        #expect(refused.problem == #"the issuer's key set has no key "unknown-1", even fetched again"#)
        #expect(refused.keyID == "unknown-1")
        #expect(harness.fetches == 2)

        let second = try stranger.compactJWS(header: ["kid": .string("unknown-2")], claims: harness.claims())
        harness.clock.advance(by: .seconds(299))
        let limited = await harness.verify(second)
        #expect(!limited.isVerified)
        #expect(limited.outcome == .undetermined)
        #expect(limited.problem?.contains("fetched again less than 5 minutes ago") == true, "\(limited)")
        #expect(harness.fetches == 2, "no request within the window")

        harness.clock.advance(by: .seconds(1))
        #expect(await harness.verify(second).outcome == .refused)
        #expect(harness.fetches == 3)
    }

    /// The issuer rotates its key: a token under the new `kid` makes the verifier fetch the set again, and it
    /// verifies; the old key's tokens no longer do once the set no longer has it.
    @Test func aRotatedKeyIsFoundByFetchingAgain() async throws {
        let harness = try Harness(.rs256)
        let old = try harness.token()
        #expect(await harness.verify(old).isVerified)
        let kid = try harness.server.rotateSigningKey()
        let new = try harness.token()
        let verdict = await harness.verify(new)
        #expect(verdict.isVerified, "\(verdict)")
        #expect(verdict.keyID == kid)
        #expect(harness.fetches == 2)
        let stale = await harness.verify(old)
        #expect(!stale.isVerified)
        #expect(harness.fetches == 2, "the allowance was spent on the rotation")
    }

    @Test func withoutAKeyIDTheOnlySuitableKeyIsUsed() async throws {
        let harness = try Harness(.edDSA)
        let unnamed = try harness.token(header: ["kid": .null])
        #expect(try CompactJWS(unnamed, maximumBytes: 4096).keyID == nil)
        #expect(await harness.verify(unnamed).isVerified)
        // Two keys that suit EdDSA and a token that names neither: none is chosen.
        try harness.server.rotateSigningKey(keepingPrevious: true)
        let fresh = IDTokenVerifier(
            jwksURI: harness.verifier.jwksURI, keys: JSONWebKeySetCache(clock: harness.clock),
            fetcher: harness.verifier.fetcher
        )
        let verdict = await fresh.verify(
            try harness.token(header: ["kid": .null]), expecting: harness.expected, at: Harness.now
        )
        #expect(verdict.outcome == .refused)
        #expect(verdict.problem?.contains("names no kid and the key set has 2 keys") == true, "\(verdict)")
    }

    @Test func keysWhenNotFetchingAreThoseKeptOnly() async throws {
        let harness = try Harness(.rs256)
        let token = try harness.token()
        let verdict = await harness.verify(token, fetching: false)
        #expect(verdict.outcome == .undetermined)
        #expect(harness.fetches == 0)
        #expect(await harness.verify(token).isVerified)
        #expect(await harness.verify(token, fetching: false).isVerified)
        #expect(harness.fetches == 1)
    }

    @Test func aKeySetThatCannotBeFetchedLeavesItUndetermined() async throws {
        let harness = try Harness(.rs256)
        let token = try harness.token()
        let broken = IDTokenVerifier(
            jwksURI: URL(string: "https://elsewhere.example.test/jwks"), keys: harness.keys,
            fetcher: JSONWebKeySetFetcher(transport: InProcessTransport(server: harness.server))
        )
        let verdict = await broken.verify(token, expecting: harness.expected, at: Harness.now)
        #expect(verdict.outcome == .undetermined)
        #expect(verdict.problem?.contains("fetching the issuer's keys") == true, "\(verdict)")
        let none = IDTokenVerifier(jwksURI: nil, keys: harness.keys, fetcher: broken.fetcher)
        let refused = await none.verify(token, expecting: harness.expected, at: Harness.now)
        #expect(refused.outcome == .refused)
        #expect(refused.problem?.contains("no key set (jwks_uri)") == true)
    }

    @Test func aKeyIDLongerThanAnyKeysIsRefusedWithoutFetching() async throws {
        let harness = try Harness(.es256)
        let token = try harness.token(header: ["kid": .string(String(repeating: "k", count: 257))])
        let verdict = await harness.verify(token)
        #expect(verdict.outcome == .refused)
        #expect(verdict.keyID == nil)
        #expect(verdict.problem == "the ID token names a key (kid) longer than 256 bytes")
        #expect(harness.fetches == 0)
    }

    @Test func aMalformedTokenIsRefused() async throws {
        let harness = try Harness(.rs256)
        for token in ["", "a.b", "a.b.c", "e30.e30.", try harness.token() + "x", try harness.token() + "="] {
            let verdict = await harness.verify(token)
            #expect(verdict.outcome == .refused, "\(token)")
            #expect(verdict.problem != nil)
        }
    }

    // MARK: - Claims, through the whole verifier

    @Test(
        arguments: [
            (["iss": JSONValue.string("https://evil.example.test")], "issued by"),
            (["aud": .string("someone-else")], "not for client"),
            (["aud": .array([.string("test-client"), .string("other")])], "several audiences but no azp"),
            (["azp": .string("other")], "(azp)"),
            (["exp": .number(1_800_000_000 - 61)], "had expired"),
            (["iat": .number(1_800_000_000 + 61)], "issued in the future"),
            (["sub": nil], "no sub claim"),
        ] as [([String: JSONValue?], String)])
    func claimsThatDoNotFitAreRefused(changes: [String: JSONValue?], problem: String) async throws {
        let harness = try Harness(.es256)
        let verdict = await harness.verify(try harness.token(changes))
        #expect(verdict.outcome == .refused)
        #expect(verdict.problem?.contains(problem) == true, "\(verdict)")
        #expect(harness.fetches == 0, "refused before any key is fetched")
    }

    // Issue 17: a string exp or a numeric sub was read leniently, and the token reported verified.
    @Test(
        arguments: [
            (["exp": JSONValue.string("1800003600")], "exp claim is a string, not a number"),
            (["iat": .string("1800000000")], "iat claim is a string, not a number"),
            (["auth_time": .string("1799999990")], "auth_time claim is a string, not a number"),
            (["auth_time": .bool(true)], "auth_time claim is a boolean, not a number"),
            (["sub": .number(42)], "sub claim is a number, not a string"),
            (["sub": .string(String(repeating: "u", count: 256))], "sub claim is not at most 255 ASCII characters"),
            (["sub": .string("usér-1")], "sub claim is not at most 255 ASCII characters"),
            (["iss": .array([.string("https://auth.example.test")])], "iss claim is an array, not a string"),
            (["aud": .array([.string("test-client"), .number(1)])], "aud claim is an array, not a string or"),
            (["aud": .array([])], "aud claim is an array, not a string or a non-empty array of strings"),
            (["aud": .number(1)], "aud claim is a number"),
            (["nonce": .number(7)], "nonce claim is a number, not a string"),
            (["azp": .number(7)], "azp claim is a number, not a string"),
            (["azp": .null], "azp claim is null, not a string"),
        ] as [([String: JSONValue?], String)])
    func claimsOfTheWrongTypeAreRefusedByName(changes: [String: JSONValue?], problem: String) async throws {
        let harness = try Harness(.es256)
        let verdict = await harness.verify(try harness.token(changes))
        #expect(verdict.outcome == .refused)
        #expect(!verdict.isVerified)
        #expect(verdict.problem?.contains(problem) == true, "\(verdict)")
    }

    @Test("well-typed optional claims and a 255-character ASCII sub verify")
    func wellTypedClaimsVerify() async throws {
        let harness = try Harness(.es256)
        let changes: [String: JSONValue?] = [
            "sub": .string(String(repeating: "u", count: 255)), "auth_time": .number(1_799_999_990),
            "nonce": .string("n-1"), "azp": .string(Harness.clientID),
            "aud": .array([.string(Harness.clientID), .string("api")]),
        ]
        let verdict = await harness.verify(try harness.token(changes))
        #expect(verdict.isVerified, "\(verdict)")
    }

    // Issue 17: a key the set refused (1024 bits) was reported as missing ("no key k1").
    @Test("a token naming a key the set refused says why it was refused, cleaned of control characters")
    func aRefusedKeyIsNamedWithItsReason() async throws {
        func json(_ object: JSONObject) throws -> String {
            String(decoding: try JSONValue.encode(object), as: UTF8.self)
        }
        let modulus = Base64URL.encode([0xC0] + [UInt8](repeating: 0x55, count: 127))
        for kid in ["k1", "k\u{1B}[31m2\u{202E}"] {
            let key: JSONObject = [
                "kty": .string("RSA"), "kid": .string(kid), "n": .string(modulus), "e": .string("AQAB"),
                "alg": .string("RS256"),
            ]
            let jwks = try json(["keys": .array([.object(key)])])
            let transport = ScriptedTransport(otherwise: ScriptedTransport.json(jwks))
            let verifier = IDTokenVerifier(
                jwksURI: URL(string: "https://auth.example.test/jwks"), keys: JSONWebKeySetCache(clock: ManualClock()),
                fetcher: JSONWebKeySetFetcher(transport: transport))
            let header = try json(["alg": .string("RS256"), "kid": .string(kid)])
            let claims = try json([
                "iss": .string("https://auth.example.test"), "sub": .string("user-1"), "aud": .string("cli"),
                "iat": .number(1_800_000_000), "exp": .number(1_800_003_600),
            ])
            let token = [Array(header.utf8), Array(claims.utf8), [1, 2, 3]].map(Base64URL.encode).joined(separator: ".")
            let verdict = await verifier.verify(
                token, expecting: .init(issuer: "https://auth.example.test", clientID: "cli"),
                at: Date(timeIntervalSince1970: 1_800_000_000))
            #expect(verdict.outcome == .refused)
            let problem = try #require(verdict.problem)
            let reason = "was refused: the RSA modulus has 1024 bits; 2048 to 8192 are accepted"
            #expect(problem.contains(reason), "\(problem)")
            #expect(!problem.contains("has no key"))
            #expect(!problem.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x202E }, "\(problem)")
        }
    }

    @Test func theIssuerMustMatchExactly() async throws {
        let harness = try Harness(.es256)
        let verdict = await harness.verify(try harness.token(["iss": .string(harness.server.issuer + "/")]))
        #expect(verdict.outcome == .refused)
    }

    @Test func severalAudiencesWithTheClientAsAuthorizedParty() async throws {
        let harness = try Harness(.es256)
        let token = try harness.token([
            "aud": .array([.string("test-client"), .string("api")]), "azp": .string("test-client"),
        ])
        #expect(await harness.verify(token).isVerified)
    }

    // MARK: - The pure checks, at their boundaries

    @Test(
        arguments: [
            ("RS256", nil, "RS256"), ("PS256", nil, nil), ("ES256", ["ES256", "RS256"], "ES256"),
            ("EdDSA", ["EdDSA"], "EdDSA"), ("RS512", ["RS512"], nil), ("none", ["none"], nil),
            ("HS256", ["HS256"], nil),
            ("hs256", ["hs256"], nil), ("es256", ["es256"], nil), ("ES256", [], nil),
        ] as [(String, [String]?, String?)])
    func algorithmDecision(name: String, allowed: [String]?, accepted: String?) {
        let decision = IDTokenVerifier.algorithm(name, allowed: allowed)
        switch decision {
        case .success(let algorithm): #expect(algorithm.name == accepted)
        case .failure(let problem):
            #expect(accepted == nil, "\(problem.message)")
            #expect(problem.outcome == .refused)
        }
    }

    /// `exp` passes until 60 s after it; `iat` may be up to 60 s ahead.
    @Test(arguments: [
        (3600.0 + 59, 0.0, true), (3600.0 + 60, 0.0, false), (-60.0, 0.0, true), (-61.0, 0.0, false), (0.0, 60.0, true),
        (0.0, 61.0, false), (0.0, -86_400.0, true),
    ])
    func timeBoundaries(checkedAfterIssue: TimeInterval, iatAhead: TimeInterval, fits: Bool) throws {
        let issued = VerifierHarness.now
        let claims = try IDTokenClaims(jsonObject: [
            "iss": .string("https://a"), "sub": .string("s"), "aud": .string("cli"),
            "iat": .number(issued.timeIntervalSince1970 + iatAhead),
            "exp": .number(issued.timeIntervalSince1970 + 3600),
        ])
        let expected = IDTokenVerifier.Expectations(issuer: "https://a", clientID: "cli")
        let problem = IDTokenVerifier.claimsProblem(
            claims, expecting: expected, at: issued.addingTimeInterval(checkedAfterIssue)
        )
        #expect((problem == nil) == fits, "\(problem ?? "fits")")
    }
}
