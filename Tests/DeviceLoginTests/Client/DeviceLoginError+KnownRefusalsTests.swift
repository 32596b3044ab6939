import Testing

@testable import DeviceLogin

@Suite("DeviceLoginError: advice for known refusals")
struct DeviceLoginErrorKnownRefusalsTests {
    /// Microsoft's answer when Conditional Access blocks the device code flow (trimmed).
    static let aadsts53003 =
        "AADSTS53003: Access has been blocked by Conditional Access policies. The access policy does not allow "
        + "token issuance. Trace ID: 0000 Correlation ID: 0000 Timestamp: 2025-01-01 00:00:00Z"

    @Test(
        "Which refusals get which reason",
        arguments: [
            (OAuthError(code: .invalidGrant, description: aadsts53003), "conditionalAccessBlocked"),
            (OAuthError(code: .accessDenied, description: aadsts53003), "conditionalAccessBlocked"),
            (
                OAuthError(
                    code: .invalidGrant, description: "blocked",
                    additionalFields: ["error_codes": .array([.number(53003)])]
                ), "conditionalAccessBlocked"
            ),
            (OAuthError(code: .unauthorizedClient, description: "Grant type not allowed"), "deviceGrantNotAllowed"),
            (OAuthError(code: .unauthorizedClient, description: aadsts53003), "conditionalAccessBlocked"),
            (OAuthError(code: OAuthError.Code(rawValue: "device_flow_disabled")), "deviceGrantNotAllowed"),
            (OAuthError(code: .invalidGrant, description: "AADSTS50076: MFA required"), nil as String?),
            (
                OAuthError(code: .invalidGrant, additionalFields: ["error_codes": .array([.number(50076)])]),
                nil
            ),
            (OAuthError(code: .invalidClient), nil),
        ])
    func reasons(error: OAuthError, kind: String?) {
        let advised = DeviceLoginError.server(error, while: "the token request").advisingOnKnownRefusal()
        #expect(advised.reason?.kind.description == kind)
        if kind == nil { #expect(advised.hint == nil) }
    }

    @Test("AADSTS53003: says Conditional Access blocked it, and what an administrator or the person can do")
    func conditionalAccessAdvice() throws {
        let error = DeviceLoginError.server(
            OAuthError(code: .invalidGrant, description: Self.aadsts53003), while: "the token request"
        ).advisingOnKnownRefusal()
        let hint = try #require(error.hint)
        #expect(hint.contains("Conditional Access blocked this sign-in (AADSTS53003)"))
        #expect(hint.contains("an administrator must allow the device code flow for this app and user"))
        #expect(hint.contains("sign in on a device the policy accepts"))
        #expect(error.reason == .conditionalAccessBlocked)
        // The code and the server's words are kept.
        #expect(error.code == .oauth && error.message.contains("AADSTS53003"))
    }

    @Test("unauthorized_client: the client may not use the device grant; enable it at the provider")
    func deviceGrantAdvice() throws {
        let error = DeviceLoginError.server(OAuthError(code: .unauthorizedClient), while: "the request")
            .advisingOnKnownRefusal()
        #expect(
            error.hint
                == "this client may not use the device flow: enable the Device Authorization Grant (device code) "
                + "for the client at the provider, or use a client that has it")
        #expect(error.reason == .deviceGrantNotAllowed)
    }

    @Test("GitHub's device_flow_disabled: Device Flow is off in the app's settings; tick it there")
    func githubDeviceFlowDisabled() throws {
        let error = DeviceLoginError.server(
            OAuthError(code: OAuthError.Code(rawValue: "device_flow_disabled")), while: "the request"
        ).advisingOnKnownRefusal()
        #expect(
            error.hint
                == "GitHub has the device flow turned off for this app: tick \"Enable Device Flow\" in the app's "
                + "settings (GitHub App or OAuth app, under Developer settings)")
        #expect(error.reason == .deviceGrantNotAllowed)
    }

    @Test("The advice names no command and no flag: an embedding app has neither")
    func noFlags() {
        for error in [
            OAuthError(code: .invalidGrant, description: Self.aadsts53003), OAuthError(code: .unauthorizedClient),
            OAuthError(code: OAuthError.Code(rawValue: "device_flow_disabled")),
        ] {
            let hint = DeviceLoginError.server(error, while: "x").advisingOnKnownRefusal().hint ?? ""
            #expect(!hint.contains("--") && !hint.contains("device-login"), "\(hint)")
        }
    }

    @Test("An error without a server error is left alone")
    func untouched() {
        let error = DeviceLoginError(.transport, "down", hint: "retry")
        #expect(error.advisingOnKnownRefusal().hint == "retry" && error.advisingOnKnownRefusal().reason == nil)
    }
}
