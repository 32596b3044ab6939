import DeviceLogin
import DeviceLoginTerminal

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The `login` options turned into library values: pure but for reading a client secret from a file or stdin
/// (through a ``ClientSecretOption/Input`` that tests replace), so every rule is tested without a network.
struct LoginSettings: Sendable, Equatable {
    var issuer: String?
    var client: ClientConfiguration
    var deviceAuthorizationEndpoint: URL? = nil
    var tokenEndpoint: URL? = nil
    /// `--authorization-endpoint`: the code grant's endpoint, when not discovered (a server without discovery).
    var authorizationEndpoint: URL? = nil
    var revocationEndpoint: URL? = nil
    var userinfoEndpoint: URL? = nil
    var qr: QRMode = .auto
    var json = false
    var caFile: String? = nil
    var store = true
    /// Where the tokens rest (`--store`); nil when not given: a profile signed in again keeps its store, a new one
    /// takes `auto`.
    var tokenStore: TokenStoreRequest? = nil
    var storeSecret = false
    var profile = Profile.defaultName
    /// The URL prefixes the profile serves (`--for`); empty keeps those a saved profile has.
    var bindings: [URLBinding] = []
    /// The user name the credential helpers give (`--username`); nil keeps the saved one, else the default.
    var username: String? = nil
    /// How long to wait for the person before giving up (`--timeout`); nil waits until the code expires.
    var timeout: Duration? = nil
    /// Whether to bind the tokens to a new DPoP key (`--dpop`, RFC 9449); the key is made by the sign-in
    /// (``SignIn``), not here, so that the settings stay a plain value.
    var dpop = false
    /// Whether to save the pending sign-in and exit once the code is shown (`--detach`); `--resume` finishes it.
    var detach = false
    /// How the sign-in is shown to programs and people (`--events`, `--quiet`, `--notify-command`).
    var presentation = LoginPresentation()
    /// Whether to draw the sign-in full screen (`--kiosk`, ``KioskSignIn``).
    var kiosk = false
    /// Whether `--kiosk` requests a new code by itself when one expires (`--renew`), instead of on a key press.
    var renew = false
    /// `--flow`: the device flow, the code grant through a browser on this device or pasted back, or `auto`.
    var flow: FlowChoice.Preference = .auto
    /// Whether `--flow` (or `DEVICE_LOGIN_FLOW`) was given; if not, the profile's saved flow is used.
    var flowGiven = false
    /// `--redirect-port`: the loopback port of the code grant's redirect URI, for a provider that matches a
    /// registered port exactly; nil for a random one (or the profile's saved port, or the preset's).
    var redirectPort: Int? = nil
    /// What to tell the user before signing in: a client secret given where others can see it.
    var warnings: [String] = []
    /// The endpoints of a saved profile signed in again (``init(signingInAgain:client:caFile:)``): used as they
    /// are, without discovery; nil for `login`, which discovers or takes the endpoint options.
    var savedEndpoints: ServerEndpoints? = nil
    /// The provider preset `--provider` named, resolved (``LoginSettings/provider(_:command:)``); its issuer,
    /// endpoints and scopes are already in the fields above wherever the user gave none.
    var provider: ResolvedProvider? = nil
    /// With `--dry-run` and no client ID: the usage error a sign-in would stop with, raised once the preview is
    /// printed (the client ID is then empty). Nil otherwise: without `--dry-run` a missing client ID stops `parse`.
    var missingClientID: UsageError? = nil
    /// The preset name of a sign-in resumed from a pending one (`login --resume`), saved with the profile as
    /// `provider` would be.
    var resumedProvider: String? = nil

    /// The option table of `login` (also used by `demo` for the options that make sense there).
    static let options: [OptionSpec] =
        [
            .value("issuer", "URL", "The authorization server's issuer; endpoints are discovered from it."),
            .value("client-id", "ID", "The client ID registered with the server."),
        ] + ClientSecretOption.options("The client secret, for confidential clients (sent with HTTP Basic).") + [
            .value(
                "client-auth", "METHOD", "How to send the secret: basic (default) or post.", choices: ["basic", "post"]),
            .list(
                "scope", "SCOPE",
                "A scope to ask for; repeat it or give a space-separated list."
                    + " Default for OpenID providers: openid profile offline_access (offline_access only when"
                    + " the server's discovery lists it, or lists no scopes)."),
            .list("resource", "URI", "An RFC 8707 resource indicator; may be repeated."),
            .list(
                "param", "KEY=VALUE", "An extra device authorization parameter (e.g. audience=...); may be repeated."),
            .list("header", "NAME:VALUE", "An extra header for every request to the server; may be repeated."),
            .value("device-authorization-endpoint", "URL", "The device authorization endpoint, when not discovered."),
            .value("token-endpoint", "URL", "The token endpoint, when not discovered."),
            .value(
                "authorization-endpoint", "URL",
                "The authorization endpoint of the code grant (--flow browser, paste), when not discovered."),
            .value("revocation-endpoint", "URL", "The revocation endpoint, when not discovered."),
            .value("userinfo-endpoint", "URL", "The userinfo endpoint, when not discovered."),
            .value(
                "redirect-port", "PORT",
                "The loopback port of the code grant's redirect URI, for a provider that needs a registered port;"
                    + " remembered. Default: a random port."),
            qrOption,
            .flag("json", "Print the token response as JSON (with an absolute expires_at) on stdout."),
        ] + LoginPresentation.options + [
            .value("ca-file", "PEM", "Trust the CA certificates in this PEM file instead of the system's."),
            .flag("allow-insecure-http", "Allow plain http:// to hosts that are not loopback (unsafe)."),
            .profile("to save the sign-in as"),
            .flag("no-store", "Do not save the tokens."),
            .value(
                "store", "STORE",
                "Where the tokens rest: auto (the Secret Service when its collection is unlocked, else the file),"
                    + " secret-service, keyring (the kernel keyring: survives logout, not reboot) or file."
                    + " Remembered; default: the profile's store, else auto.",
                choices: TokenStoreRequest.names),
            .flag("store-secret", "Save the client secret in the profile too (it is not saved otherwise)."),
            .list(
                "for", "URL",
                "A URL prefix the profile serves (a git host, a registry); may be repeated. The credential helpers"
                    + " pick the profile whose --for matches a URL best."),
            .value(
                "username", "NAME",
                "The user name git-credential and docker-credential give with the token (default: oauth2)."),
            .value("timeout", "DURATION", "Give up when the sign-in is not approved within this (90s, 15m, 2h)."),
            .value(
                "flow", "WHICH",
                "How to sign in: device (a code entered on any device), browser (this device's browser, back to"
                    + " a loopback listener), paste (open the link anywhere, paste the address back) or auto"
                    + " (default: browser in a local graphical session, else device, else paste).",
                choices: FlowChoice.Preference.allCases.map(\.rawValue)),
            .flag(
                "dpop",
                "Bind the tokens to a new DPoP key (RFC 9449), saved beside the profile: a copy of the tokens"
                    + " is useless without it."),
        ] + DetachedSignIn.options + providerOptions + [
            .flag("dry-run", "Print the endpoints, scopes, parameters and client that would be used; send nothing.")
        ] + kioskOptions

    /// `--kiosk` and `--renew`, shared with `demo`.
    static let kioskOptions: [OptionSpec] = [
        .flag(
            "kiosk",
            "Draw the sign-in full screen on the terminal (large code, host, QR code, countdown); when the code"
                + " expires, a key press asks for a new one."),
        .flag(
            "renew",
            "With --kiosk: when the code expires, request a new one by itself (unattended kiosks; see"
                + " docs/kiosk.md for why this is off by default)."),
    ]

    /// `--qr`, which `demo` takes too.
    static let qrOption = OptionSpec.value(
        "qr", "MODE",
        "Draw a QR code of the verification URI (with --flow paste, of the sign-in link): auto (default), always or"
            + " never.",
        choices: QRMode.allCases.map(\.rawValue))

    /// Reads the settings.
    /// - Parameters:
    ///   - options: The command's parsed options.
    ///   - command: The command, for the errors' wording.
    ///   - secrets: Where `--client-secret -` and `--client-secret-file` are read from.
    /// - Throws: ``UsageError`` naming the option at fault; ``DeviceLoginError`` with code
    ///   ``DeviceLoginError/Code/configuration`` for a `--header` device-login does not send (``header(_:command:)``),
    ///   or for a client secret that cannot be read or is not one (``ClientSecretOption/read(_:command:input:)``).
    static func parse(
        _ options: ParsedOptions, command: String = "login", secrets: ClientSecretOption.Input = .system
    ) async throws -> LoginSettings {
        func url(_ name: String) throws -> URL? {
            guard let text = options.value(name) else { return nil }
            guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
                scheme == "https" || scheme == "http", url.host != nil
            else {
                throw UsageError("--\(name) must be an absolute http(s) URL, not '\(text)'", command: command)
            }
            try insecureHTTPCheck(url, option: name, allowed: options.flag("allow-insecure-http"))
            return url
        }
        let provider = try provider(options, command: command)
        var missingClientID: UsageError?
        let clientID = options.value("client-id") ?? ""
        if clientID.isEmpty {
            // Presets carry no client ID: device-code phishing reuses well-known public ones.
            let why = provider.map { "; presets carry no client ID: register your own app with \($0.preset)" } ?? ""
            let missing = UsageError("missing --client-id (or DEVICE_LOGIN_CLIENT_ID)" + why, command: command)
            // A dry run shows what it would use, the client ID marked missing, and then stops with this.
            guard options.flag("dry-run") else { throw missing }
            missingClientID = missing
        }
        // What the user gives wins over the preset's; the preset's endpoints belong to its own issuer, so they go
        // with an --issuer given.
        let known = options.has("issuer") ? nil : provider
        let issuer = options.value("issuer") ?? known?.issuer
        _ = try url("issuer")
        let device = try url("device-authorization-endpoint") ?? known?.deviceAuthorizationEndpoint
        let token = try url("token-endpoint") ?? known?.tokenEndpoint
        let authorization = try url("authorization-endpoint") ?? known?.authorizationEndpoint
        if issuer == nil, token == nil || (device == nil && authorization == nil) {
            throw UsageError(
                "give --issuer, or --token-endpoint with --device-authorization-endpoint or --authorization-endpoint"
                    + " (or both)",
                command: command
            )
        }
        var parameters: [FormParameter] = []
        for pair in options.list("param") {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                throw UsageError("--param must look like key=value, not '\(pair)'", command: command)
            }
            parameters.append(FormParameter(String(pair[..<equals]), String(pair[pair.index(after: equals)...])))
        }
        let headerLines = options.list("header")
        guard headerLines.count <= maximumHeaders else {
            throw UsageError("at most \(maximumHeaders) --header options are accepted", command: command)
        }
        let headers = try headerLines.map { try header($0, command: command) }
        for resource in options.list("resource") {
            guard let url = URL(string: resource), url.scheme != nil, url.fragment == nil else {
                throw UsageError(
                    "--resource must be an absolute URI without a fragment (RFC 8707), not '\(resource)'",
                    command: command)
            }
        }
        let scopeWords = options.list("scope").flatMap { $0.split(separator: " ").map(String.init) }
        let scopes = options.has("scope") ? scopeWords : provider?.defaultScopes
        let qr = try qrMode(options, command: command)
        let profile = options.value("profile") ?? "default"
        let forList = options.list("for")
        guard forList.count <= Profile.maximumBindings else {
            throw UsageError("at most \(Profile.maximumBindings) --for options are accepted", command: command)
        }
        let bindings = try forList.map { text in
            do {
                return try URLBinding(text)
            } catch let error as DeviceLoginError {
                throw UsageError("--for: " + error.message, command: command)
            }
        }
        let username = options.value("username")
        if let username {
            do {
                try Profile.validate(username: username)
            } catch let error as DeviceLoginError {
                throw UsageError("--username: " + error.message, command: command)
            }
        }
        let timeout = try DurationOption.read(options, "timeout", range: 1...86_400, command: command)
        try DetachedSignIn.checkDetach(options, command: command)
        let presentation = try LoginPresentation(options, command: command)
        let (kiosk, renew) = try kioskFlags(options, command: command)
        let others = ["detach", "events", "quiet"].filter { options.flag($0) } + ["notify-command"].filter(options.has)
        let flow = try flowPreference(options, kiosk: kiosk, command: command)
        if kiosk, let clash = others.first {
            throw UsageError(
                "--kiosk draws the sign-in itself, full screen; it cannot go with --\(clash)", command: command)
        }
        // Last, once every other option is known to be good: this may read a file or standard input.
        let secret = try await ClientSecretOption.read(options, command: command, input: secrets)
        let authentication: ClientAuthentication
        let preferred = provider?.clientAuthentication == .clientSecretPost ? "post" : "basic"
        switch (secret?.value, options.value("client-auth") ?? preferred) {
        case (nil, _): authentication = .none
        case (let secret?, "basic"): authentication = .clientSecretBasic(secret: secret)
        case (let secret?, "post"): authentication = .clientSecretPost(secret: secret)
        case (_, let other): throw UsageError("--client-auth must be basic or post, not '\(other)'", command: command)
        }
        return LoginSettings(
            issuer: issuer,
            client: ClientConfiguration(
                clientID: clientID, authentication: authentication,
                scopes: scopes, resources: options.list("resource"),
                additionalParameters: parameters, additionalHeaders: headers,
                allowInsecureHTTP: options.flag("allow-insecure-http")
            ),
            deviceAuthorizationEndpoint: device, tokenEndpoint: token, authorizationEndpoint: authorization,
            revocationEndpoint: try url("revocation-endpoint") ?? known?.revocationEndpoint,
            userinfoEndpoint: try url("userinfo-endpoint") ?? known?.userinfoEndpoint,
            qr: qr, json: options.flag("json"), caFile: options.value("ca-file"),
            store: !options.flag("no-store"), tokenStore: try tokenStore(options, command: command),
            storeSecret: options.flag("store-secret"), profile: profile,
            bindings: bindings, username: username, timeout: timeout, dpop: options.flag("dpop"),
            detach: options.flag("detach"), presentation: presentation, kiosk: kiosk, renew: renew, flow: flow,
            flowGiven: options.has("flow"),
            redirectPort: try redirectPort(options, command: command) ?? provider?.redirectPort,
            warnings: (secret?.warnings ?? [])
                + (provider.map {
                    providerWarnings($0, scopes: scopes ?? [], parameters: parameters, hasSecret: secret != nil)
                } ?? []),
            provider: provider, missingClientID: missingClientID
        )
    }

    /// Refuses a plain `http://` URL to a host that is not loopback unless `--allow-insecure-http`, naming the
    /// option that gave it and the flag that allows it, before any request (the library would refuse it too, in
    /// words that name no flag).
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/insecureEndpoint`` (exit 78).
    static func insecureHTTPCheck(_ url: URL, option: String, allowed: Bool) throws {
        guard url.scheme?.lowercased() == "http", !allowed, let host = url.host,
            !EndpointPolicy.isLoopback(host: host)
        else { return }
        throw DeviceLoginError(
            .insecureEndpoint,
            "--\(option) is plain http:// to \(host), which is not a loopback host: tokens and codes would cross"
                + " the network unencrypted",
            hint: "use https://, or give --allow-insecure-http if this is really meant (unsafe)")
    }

    /// The most `--header` options accepted.
    static let maximumHeaders = 64

    /// Request headers `--header` may not set, lowercased, and why. Some would change how a request is framed or
    /// where it is routed, so that a server or proxy could read one request as two (request smuggling); the
    /// others device-login sets itself, and a second value would contradict it or go to every endpoint.
    static let refusedHeaders: [String: String] = {
        let framing = "it changes how a request is framed or routed"
        let own = "device-login sets it itself"
        let credentials = "device-login sends the client's credentials and tokens itself (see --client-secret)"
        return [
            "host": framing, "content-length": framing, "transfer-encoding": framing, "connection": framing,
            "keep-alive": framing, "upgrade": framing, "te": framing, "trailer": framing, "expect": framing,
            "proxy-connection": framing,
            "content-type": own, "accept": own, "user-agent": own,
            "authorization": credentials, "dpop": credentials,
            "proxy-authorization": "give the proxy's credentials in its URL (https_proxy)",
        ]
    }()

    /// One `--header Name: value`: an HTTP field name (RFC 9110 §5.6.2 `token`, ASCII), a colon, and a value of
    /// text and tabs without any other control character; spaces after the colon are dropped.
    /// - Throws: ``UsageError`` (exit 64) when it is not such a line; ``DeviceLoginError`` with code
    ///   ``DeviceLoginError/Code/configuration`` (exit 78) for a header in ``refusedHeaders``.
    static func header(_ line: String, command: String) throws -> HTTPHeader {
        let tokenSymbols = Set("!#$%&'*+-.^_`|~".unicodeScalars)
        let scalars = line.unicodeScalars
        guard let colon = scalars.firstIndex(of: ":"), colon != scalars.startIndex,
            scalars[..<colon].allSatisfy({
                ("a"..."z").contains($0) || ("A"..."Z").contains($0)
                    || ("0"..."9").contains($0) || tokenSymbols.contains($0)
            }),
            !scalars[colon...].contains(where: { $0 != "\t" && $0.properties.generalCategory == .control })
        else {
            throw UsageError("--header must look like Name: value, not '\(line)'", command: command)
        }
        let name = String(scalars[..<colon])
        if let reason = refusedHeaders[name.lowercased()] {
            throw DeviceLoginError(.configuration, "--header \(name) is not allowed: \(reason)")
        }
        let value = scalars[scalars.index(after: colon)...].drop(while: { $0 == " " })
        return HTTPHeader(name, String(String.UnicodeScalarView(value)))
    }

    /// `--kiosk` and `--renew`.
    /// - Throws: ``UsageError`` for `--renew` without `--kiosk`.
    static func kioskFlags(_ options: ParsedOptions, command: String) throws -> (kiosk: Bool, renew: Bool) {
        let kiosk = options.flag("kiosk")
        let renew = options.flag("renew")
        guard kiosk || !renew else { throw UsageError("--renew needs --kiosk", command: command) }
        return (kiosk, renew)
    }

    /// The `--store` option; nil when not given.
    static func tokenStore(_ options: ParsedOptions, command: String) throws -> TokenStoreRequest? {
        guard let text = options.value("store") else { return nil }
        guard let request = TokenStoreRequest(text) else {
            throw UsageError(
                "--store must be " + TokenStoreRequest.names.joined(separator: ", ") + ", not '\(text)'",
                command: command)
        }
        guard !options.flag("no-store") else {
            throw UsageError("--store says where to save the tokens; it cannot go with --no-store", command: command)
        }
        return request
    }

    /// The `--flow` option (default `auto`).
    /// - Throws: ``UsageError`` for another word, and for `browser` or `paste` with `--kiosk` or `--detach`, which
    ///   are device-flow only.
    static func flowPreference(
        _ options: ParsedOptions, kiosk: Bool, command: String
    ) throws -> FlowChoice.Preference {
        let text = options.value("flow") ?? "auto"
        guard let flow = FlowChoice.Preference(rawValue: text) else {
            throw UsageError("--flow must be auto, device, browser or paste, not '\(text)'", command: command)
        }
        if flow == .browser || flow == .paste, let clash = kiosk ? "kiosk" : options.flag("detach") ? "detach" : nil {
            throw UsageError(
                "--\(clash) is for the device flow only; it cannot go with --flow \(text)", command: command)
        }
        return flow
    }

    /// The `--redirect-port` option; nil when not given.
    /// - Throws: ``UsageError`` for anything but a port, 1 to 65535.
    static func redirectPort(_ options: ParsedOptions, command: String) throws -> Int? {
        guard let text = options.value("redirect-port") else { return nil }
        guard let port = Int(text), (1...65_535).contains(port) else {
            throw UsageError("--redirect-port must be a port, 1 to 65535, not '\(text)'", command: command)
        }
        return port
    }

    /// The `--qr` option (default `auto`).
    /// - Throws: ``UsageError`` for a mode that is not auto, always or never.
    static func qrMode(_ options: ParsedOptions, command: String) throws -> QRMode {
        let text = options.value("qr") ?? "auto"
        guard let qr = QRMode(rawValue: text) else {
            throw UsageError("--qr must be auto, always or never, not '\(text)'", command: command)
        }
        return qr
    }

    /// The endpoints: a saved profile's, discovered from the issuer (with any given by hand taking precedence), or
    /// all by hand.
    func resolveEndpoints(transport: any HTTPTransport) async throws -> ServerEndpoints {
        try await resolveServer(transport: transport).endpoints
    }

    /// As ``resolveEndpoints(transport:)``, with the metadata when the endpoints were discovered (the code grant's
    /// endpoint and rules are read from it).
    func resolveServer(
        transport: any HTTPTransport
    ) async throws -> (endpoints: ServerEndpoints, metadata: AuthorizationServerMetadata?) {
        var endpoints: ServerEndpoints
        var discovered: AuthorizationServerMetadata?
        if let savedEndpoints {
            endpoints = savedEndpoints
        } else if let issuer {
            let metadata = try await Discovery(transport: transport, allowInsecureHTTP: client.allowInsecureHTTP)
                .metadata(issuer: issuer)
            discovered = metadata
            endpoints = try ServerEndpoints(
                metadata: metadata, deviceAuthorization: deviceAuthorizationEndpoint, token: tokenEndpoint,
                authorization: try? AuthorizationCodeFlow.authorizationEndpoint(
                    of: metadata, override: authorizationEndpoint)
            )
        } else if let tokenEndpoint, deviceAuthorizationEndpoint != nil || authorizationEndpoint != nil {
            endpoints = ServerEndpoints(
                deviceAuthorization: deviceAuthorizationEndpoint, token: tokenEndpoint,
                authorization: authorizationEndpoint)
        } else {
            throw DeviceLoginError(.configuration, "no issuer and no endpoints given")
        }
        if let revocationEndpoint { endpoints.revocation = revocationEndpoint }
        if let userinfoEndpoint { endpoints.userinfo = userinfoEndpoint }
        try endpoints.check(allowInsecureHTTP: client.allowInsecureHTTP)
        return (endpoints, discovered)
    }
}
