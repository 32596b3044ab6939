import DeviceLogin

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a `dl_client` handle points to: the settings, the store and the transport, and the one sign-in that may run.
///
/// It is a thin adapter over the core, like `device-login`'s commands: the sign-in is the engine's ``DeviceFlow``
/// with the v1 event lines of ``FlowEventEncoder``, and the tokens live in the same ``FileTokenStore`` (the same
/// directory, `$DEVICE_LOGIN_HOME` included) through a ``TokenState`` opened anew for every call, exactly as
/// `device-login token` opens it: so a token is refreshed once however many threads and processes ask (the store's
/// lock), and a sign-in or sign-out by the CLI is seen at once.
final class EmbeddedClient: Sendable {
    let settings: EmbeddedSettings
    let store: FileTokenStore
    let client: ClientConfiguration
    let transport: any HTTPTransport
    private let slot = Locked(SignInSlot())

    /// The sign-in running on this client, if any.
    private struct SignInSlot {
        var running = false
        var cancelRequested = false
        var task: Task<Void, Never>?
    }

    /// One item of a sign-in's queue to the caller's thread.
    enum SignInItem: Sendable {
        case line(String)
        case finished(EmbeddedFailure?)
    }

    /// Creates a client.
    /// - Parameter environment: The process environment, for the store's directory when the settings name none.
    /// - Throws: ``EmbeddedFailure``: the store's directory cannot be named, the secret file cannot be read.
    init(settings: EmbeddedSettings, environment: [String: String]) throws(EmbeddedFailure) {
        self.settings = settings
        do {
            let directory = try settings.storeDirectory ?? FileTokenStore.defaultDirectory(environment: environment)
            store = FileTokenStore(directory: directory)
        } catch {
            throw EmbeddedFailure(error)
        }
        let secret = try settings.clientSecretFile.map { (path: String) throws(EmbeddedFailure) in
            try Self.readSecret(path)
        }
        KnownSecrets.remember(secret)
        client = ClientConfiguration(
            clientID: settings.clientID ?? "", authentication: secret.map { .clientSecretBasic(secret: $0) } ?? .none,
            scopes: settings.scopes, resources: settings.resources, allowInsecureHTTP: settings.allowInsecureHTTP)
        transport = DefaultTransport.make(options: TransportOptions(caFile: settings.caFile))
    }

    /// The first line of the file at `path`, at most ``EmbeddedSettings/maximumSecretBytes`` bytes.
    static func readSecret(_ path: String) throws(EmbeddedFailure) -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .configuration("the client secret file cannot be read: \(Sanitizer.sanitize(path))")
        }
        guard data.count <= EmbeddedSettings.maximumSecretBytes, let text = String(validating: data, as: UTF8.self)
        else {
            throw .configuration(
                "the client secret file is not UTF-8 text of at most \(EmbeddedSettings.maximumSecretBytes) bytes")
        }
        let secret = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let trimmed = secret.hasSuffix("\r") ? secret.dropLast() : secret
        guard !trimmed.isEmpty else { throw .configuration("the client secret file is empty") }
        return String(trimmed)
    }

    // MARK: - Sign-in

    /// Signs in on the calling thread: runs the flow in a task and hands each event line to `deliver` here, in
    /// order, until the flow ends; a `deliver` that returns a failure stops the sign-in with it.
    /// - Returns: nil on success, else the failure.
    func signIn(deliver: (String) -> EmbeddedFailure?) -> EmbeddedFailure? {
        let started = slot.withLock { slot in
            guard !slot.running else { return false }
            slot = SignInSlot(running: true)
            return true
        }
        guard started else { return .busy("a sign-in is already running on this client") }
        defer { slot.withLock { $0 = SignInSlot() } }
        let queue = Handoff<SignInItem>()
        let task = Task.detached { [self] in
            do {
                try await runFlow { queue.put(.line($0)) }
                queue.put(.finished(nil))
            } catch {
                let failure = EmbeddedFailure(error)
                queue.put(.line(Self.failedLine(error, status: failure.status)))
                queue.put(.finished(failure))
            }
        }
        slot.withLock { slot in
            slot.task = task
            if slot.cancelRequested { task.cancel() }
        }
        var stoppedBy: EmbeddedFailure?
        while true {
            switch queue.take() {
            case .line(let line):
                guard stoppedBy == nil else { continue }
                if let failure = deliver(line) {
                    stoppedBy = failure
                    task.cancel()
                }
            case .finished(let failure):
                return stoppedBy ?? failure
            }
        }
    }

    /// Cancels the sign-in running on this client, if any; from any thread.
    func cancelSignIn() {
        slot.withLock { slot in
            guard slot.running else { return }
            slot.cancelRequested = true
            slot.task?.cancel()
        }
    }

    /// Whether a sign-in is running on this client.
    var isSigningIn: Bool { slot.withLock { $0.running } }

    /// The flow, as `device-login login` runs it, then the tokens saved as the profile.
    private func runFlow(emit: @escaping @Sendable (String) -> Void) async throws {
        let encoder = FlowEventEncoder()
        try settings.checkSignIn()
        try await store.checkReady(profile: settings.profile)
        let endpoints = try await resolveEndpoints()
        let flow = DeviceFlow(endpoints: endpoints, client: client, transport: transport)
        let authorization = try await flow.requestAuthorization()
        let lineOf = { @Sendable (event: DeviceFlowEvent) in
            encoder.line(for: event, context: FlowEventContext(at: SystemTime.now()))
        }
        if let line = lineOf(.authorizationReceived(authorization)) { emit(line) }
        let response = try await flow.pollForToken(authorization) { event in
            switch event {
            // The end is reported below: the success once saved, any failure by signIn's task.
            case .succeeded, .failed: return
            default: if let line = lineOf(event) { emit(line) }
            }
        }
        let receivedAt = SystemTime.now()
        let profile = try Profile(
            name: settings.profile, issuer: settings.issuer, endpoints: endpoints, client: client,
            storingSecret: false)
        let state = TokenState(profile: profile, client: client, store: store, transport: transport)
        try await state.store(response, revokingIfNotSaved: true)
        // The scopes granted; when the server did not say, those asked for (RFC 6749 §5.1: then they are the same).
        let scopes = response.scope.map { $0.split(separator: " ").map(String.init) }
        let context = FlowEventContext(
            at: SystemTime.now(), profile: settings.profile,
            tokenExpiresAt: response.expiresIn.map { receivedAt.addingTimeInterval(TimeInterval($0)) },
            scopes: scopes ?? client.effectiveScopes(for: endpoints))
        if let line = encoder.line(for: .succeeded, context: context) { emit(line) }
    }

    /// The endpoints: discovered from the issuer, with those given by hand filling in or overriding.
    private func resolveEndpoints() async throws -> ServerEndpoints {
        var endpoints: ServerEndpoints
        if let issuer = settings.issuer {
            let metadata = try await Discovery(transport: transport, allowInsecureHTTP: settings.allowInsecureHTTP)
                .metadata(issuer: issuer)
            endpoints = try ServerEndpoints(
                metadata: metadata, deviceAuthorization: settings.deviceAuthorizationEndpoint,
                token: settings.tokenEndpoint)
        } else if let device = settings.deviceAuthorizationEndpoint, let token = settings.tokenEndpoint {
            endpoints = ServerEndpoints(deviceAuthorization: device, token: token)
        } else {
            try settings.checkSignIn()
            throw EmbeddedFailure.configuration("no issuer and no endpoints given")
        }
        if let revocation = settings.revocationEndpoint { endpoints.revocation = revocation }
        try endpoints.check(allowInsecureHTTP: settings.allowInsecureHTTP)
        return endpoints
    }

    /// The `failed` line for an error that ended a sign-in, with the status the call returns.
    static func failedLine(_ error: any Error, status: Int32) -> String {
        let encoder = FlowEventEncoder()
        let context = FlowEventContext(at: SystemTime.now(), exitCode: Int(status))
        switch error {
        case let error as DeviceLoginError:
            return encoder.failedLine(error, context: context)
        case is CancellationError:
            return encoder.failedLine(code: "cancelled", message: "the sign-in was cancelled", context: context)
        default:
            let failure = EmbeddedFailure(error)
            return encoder.failedLine(code: "failure", message: failure.message, context: context)
        }
    }

    // MARK: - Session

    /// The profile's token state, opened from its record as `device-login token` opens it.
    /// - Throws: ``EmbeddedFailure`` with `ExitStatus.notSignedIn` when the profile was never saved.
    private func openSession() async throws -> TokenState {
        guard let record = try await store.load(profile: settings.profile) else {
            throw EmbeddedFailure(
                status: ExitStatus.notSignedIn.rawValue,
                message: "profile '\(settings.profile)' is not signed in: sign in first")
        }
        var client = try record.profile.clientConfiguration(secret: self.client.authentication.secret)
        client.allowInsecureHTTP = client.allowInsecureHTTP || settings.allowInsecureHTTP
        return TokenState(record: record, client: client, store: store, transport: transport)
    }

    /// The stored access token when it may be handed out as it is, read on the calling thread with no task and no
    /// request: the rule of `device-login token`'s fast lane (``TokenState/storedToken(_:now:lifetime:)``). nil
    /// when ``freshToken(minimumTTL:)`` must answer (a refresh, a DPoP proof, a record that cannot be read).
    func storedToken(minimumTTL: Duration) -> String? {
        guard let glance = try? store.glanceOnCallingThread(profile: settings.profile) else { return nil }
        return TokenState.storedToken(glance, now: SystemTime.now(), lifetime: minimumTTL)?.token
    }

    /// A fresh access token, refreshed when it expires within `minimumTTL` (plus the refresh margin).
    func freshToken(minimumTTL: Duration) async throws -> String {
        try await openSession().freshAccessToken(minimumTTL: minimumTTL)
    }

    /// Signs out: revokes the tokens at the server, then clears them in the store (as `device-login logout`).
    func signOut() async throws {
        try await openSession().signOut()
    }

    /// The profile's status as one line of JSON, version 1 (docs/embedding.md); never a token.
    func status() async throws -> String {
        let record = try await store.load(profile: settings.profile)
        var object: JSONObject = [
            "v": .number(1), "profile": .string(settings.profile),
            "signed_in": .bool(record?.tokens != nil),
        ]
        if let issuer = record?.profile.issuer { object["issuer"] = .string(Sanitizer.sanitize(issuer)) }
        if let tokens = record?.tokens {
            if let expiry = tokens.expiresAt { object["expires_at"] = .string(DateText.rfc3339(expiry)) }
            object["scopes"] = .array(tokens.scopes.map { .string(Sanitizer.sanitize($0)) })
            object["has_refresh_token"] = .bool(tokens.refreshToken != nil)
        }
        return JSONWriter.text(.object(object))
    }
}
