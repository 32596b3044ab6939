import DeviceLoginTesting
import Foundation
import Testing

@testable import DeviceLogin

@Suite("DeviceFlow: the verification host check and known refusals")
struct DeviceFlowHostCheckTests {
    @Test("The authorization carries the issuer, and its check warns about a page on another host")
    func issuerCarried() async throws {
        let harness = try FlowHarness(configure: { $0.verificationURIOverride = "https://evil.example/device" })
        let authorization = try await harness.flow.requestAuthorization()
        #expect(authorization.issuer == harness.server.issuer)
        let check = authorization.hostCheck
        #expect(check.warnings.map(\.kind) == [.outsideIssuerDomain])
        #expect(check.verificationHost == "evil.example" && check.issuerHost == "auth.example.test")
    }

    @Test("Endpoints given by hand: the device authorization endpoint stands in for the issuer")
    func endpointStandsIn() async throws {
        let transport = ScriptedTransport([
            ScriptedTransport.json(
                #"{"device_code":"d","user_code":"WDJB-MJHT","verification_uri":"https://evil.example/device","#
                    + #""expires_in":600}"#)
        ])
        let endpoints = ServerEndpoints(
            deviceAuthorization: URL(string: "https://github.com/login/device/code"),
            token: try #require(URL(string: "https://github.com/login/oauth/access_token"))
        )
        let flow = DeviceFlow(endpoints: endpoints, client: ClientConfiguration(clientID: "c"), transport: transport)
        let authorization = try await flow.requestAuthorization()
        #expect(authorization.issuer == "https://github.com/login/device/code")
        #expect(authorization.hostCheck.warnings.first?.otherHost == "github.com")
    }

    @Test("A verification host longer than DNS allows: refused before any prompt or poll")
    func longHostRefused() async throws {
        let host = String(repeating: "a", count: 64) + ".example"
        let harness = try FlowHarness(configure: { $0.verificationURIOverride = "https://\(host)/device" })
        let (result, events) = await harness.run()
        guard case .failure(let error as DeviceLoginError) = result else {
            Issue.record("expected a DeviceLoginError, got \(result)")
            return
        }
        #expect(error.code == .invalidResponse)
        #expect(
            error.message
                == "the server sent a sign-in address that cannot be real: a label of the verification_uri's host "
                + "has 64 characters, more than the 63 a DNS label can have")
        #expect(events.isEmpty)
        #expect(harness.pollTimes.isEmpty)
    }

    @Test("unauthorized_client on the device authorization request: enable the device grant for the client")
    func unauthorizedClient() async throws {
        let harness = try FlowHarness(configure: {
            $0.deviceAuthorizationFaults = [1: .oauthError(.unauthorizedClient)]
        })
        let (result, _) = await harness.run()
        guard case .failure(let error as DeviceLoginError) = result else {
            Issue.record("expected a DeviceLoginError, got \(result)")
            return
        }
        #expect(error.reason == .deviceGrantNotAllowed)
        #expect(error.hint?.contains("enable the Device Authorization Grant") == true)
    }

    @Test("invalid_client keeps its own advice")
    func invalidClient() async throws {
        let harness = try FlowHarness(configure: { $0.deviceAuthorizationFaults = [1: .oauthError(.invalidClient)] })
        let (result, _) = await harness.run()
        guard case .failure(let error as DeviceLoginError) = result else {
            Issue.record("expected a DeviceLoginError, got \(result)")
            return
        }
        #expect(error.reason == nil)
        #expect(error.hint == "check the client ID (and secret), and that the client may use the device flow")
    }

    @Test(
        "AADSTS53003 while polling, as invalid_grant or access_denied: Conditional Access advice",
        arguments: ["invalid_grant", "access_denied"])
    func conditionalAccessWhilePolling(code: String) async throws {
        let body =
            #"{"error":"\#(code)","error_description":"AADSTS53003: Access has been blocked by Conditional "#
            + #"Access policies.","error_codes":[53003]}"#
        let transport = ScriptedTransport([
            ScriptedTransport.json(
                #"{"device_code":"d","user_code":"WDJB-MJHT","verification_uri":"https://microsoft.com/devicelogin","#
                    + #""expires_in":600,"interval":5}"#),
            ScriptedTransport.json(body, status: 400),
        ])
        let endpoints = ServerEndpoints(
            issuer: "https://login.microsoftonline.com/tenant/v2.0",
            deviceAuthorization: URL(string: "https://login.microsoftonline.com/tenant/oauth2/v2.0/devicecode"),
            token: try #require(URL(string: "https://login.microsoftonline.com/tenant/oauth2/v2.0/token"))
        )
        let clock = ManualClock()
        let flow = DeviceFlow(
            endpoints: endpoints, client: ClientConfiguration(clientID: "c"), transport: transport, clock: clock
        )
        let authorization = try await flow.requestAuthorization()
        #expect(authorization.hostCheck.warnings.isEmpty)
        do {
            _ = try await clock.withAutoAdvance { try await flow.pollForToken(authorization) }
            Issue.record("the poll should have failed")
        } catch let error as DeviceLoginError {
            #expect(error.reason == .conditionalAccessBlocked)
            #expect(error.hint?.contains("an administrator must allow the device code flow") == true)
        }
    }
}
