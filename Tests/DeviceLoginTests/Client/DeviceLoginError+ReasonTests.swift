import DeviceLogin
import Testing

@Suite struct DeviceLoginErrorReasonTests {
    @Test func aReasonIsItsKindAndItsFacts() {
        let reason = DeviceLoginError.Reason.storeFromNewerVersion(path: "/s/default.json", version: 3)
        #expect(reason.kind == .storeFromNewerVersion)
        #expect(reason.path == "/s/default.json")
        #expect(reason.formatVersion == 3)
        #expect(reason.endpoint == nil && reason.profile == nil)
        #expect(DeviceLoginError.Reason.missingEndpoint(.token).endpoint?.metadataName == "token_endpoint")
        #expect(DeviceLoginError.Reason.notSignedIn(profile: "work").profile == "work")
        #expect(DeviceLoginError.Reason.scopeRefused.kind == .scopeRefused)
    }

    @Test func reasonsAreEqualWhenKindAndFactsAre() {
        #expect(DeviceLoginError.Reason.missingEndpoint(.token) == .missingEndpoint(.token))
        #expect(DeviceLoginError.Reason.missingEndpoint(.token) != .missingEndpoint(.deviceAuthorization))
        #expect(DeviceLoginError.Reason.notSignedIn(profile: "a") != .notSignedIn(profile: "b"))
        #expect(
            DeviceLoginError.Reason.notSignedIn(profile: "a").kind
                == DeviceLoginError.Reason.notSignedIn(
                    profile: "b"
                ).kind)
    }

    @Test(arguments: [
        (
            DeviceLoginError.Reason.missingEndpoint(.deviceAuthorization),
            "missingEndpoint(device_authorization_endpoint)"
        ),
        (.scopeRefused, "scopeRefused"),
        (.notSignedIn(profile: "work"), "notSignedIn(profile: work)"),
        (.storeLocked(path: "/s/default.lock"), "storeLocked(path: /s/default.lock)"),
        (.storeFromNewerVersion(path: "/s/x.json", version: 2), "storeFromNewerVersion(path: /s/x.json, version: 2)"),
        (.providerSetting(.realm), "providerSetting(setting: realm)"),
    ])
    func description(reason: DeviceLoginError.Reason, text: String) {
        #expect(reason.description == text)
    }

    /// What an embedder writes: a switch on the kind with a `default`, the facts read where they matter.
    @Test func anEmbedderWordsItsOwnHints() {
        func advice(for error: DeviceLoginError) -> String? {
            switch error.reason?.kind {
            case .missingEndpoint?: return "Enter the \(error.reason?.endpoint?.description ?? "endpoint") in Settings."
            case .notSignedIn?: return "Tap Sign In for \(error.reason?.profile ?? "your account")."
            default: return error.hint
            }
        }
        let missing = DeviceLoginError(.discovery, "no token endpoint", hint: "h", reason: .missingEndpoint(.token))
        #expect(advice(for: missing) == "Enter the token_endpoint in Settings.")
        let signedOut = DeviceLoginError(.noSession, "not signed in", reason: .notSignedIn(profile: "work"))
        #expect(advice(for: signedOut) == "Tap Sign In for work.")
        #expect(
            advice(for: DeviceLoginError(.storage, "locked", hint: "wait", reason: .storeLocked(path: "/l")))
                == "wait")
        #expect(advice(for: DeviceLoginError(.transport, "down", hint: "retry")) == "retry")
    }

    @Test func equalityOfErrorsStaysOnTheCode() {
        #expect(
            DeviceLoginError(.noSession, "a", reason: .notSignedIn(profile: "x"))
                == DeviceLoginError(.noSession, "b"))
    }
}
