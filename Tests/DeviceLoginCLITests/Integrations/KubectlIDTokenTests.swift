import DeviceLogin
import Foundation
import Testing

@testable import DeviceLoginCLI

@Suite("kubectl-credential --id-token: the ID token, for clusters with Kubernetes' OIDC authenticator")
struct KubectlIDTokenTests {
    private static let execInfo =
        #"{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","spec":{"interactive":false}}"#

    /// An ID token of the fixture's issuer and client that expires at `exp`.
    private static func idToken(exp: Date, subject: String = "user-1") throws -> String {
        try ProfileFixture.idToken([
            "iss": ProfileFixture.issuer, "aud": ProfileFixture.clientID, "sub": subject,
            "exp": Int(exp.timeIntervalSince1970), "iat": Int(Date().timeIntervalSince1970) - 60,
        ])
    }

    private func run(_ fixture: ProfileFixture, transport: StubTransport) async -> (ExitCode, String, String) {
        var environment = fixture.environment
        environment["KUBERNETES_EXEC_INFO"] = Self.execInfo
        let result = await CLIHarness.run(
            ["kubectl-credential", "--profile", "work", "--id-token"], environment: environment, transport: transport)
        return (result.code, result.stdout, result.stderr)
    }

    private static func status(_ stdout: String) throws -> [String: Any] {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any])
        return try #require(object["status"] as? [String: Any])
    }

    @Test("a valid stored ID token: it is the answer, with its own exp, and no request is made")
    func stored() async throws {
        let fixture = try ProfileFixture()
        defer { fixture.remove() }
        let exp = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 1800).rounded(.down))
        let id = try Self.idToken(exp: exp)
        try await fixture.save(
            TokenSet(
                accessToken: "AT", expiresAt: Date().addingTimeInterval(3600), refreshToken: "RT", idToken: id,
                issuedAt: Date()),
            name: "work")
        let transport = StubTransport()
        let (code, stdout, stderr) = await run(fixture, transport: transport)
        #expect(code == .success, "\(stderr)")
        let status = try Self.status(stdout)
        #expect(status["token"] as? String == id)
        #expect(status["expirationTimestamp"] as? String == DateText.rfc3339(exp))
        #expect(transport.requests.isEmpty)
    }

    @Test("an ID token about to expire while the access token is valid: refreshed first, the new ID token answered")
    func refreshed() async throws {
        let fixture = try ProfileFixture()
        defer { fixture.remove() }
        let old = try Self.idToken(exp: Date().addingTimeInterval(30))
        let new = try Self.idToken(exp: Date().addingTimeInterval(3600), subject: "user-1")
        try await fixture.save(
            TokenSet(
                accessToken: "AT", expiresAt: Date().addingTimeInterval(3600), refreshToken: "RT", idToken: old,
                scope: "openid", issuedAt: Date()),
            name: "work")
        let transport = StubTransport { _ in
            StubTransport.json(
                #"{"access_token":"AT-2","token_type":"Bearer","expires_in":3600,"refresh_token":"RT-2","id_token":""#
                    + new + #""}"#)
        }
        let (code, stdout, stderr) = await run(fixture, transport: transport)
        #expect(code == .success, "\(stderr)")
        #expect(try Self.status(stdout)["token"] as? String == new)
        #expect(transport.requests.count == 1)
        #expect(!stderr.contains(new) && !stderr.contains("AT-2"))
    }

    @Test("a sign-in without an ID token: exit 76, the openid scope named, nothing on stdout, no request")
    func none() async throws {
        let fixture = try ProfileFixture()
        defer { fixture.remove() }
        try await fixture.save(
            TokenSet(
                accessToken: "AT", expiresAt: Date().addingTimeInterval(3600), refreshToken: "RT", issuedAt: Date()),
            name: "work")
        let transport = StubTransport()
        let (code, stdout, stderr) = await run(fixture, transport: transport)
        #expect(code == .protocolError)
        #expect(stdout.isEmpty)
        #expect(stderr.contains("holds no ID token"))
        #expect(stderr.contains("--scope openid"))
        #expect(transport.requests.isEmpty)
    }
}
