import DeviceLogin

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `login --dry-run`: what a sign-in with these settings would use, known without a single request — the endpoints
/// given or filled by a preset, which ones discovery would fill and from where, the scopes, parameters and client.
/// No secret is shown: not the client secret, not a secret parameter, no header value.
struct LoginDryRun {
    let settings: LoginSettings
    /// Where the tokens would be saved; nil with `--no-store`.
    let storePath: String?
    /// Where the command runs, for `--flow auto`'s choice.
    let session: FlowChoice.Session

    /// The settings' plan, with the profile file the store would write.
    /// - Throws: ``DeviceLoginError`` for an invalid profile name or an unusable `DEVICE_LOGIN_HOME`.
    init(_ settings: LoginSettings, context: CLIContext) throws {
        self.settings = settings
        storePath = settings.store ? try context.tokenStore().filePath(profile: settings.profile) : nil
        session = FlowChoice.Session.current(environment: context.environment)
    }

    /// The metadata URLs discovery would try, in order; empty without an issuer.
    var discoveryURLs: [URL] {
        guard let issuer = settings.issuer, let url = URL(string: issuer) else { return [] }
        return Discovery.metadataURLs(for: url)
    }

    /// The scopes that would be asked for, for people.
    var scopesText: String {
        if let scopes = settings.client.scopes { return scopes.isEmpty ? "none" : scopes.joined(separator: " ") }
        let openID = ClientConfiguration.defaultOpenIDScopes.joined(separator: " ")
        return settings.issuer == nil
            ? "none"
            : "\(openID) if discovery says the server is an OpenID provider (offline_access only when its"
                + " scopes_supported lists it or is absent), else none"
    }

    /// The extra device authorization parameters, secret values hidden.
    var parameters: [(name: String, value: String)] {
        settings.client.additionalParameters.map { parameter in
            let secret = Redaction.secretFields.contains(parameter.name)
            return (parameter.name, secret ? Redaction.marker(length: parameter.value.count) : parameter.value)
        }
    }

    /// The client ID line when none was given.
    let missingText = "missing: give --client-id (your own app's; presets carry none)"

    /// How the client authenticates, for people: never the secret.
    var clientAuthenticationText: String {
        switch settings.client.authentication.method {
        case .none: return "none (a public client)"
        case let method: return method.rawValue + " (the secret was given; it is not shown)"
        }
    }

    /// One endpoint for people: the URL, or where it would come from.
    private func endpointText(_ url: URL?, discoveredIfMissing: Bool) -> String {
        if let url { return TerminalText.clean(url.absoluteString) }
        return settings.issuer == nil ? "none" : discoveredIfMissing ? "from discovery" : "from discovery, if listed"
    }

    /// Which flow would run, as far as it is known without a request: `--flow`'s word, and for `auto` the choice
    /// in this session (``FlowChoice``) for a server that offers both grants, and what follows without one.
    var flowText: String {
        if settings.kiosk { return "device (--kiosk is device-flow only)" }
        if settings.flow == .auto, settings.issuer == nil {
            // Without discovery the endpoints given are all there is: the choice is known.
            let server = FlowChoice.Server(
                hasDeviceEndpoint: settings.deviceAuthorizationEndpoint != nil,
                hasAuthorizationEndpoint: settings.authorizationEndpoint != nil)
            let decision = try? FlowChoice.choose(server: server, session: session, preference: .auto)
            return "auto: " + (decision?.reason ?? "no flow: the endpoints given offer none")
        }
        let both = FlowChoice.Server(hasDeviceEndpoint: true, hasAuthorizationEndpoint: true)
        guard settings.flow == .auto,
            let decision = try? FlowChoice.choose(server: both, session: session, preference: .auto)
        else { return settings.flow.rawValue + " (as asked)" }
        if decision.flow == .browser {
            return "auto: \(decision.reason), if the server lists an authorization_endpoint; else the device flow"
        }
        return "auto: \(decision.reason); a pasted code if it has none or refuses it as blocked"
    }

    var lines: [String] {
        var lines = ["Dry run: nothing was sent. A sign-in with these options would use:"]
        func add(_ label: String, _ value: String) {
            lines.append("  " + (label.isEmpty ? "" : label + ":").padding(to: 32) + value)
        }
        add("provider", settings.provider.map(\.preset) ?? "none")
        add("issuer", settings.issuer.map { TerminalText.clean($0) } ?? "none (no discovery)")
        if let first = discoveryURLs.first {
            add("discovery", TerminalText.clean(first.absoluteString))
            for url in discoveryURLs.dropFirst() {
                add("", "then " + TerminalText.clean(url.absoluteString))
            }
        }
        add(
            "device authorization endpoint",
            endpointText(settings.deviceAuthorizationEndpoint, discoveredIfMissing: true))
        add("token endpoint", endpointText(settings.tokenEndpoint, discoveredIfMissing: true))
        add("authorization endpoint", endpointText(settings.authorizationEndpoint, discoveredIfMissing: false))
        add("revocation endpoint", endpointText(settings.revocationEndpoint, discoveredIfMissing: false))
        add("userinfo endpoint", endpointText(settings.userinfoEndpoint, discoveredIfMissing: false))
        add("scopes", TerminalText.clean(scopesText))
        for resource in settings.client.resources { add("resource", TerminalText.clean(resource)) }
        for (name, value) in parameters { add("parameter", TerminalText.clean(name + "=" + value)) }
        for header in settings.client.additionalHeaders {
            add("header", TerminalText.clean(header.name) + ": " + Redaction.marker(length: header.value.count))
        }
        add("client ID", settings.missingClientID == nil ? TerminalText.clean(settings.client.clientID) : missingText)
        add("client authentication", clientAuthenticationText)
        add("DPoP", settings.dpop ? "a new key binds the tokens" : "no")
        add("flow", flowText)
        add("saved to", storePath.map { "profile '\(settings.profile)' (\($0))" } ?? "nothing (--no-store)")
        return lines
    }

    var json: JSONObject {
        func string(_ text: String?) -> JSONValue { text.map(JSONValue.string) ?? .null }
        return [
            "v": .number(1),
            "dry_run": .bool(true),
            "provider": string(settings.provider?.preset),
            "issuer": string(settings.issuer),
            "discovery_urls": .array(discoveryURLs.map { .string($0.absoluteString) }),
            "device_authorization_endpoint": string(settings.deviceAuthorizationEndpoint?.absoluteString),
            "token_endpoint": string(settings.tokenEndpoint?.absoluteString),
            "authorization_endpoint": string(settings.authorizationEndpoint?.absoluteString),
            "revocation_endpoint": string(settings.revocationEndpoint?.absoluteString),
            "userinfo_endpoint": string(settings.userinfoEndpoint?.absoluteString),
            "scopes": settings.client.scopes.map { .array($0.map(JSONValue.string)) } ?? .null,
            "resources": .array(settings.client.resources.map(JSONValue.string)),
            "parameters": .array(parameters.map { .object(["name": .string($0.name), "value": .string($0.value)]) }),
            "headers": .array(settings.client.additionalHeaders.map { .string($0.name) }),
            "client_id": settings.missingClientID == nil ? .string(settings.client.clientID) : .null,
            "client_authentication": .string(settings.client.authentication.method.rawValue),
            "dpop": .bool(settings.dpop),
            "flow": .string(settings.kiosk ? "device" : settings.flow.rawValue),
            "flow_choice": .string(flowText),
            "profile": string(storePath == nil ? nil : settings.profile),
            "store": string(storePath),
        ]
    }

    /// Writes the plan on stdout: lines, or with `--json` one JSON object.
    /// - Throws: ``ResultSink/WriteError`` when it could not be written; an encoding error.
    func write(json asJSON: Bool, to context: CLIContext) throws -> ExitCode {
        if asJSON {
            try context.stdout.line(try TokenOutput.encode(json))
        } else {
            for line in lines { try context.stdout.line(line) }
        }
        return .success
    }
}
