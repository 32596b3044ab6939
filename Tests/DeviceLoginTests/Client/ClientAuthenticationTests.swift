import Testing

@testable import DeviceLogin

@Suite("ClientAuthentication: one type for the configuration and the stored profile")
struct ClientAuthenticationTests {
    @Test(
        "method and secret of each case",
        arguments: [
            (ClientAuthentication.none, ClientAuthentication.Method.none, nil),
            (.clientSecretBasic(secret: "s1"), .clientSecretBasic, "s1"),
            (.clientSecretPost(secret: "s2"), .clientSecretPost, "s2"),
        ] as [(ClientAuthentication, ClientAuthentication.Method, String?)])
    func methodAndSecret(authentication: ClientAuthentication, method: ClientAuthentication.Method, secret: String?) {
        #expect(authentication.method == method)
        #expect(authentication.secret == secret)
        #expect(ClientAuthentication(method, secret: secret) == authentication)
    }

    @Test("a method that needs a secret is not built without one; none ignores a secret")
    func buildingFromAMethod() {
        #expect(ClientAuthentication(.clientSecretBasic, secret: nil) == nil)
        #expect(ClientAuthentication(.clientSecretPost, secret: nil) == nil)
        #expect(ClientAuthentication(.none, secret: "ignored") == ClientAuthentication.none)
    }

    @Test("the method's wire names (RFC 8414 §2), as profiles store them")
    func rawValues() {
        #expect(
            ClientAuthentication.Method.allCases.map(\.rawValue)
                == ["none", "client_secret_basic", "client_secret_post"])
    }

    @Test("description is the method's name, never the secret")
    func description() {
        #expect("\(ClientAuthentication.clientSecretBasic(secret: "hunter2"))" == "client_secret_basic")
        #expect("\(ClientAuthentication.clientSecretPost(secret: "hunter2"))" == "client_secret_post")
        #expect("\(ClientAuthentication.none)" == "none")
    }
}
