import Foundation
import Testing

@testable import DeviceLogin

@Suite struct TokenStateUserInfoTests {
    static let alice = ScriptedTransport.json(
        "{\"sub\":\"user-1\",\"name\":\"Alice\",\"email\":\"a@example.com\",\"groups\":[\"dev\"]}"
    )
    static let expiredChallenge = ScriptedTransport.status(
        401, headers: [HTTPHeader("WWW-Authenticate", "Bearer realm=\"api\", error=\"invalid_token\"")]
    )

    @Test func getsClaimsWithTheBearerToken() async throws {
        let harness = try TokenStateHarness(replies: [Self.alice])
        let info = try await harness.state.userInfo()
        #expect(info.subject == "user-1")
        #expect(info.name == "Alice")
        #expect(info.email == "a@example.com")
        #expect(info.additionalClaims["groups"] == .array([.string("dev")]))
        let request = try #require(harness.transport.requests.first)
        #expect(request.method == .get)
        #expect(request.url == Fixtures.url("/userinfo"))
        #expect(request.header("Authorization") == "Bearer AT-1")
        #expect(request.body == nil)
    }

    @Test func refreshesFirstWhenTheTokenIsDue() async throws {
        let rotated = ScriptedTransport.json(Fixtures.tokenJSON(access: "AT-2", refresh: "RT-2"))
        let harness = try TokenStateHarness(replies: [rotated, Self.alice])
        harness.wall.advance(seconds: 3600)
        _ = try await harness.state.userInfo()
        #expect(harness.transport.requests.last?.header("Authorization") == "Bearer AT-2")
    }

    @Test func invalidTokenTriggersOneForcedRefreshAndOneRetry() async throws {
        let rotated = ScriptedTransport.json(Fixtures.tokenJSON(access: "AT-2", refresh: "RT-2"))
        let harness = try TokenStateHarness(replies: [Self.expiredChallenge, rotated, Self.alice])
        let info = try await harness.state.userInfo()
        #expect(info.subject == "user-1")
        let requests = harness.transport.requests
        #expect(requests.map(\.method) == [.get, .post, .get])
        #expect(requests[1].bodyText == TokenStateHarness.refreshBody("RT-1"))
        #expect(requests[2].header("Authorization") == "Bearer AT-2")
    }

    @Test func aSecondRejectionIsAnErrorWithoutAnotherRefresh() async throws {
        let rotated = ScriptedTransport.json(Fixtures.tokenJSON(access: "AT-2", refresh: "RT-2"))
        let harness = try TokenStateHarness(replies: [Self.expiredChallenge, rotated, Self.expiredChallenge])
        let error = await expectError(.oauth) { _ = try await harness.state.userInfo() }
        #expect(error?.oauthError?.code == .invalidToken)
        #expect(error?.oauthError?.httpStatus == 401)
        #expect(harness.transport.requests.count == 3)
    }

    @Test func aSubjectOtherThanTheIDTokensIsRefused() async throws {
        let idToken = Fixtures.jwt(Fixtures.idClaims(subject: "user-2"))
        let harness = try TokenStateHarness(tokens: Fixtures.tokens(idToken: idToken), replies: [Self.alice])
        let error = await expectError(.invalidResponse) { _ = try await harness.state.userInfo() }
        #expect(error?.message.contains("sub") == true)
    }

    @Test func theSameSubjectAsTheIDTokenIsAccepted() async throws {
        let idToken = Fixtures.jwt(Fixtures.idClaims(subject: "user-1"))
        let harness = try TokenStateHarness(tokens: Fixtures.tokens(idToken: idToken), replies: [Self.alice])
        #expect(try await harness.state.userInfo().subject == "user-1")
    }

    @Test func withoutAUserinfoEndpointItIsAConfigurationError() async throws {
        var endpoints = Fixtures.endpoints
        endpoints.userinfo = nil
        let harness = try TokenStateHarness(profile: try Fixtures.profile(endpoints: endpoints))
        _ = await expectError(.configuration) { _ = try await harness.state.userInfo() }
        #expect(harness.transport.requests.isEmpty)
    }

    @Test func serverFailuresAreTransportErrors() async throws {
        let harness = try TokenStateHarness(replies: [ScriptedTransport.status(502)])
        let error = await expectError(.transport) { _ = try await harness.state.userInfo() }
        #expect(error?.message.contains("502") == true)
        #expect(await harness.state.tokens == Fixtures.tokens())
    }

    // MARK: ID token claims

    @Test func idTokenClaimsAreDecodedAndChecked() async throws {
        let idToken = Fixtures.jwt(Fixtures.idClaims())
        let harness = try TokenStateHarness(tokens: Fixtures.tokens(idToken: idToken))
        let claims = try await harness.state.unverifiedIDTokenClaims()
        #expect(claims.subject == "user-1")
        #expect(claims.audience == ["cli"])
    }

    @Test func idTokenFromAnotherIssuerIsRefused() async throws {
        var claims = Fixtures.idClaims()
        claims["iss"] = .string("https://evil.example.com")
        let harness = try TokenStateHarness(tokens: Fixtures.tokens(idToken: Fixtures.jwt(claims)))
        _ = await expectError(.invalidIDToken) { _ = try await harness.state.unverifiedIDTokenClaims() }
    }

    @Test func noIDTokenIsAClearError() async throws {
        let harness = try TokenStateHarness()
        let error = await expectError(.invalidIDToken) { _ = try await harness.state.unverifiedIDTokenClaims() }
        #expect(error?.hint?.contains("openid") == true)
    }
}
