import Testing

@testable import DeviceLogin

@Suite("FlowChoice: the flow from (server, session, preference), and auto's fallback")
struct FlowChoiceTests {
    typealias Flow = FlowChoice.Flow

    static let both = FlowChoice.Server(hasDeviceEndpoint: true, hasAuthorizationEndpoint: true)
    static let deviceOnly = FlowChoice.Server(hasDeviceEndpoint: true, hasAuthorizationEndpoint: false)
    static let codeOnly = FlowChoice.Server(hasDeviceEndpoint: false, hasAuthorizationEndpoint: true)
    static let desktop = FlowChoice.Session(isGraphical: true, isSSH: false)
    static let sshWithX = FlowChoice.Session(isGraphical: true, isSSH: true)
    static let headless = FlowChoice.Session(isGraphical: false, isSSH: false)
    static let ssh = FlowChoice.Session(isGraphical: false, isSSH: true)

    @Test(
        "auto and explicit choices",
        arguments: [
            (both, desktop, .auto, .browser, "graphical session"),
            (both, sshWithX, .auto, .device, "over SSH"),
            (both, ssh, .auto, .device, "over SSH"),
            (both, headless, .auto, .device, "no graphical session"),
            (deviceOnly, desktop, .auto, .device, "server offers it"),
            (codeOnly, ssh, .auto, .paste, "no device flow"),
            (codeOnly, headless, .auto, .paste, "no device flow"),
            (codeOnly, desktop, .auto, .browser, "graphical session"),
            (both, ssh, .browser, .browser, "as asked"),
            (both, desktop, .device, .device, "as asked"),
            (both, desktop, .paste, .paste, "as asked"),
        ] as [(FlowChoice.Server, FlowChoice.Session, FlowChoice.Preference, Flow, String)])
    func choice(
        server: FlowChoice.Server, session: FlowChoice.Session, preference: FlowChoice.Preference, flow: Flow,
        why: String
    ) throws {
        let decision = try FlowChoice.choose(server: server, session: session, preference: preference)
        #expect(decision.flow == flow)
        #expect(decision.reason.contains(why), "\(decision.reason)")
        #expect(!decision.reason.contains("\n"))
    }

    @Test(
        "a flow the server cannot serve is a configuration error",
        arguments: [
            (deviceOnly, .browser), (deviceOnly, .paste), (codeOnly, .device),
            (FlowChoice.Server(hasDeviceEndpoint: false, hasAuthorizationEndpoint: false), .auto),
        ] as [(FlowChoice.Server, FlowChoice.Preference)])
    func impossible(server: FlowChoice.Server, preference: FlowChoice.Preference) {
        #expect(throws: DeviceLoginError(.configuration, "")) {
            try FlowChoice.choose(server: server, session: Self.desktop, preference: preference)
        }
    }

    @Test(
        "the session from the environment",
        arguments: [
            ([:], false, false, false), (["DISPLAY": ":0"], false, true, false),
            (["WAYLAND_DISPLAY": "wayland-0"], false, true, false), (["DISPLAY": ""], false, false, false),
            (["DISPLAY": ":0", "SSH_CONNECTION": "10.0.0.1 5 10.0.0.2 22"], false, true, true),
            (["SSH_TTY": "/dev/pts/1"], false, false, true), ([:], true, true, false),
        ] as [([String: String], Bool, Bool, Bool)])
    func session(environment: [String: String], macOS: Bool, graphical: Bool, ssh: Bool) {
        let session = FlowChoice.Session(environment: environment, isMacOS: macOS)
        #expect(session.isGraphical == graphical)
        #expect(session.isSSH == ssh)
    }

    @Test(
        "auto falls back from a device flow refused as blocked; an explicit device flow does not",
        arguments: [
            (FlowChoice.Preference.auto, DeviceLoginError.Reason.conditionalAccessBlocked, both, ssh, Flow.paste),
            (.auto, .deviceGrantNotAllowed, both, headless, .paste),
            (.auto, .deviceGrantNotAllowed, both, desktop, .browser),
            (.device, .conditionalAccessBlocked, both, ssh, nil),
            (.auto, .conditionalAccessBlocked, deviceOnly, ssh, nil),
            (.auto, .scopeRefused, both, ssh, nil),
        ] as [(FlowChoice.Preference, DeviceLoginError.Reason, FlowChoice.Server, FlowChoice.Session, Flow?)])
    func fallback(
        preference: FlowChoice.Preference, reason: DeviceLoginError.Reason, server: FlowChoice.Server,
        session: FlowChoice.Session, next: Flow?
    ) throws {
        let error = DeviceLoginError(.oauth, "refused", reason: reason)
        let decision = FlowChoice.Decision(flow: .device, reason: "")
        let fallback = FlowChoice.fallback(
            after: error, decision: decision, preference: preference, server: server, session: session
        )
        #expect(fallback?.flow == next)
        if next != nil { #expect(fallback?.reason.contains("refused the device flow") == true) }
    }
}
