/// Which grant signs the person in, chosen from the server, the session and the preference: a pure function, so
/// that every case is a row of a table test.
///
/// `auto` follows RFC 10027 §6.2.1 (a cross-device flow should not be used when the browser is on the same device):
/// the browser on this device when the session can open one (a graphical session — `DISPLAY`, `WAYLAND_DISPLAY`,
/// or macOS — that is not an SSH session), else the device flow when the server has a device endpoint, else the
/// code pasted back from a browser on any device.
public enum FlowChoice {
    /// What the person or profile asked for (`login --flow`).
    public enum Preference: String, Sendable, Hashable, CaseIterable {
        /// Choose by the server and the session.
        case auto
        /// The device authorization grant (RFC 8628).
        case device
        /// The authorization code grant with PKCE, the browser sent back to a loopback listener (RFC 8252 §7.3).
        case browser
        /// The authorization code grant with PKCE, the code or redirect URL pasted into the terminal.
        case paste

        /// The flow asked for by name; nil for `auto`.
        public var flow: Flow? { Flow(rawValue: rawValue) }
    }

    /// A grant to run.
    public enum Flow: String, Sendable, Hashable {
        /// The device authorization grant.
        case device
        /// The code grant through a browser on this device.
        case browser
        /// The code grant, pasted back.
        case paste

        /// The reason given when the flow was asked for by name.
        var reasonAsked: String {
            switch self {
            case .device: "the device flow, as asked"
            case .browser: "the browser on this device, as asked"
            case .paste: "a pasted code, as asked"
            }
        }
    }

    /// What the server offers: the flows its endpoints allow.
    public struct Server: Sendable, Hashable {
        /// `device` with a device authorization endpoint; `browser` and `paste` with an authorization endpoint.
        public var flows: Set<Flow>

        /// Creates the description.
        public init(hasDeviceEndpoint: Bool, hasAuthorizationEndpoint: Bool) {
            flows = Set(hasDeviceEndpoint ? [.device] : []).union(hasAuthorizationEndpoint ? [.browser, .paste] : [])
        }

        /// Whether there is a device authorization endpoint.
        public var hasDeviceEndpoint: Bool { flows.contains(.device) }
        /// Whether there is an authorization endpoint.
        public var hasAuthorizationEndpoint: Bool { flows.contains(.browser) }
    }

    /// Where the command runs, as far as the choice is concerned.
    public struct Session: Sendable, Hashable {
        /// A graphical session on this device: `DISPLAY` or `WAYLAND_DISPLAY` set, or macOS.
        public var isGraphical: Bool
        /// Reached over SSH: `SSH_CONNECTION` or `SSH_TTY` set (a browser would open on the far machine, if at all).
        public var isSSH: Bool

        /// Creates the description.
        public init(isGraphical: Bool, isSSH: Bool) {
            self.isGraphical = isGraphical
            self.isSSH = isSSH
        }

        /// Reads the session from the environment; `isMacOS` says whether the process runs on macOS.
        public init(environment: [String: String], isMacOS: Bool) {
            func set(_ name: String) -> Bool { environment[name].map { !$0.isEmpty } ?? false }
            self.isGraphical = isMacOS || set("DISPLAY") || set("WAYLAND_DISPLAY")
            self.isSSH = set("SSH_CONNECTION") || set("SSH_TTY")
        }

        /// The session this process runs in.
        public static func current(environment: [String: String]) -> Session {
            #if os(macOS)
            Session(environment: environment, isMacOS: true)
            #else
            Session(environment: environment, isMacOS: false)
            #endif
        }
    }

    /// The chosen flow and the one line that says why.
    public struct Decision: Sendable, Hashable {
        /// The flow to run.
        public var flow: Flow
        /// Why, in one line for a person (`login` prints it; `--events` and `--dry-run` carry it).
        public var reason: String
    }

    /// Chooses the flow.
    /// - Throws: ``DeviceLoginError`` (``DeviceLoginError/Code/configuration``) when the flow asked for needs an
    ///   endpoint the server does not have, or when the server has neither.
    public static func choose(
        server: Server, session: Session, preference: Preference
    ) throws -> Decision {
        guard let flow = preference.flow else { return try automatic(server: server, session: session) }
        guard server.flows.contains(flow) else {
            let endpoint = flow == .device ? "device authorization endpoint" : "authorization endpoint"
            throw DeviceLoginError(
                .configuration, "the \(flow.rawValue) flow needs the server's \(endpoint), which it does not name",
                hint: "give the \(endpoint) by hand, or choose another flow"
            )
        }
        return Decision(flow: flow, reason: flow.reasonAsked)
    }

    private static func automatic(server: Server, session: Session) throws -> Decision {
        if server.hasAuthorizationEndpoint, session.isGraphical, !session.isSSH {
            return Decision(flow: .browser, reason: "the browser on this device: a graphical session, not over SSH")
        }
        let why = session.isSSH ? "over SSH" : "no graphical session"
        if server.hasDeviceEndpoint {
            return Decision(flow: .device, reason: "the device flow: \(why), and the server offers it")
        }
        if server.hasAuthorizationEndpoint {
            return Decision(flow: .paste, reason: "a pasted code: \(why), and the server has no device flow")
        }
        throw DeviceLoginError(
            .configuration, "the server has neither a device authorization endpoint nor an authorization endpoint",
            hint: "give the endpoints by hand"
        )
    }

    /// The flow `auto` offers after the device authorization was refused as blocked (AADSTS53003, or
    /// `unauthorized_client` for the device grant: ``DeviceLoginError/Reason/Kind/conditionalAccessBlocked``,
    /// ``DeviceLoginError/Reason/Kind/deviceGrantNotAllowed``); nil when there is none, or when the flow was not
    /// `auto`'s choice (an explicit device flow still fails with the advice).
    public static func fallback(
        after error: DeviceLoginError, decision: Decision, preference: Preference, server: Server, session: Session
    ) -> Decision? {
        guard preference == .auto, decision.flow == .device, server.hasAuthorizationEndpoint else { return nil }
        switch error.reason?.kind {
        case .conditionalAccessBlocked?, .deviceGrantNotAllowed?:
            let blocked = "the server refused the device flow as blocked"
            if session.isGraphical, !session.isSSH {
                return Decision(flow: .browser, reason: "the browser on this device: \(blocked)")
            }
            return Decision(flow: .paste, reason: "a pasted code: \(blocked)")
        default:
            return nil
        }
    }
}

extension FlowChoice.Server {
    /// What a server's endpoints offer (``ServerEndpoints/deviceAuthorization``,
    /// ``ServerEndpoints/authorization``).
    public init(endpoints: ServerEndpoints) {
        self.init(
            hasDeviceEndpoint: endpoints.deviceAuthorization != nil,
            hasAuthorizationEndpoint: endpoints.authorization != nil)
    }

    /// What a server's metadata offers: a device authorization endpoint, and an authorization endpoint the code
    /// grant may use (``AuthorizationCodeFlow/authorizationEndpoint(of:override:)`` accepts it).
    public init(metadata: AuthorizationServerMetadata) {
        self.init(
            hasDeviceEndpoint: metadata.deviceAuthorizationEndpoint != nil,
            hasAuthorizationEndpoint: (try? AuthorizationCodeFlow.authorizationEndpoint(of: metadata)) != nil
        )
    }
}
