import DeviceLogin
import DeviceLoginTesting
import Foundation
import Testing

/// `--verbose` on the real binary: a whole sign-in, refresh, userinfo and sign-out of a confidential client against
/// the loopback mock, with every secret the server issued or was given collected from the server's own records.
@Suite("--verbose: the redacted HTTP trace of the real binary", .serialized, .timeLimit(.minutes(2)))
struct VerboseTests {
    private static let clientID = "vault-client"
    private static let clientSecret = "s3cr3t-\(UUID().uuidString)"

    private func model() -> MockAuthorizationServer {
        MockAuthorizationServer(
            configuration: MockAuthorizationServer.Configuration(
                clients: [.init(id: Self.clientID, authentication: .clientSecretPost(secret: Self.clientSecret))],
                interval: 1, rotatesRefreshTokens: true, defaultScript: .approveImmediately
            ))
    }

    @Test("sign-in, refresh, userinfo and sign-out with --verbose: method, URL, status, no secret in stderr")
    func wholeSession() async throws {
        let home = try BinaryHarness.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let model = model()
        try await LoopbackServer.withRunning(model: model) { server in
            let endpoints = try model.endpoints()
            let environment = ["DEVICE_LOGIN_HOME": home.path, "DEVICE_LOGIN_CLIENT_SECRET": Self.clientSecret]
            let login = try await BinaryHarness.run(
                [
                    "login", "--verbose", "--issuer", server.issuer, "--client-id", Self.clientID, "--client-auth",
                    "post", "--qr", "never", "--json",
                ],
                environment: environment
            )
            #expect(login.status == 0, "stderr: \(login.stderr)")
            // The variable turns it on too; a --min-ttl beyond the token's life forces a refresh.
            let refresh = try await BinaryHarness.run(
                ["token", "--json", "--min-ttl", "7200"],
                environment: environment.merging(["DEVICE_LOGIN_VERBOSE": "1"]) { $1 }
            )
            #expect(refresh.status == 0, "stderr: \(refresh.stderr)")
            #expect(model.refreshRequestCount == 1)
            let stored = try Data(contentsOf: home.appendingPathComponent("default.json"))
            let userinfo = try await BinaryHarness.run(["userinfo", "--verbose"], environment: environment)
            #expect(userinfo.status == 0, "stderr: \(userinfo.stderr)")
            let logout = try await BinaryHarness.run(["logout", "--verbose"], environment: environment)
            #expect(logout.status == 0, "stderr: \(logout.stderr)")
            #expect(model.revocations.count == 2)

            var secrets: Set<String> = [Self.clientSecret]
            // What the client received: the token responses it printed and stored.
            for text in [login.stdout, refresh.stdout, String(decoding: stored, as: UTF8.self)] {
                secrets.formUnion(Self.secretValues(inJSON: Data(text.utf8)))
            }
            // What the server issued and was given, from its records.
            secrets.formUnion(model.authorizations.map(\.deviceCode))
            secrets.formUnion(model.revocations.map(\.token))
            for request in model.requests {
                for field in request.formFields where Redaction.secretFields.contains(field.name) {
                    secrets.insert(field.value)
                }
                for header in request.headers where Redaction.secretHeaders.contains(header.name.lowercased()) {
                    secrets.insert(header.value)
                    secrets.insert(String(header.value.split(separator: " ").last ?? ""))
                }
            }
            secrets = secrets.filter { $0.count >= Redaction.minimumScrubbedLength }
            // A device code, two access tokens, two refresh tokens, an ID token and the secret at the least.
            #expect(secrets.count >= 7, "too few secrets collected: \(secrets.count)")

            let runs = ["login": login, "token": refresh, "userinfo": userinfo, "logout": logout]
            for (command, run) in runs {
                for secret in secrets {
                    #expect(!run.stderr.contains(secret), "\(command)'s stderr shows \(secret.prefix(6))…")
                }
                let trace = run.stderr.split(separator: "\n").filter { $0.hasPrefix("device-login: http: ") }
                #expect(!trace.isEmpty, "\(command) traced nothing: \(run.stderr)")
                #expect(trace.contains { $0.hasPrefix("device-login: http: < 200 (") && $0.hasSuffix(" ms)") })
            }
            let token = endpoints.token.absoluteString
            let device = try #require(endpoints.deviceAuthorization).absoluteString
            #expect(login.stderr.contains("device-login: http: > POST \(device)\n"))
            #expect(login.stderr.contains("device-login: http: > POST \(token)\n"))
            #expect(login.stderr.contains("client_secret=[redacted, \(Self.clientSecret.count) chars]"))
            #expect(login.stderr.contains("device_code=[redacted, "))
            #expect(login.stderr.contains(#""access_token":"[redacted, "#))
            #expect(login.stderr.contains(#""id_token":"[redacted, "#))
            #expect(refresh.stderr.contains("refresh_token=[redacted, "))
            #expect(refresh.stderr.contains("device-login: store: \(home.path)/default.json"))
            let userinfoURL = try #require(endpoints.userinfo).absoluteString
            #expect(userinfo.stderr.contains("device-login: http: > GET \(userinfoURL)\n"))
            #expect(userinfo.stderr.contains("device-login: http: > Authorization: Bearer [redacted, "))
            #expect(logout.stderr.contains("token=[redacted, "))
            // The trace goes to stderr only.
            #expect(!refresh.stdout.contains("device-login:"))
        }
    }

    @Test("without --verbose, no trace; --verbose is in every command's help")
    func quietByDefault() async throws {
        let home = try BinaryHarness.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let status = try await BinaryHarness.run(["status"], environment: ["DEVICE_LOGIN_HOME": home.path])
        #expect(!status.stderr.contains("device-login: http:"))
        #expect(!status.stderr.contains("device-login: store:"))
        for command in ["login", "token", "status", "userinfo", "logout", "demo"] {
            let help = try await BinaryHarness.run([command, "--help"], environment: [:])
            #expect(help.stdout.contains("--verbose"), "\(command) --help has no --verbose")
        }
    }

    /// The string values of the secret members (``Redaction/secretFields``) of a JSON object, at any depth.
    private static func secretValues(inJSON data: Data) -> [String] {
        guard let object = try? JSONSerialization.jsonObject(with: data) else { return [] }
        var found: [String] = []
        func walk(_ value: Any, secret: Bool) {
            if let members = value as? [String: Any] {
                for (key, member) in members { walk(member, secret: Redaction.secretFields.contains(key)) }
            } else if let elements = value as? [Any] {
                for element in elements { walk(element, secret: secret) }
            } else if secret, let text = value as? String {
                found.append(text)
            }
        }
        walk(object, secret: false)
        return found
    }
}
