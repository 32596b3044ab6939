import DeviceLogin

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What every integration helper (`git-credential`, `kubectl-credential`, `docker-credential`, `curl-config`,
/// `exec`) shares: the profile it answers for, and a fresh access token under the non-interactive contract.
///
/// A helper is called by a program, often with no terminal, so it never waits for a person: a missing profile or
/// an ended session is ``SignInNeeded`` (one line naming the `login` command, exit 77) at once. The token it gives
/// stays valid for at least ``minimumLifetime`` (refreshed first when it would not, with the same single-flight
/// refresh as `token`, in-process and across processes).
struct HelperSession: Sendable {
    /// Options every helper takes: those of the session commands (`--profile`, the client secret, `--ca-file`).
    static let options = SessionContext.commonOptions

    /// How long a token a helper gives must stay valid: 60 s, the refresh margin. A shorter one is refreshed
    /// first, so git or kubectl never receive a token that expires during their request.
    static let minimumLifetime: Duration = .seconds(60)

    /// The opened profile.
    let session: SessionContext

    /// The profile's settings.
    var profile: Profile { session.record.profile }

    /// Opens the profile named by `--profile`.
    /// - Throws: ``SignInNeeded`` when there is no such profile; the errors of
    ///   ``SessionContext/open(_:command:context:dpopKey:)``.
    static func open(_ options: ParsedOptions, command: String, context: CLIContext) async throws -> HelperSession {
        HelperSession(session: try await SessionContext.open(options, command: command, context: context))
    }

    /// Opens the profile for `url`: the one named by `--profile` when given (whatever its bindings: the caller's
    /// configuration chose it, but a plain-http `url` off loopback only if the profile allows insecure HTTP:
    /// ``refusesPlainHTTP(_:allowInsecureHTTP:)``), else the profile whose `--for` binding matches `url` best.
    /// - Returns: The session, or nil when no profile serves `url` (git then asks its next helper).
    /// - Throws: ``SignInNeeded`` when `--profile` names no profile; ``DeviceLoginError`` with code
    ///   ``DeviceLoginError/Code/configuration`` when two profiles serve `url` equally well, or `--profile`'s would
    ///   send its token over plain HTTP.
    static func open(
        _ options: ParsedOptions, serving url: URLBinding, command: String, context: CLIContext
    ) async throws -> HelperSession? {
        if options.has("profile") {
            let helper = try await open(options, command: command, context: context)
            guard !refusesPlainHTTP(url, allowInsecureHTTP: helper.profile.allowInsecureHTTP) else {
                throw DeviceLoginError(
                    .configuration,
                    "refusing to send profile '\(helper.profile.name)''s token over plain HTTP to \(url.host)",
                    hint: "use an https URL; or sign the profile in with --allow-insecure-http, or bind it to this"
                        + " URL (login --for) and drop --profile")
            }
            return helper
        }
        let store = try context.tokenStore()
        // The record the fast lane chose for `url` by the same rule, when it chose one: the profiles are read once.
        var record = context.plan?.record
        if record == nil { record = try await boundRecord(for: url, in: store, context: context) }
        guard let record else {
            context.trace("profile", "no profile serves \(url)")
            return nil
        }
        context.trace("profile", "\(record.name) serves \(url)")
        let secret = try await SessionContext.readSecret(options, command: command, context: context)
        return HelperSession(
            session: try await SessionContext.open(
                record, store: store, options: options, secret: secret, context: context))
    }

    /// Whether a token may not go to `url` from a profile pinned with `--profile`: plain `http` to a host that is
    /// not loopback, unless the profile was signed in allowing it — ``EndpointPolicy``'s rule for the server's
    /// endpoints, applied to where the token goes. (A profile bound to an `http` URL with `login --for` was bound
    /// to it on purpose.) Pure, for the fast lane too (``FastLane/profile(_:serving:process:)``).
    static func refusesPlainHTTP(_ url: URLBinding, allowInsecureHTTP: Bool) -> Bool {
        !allowInsecureHTTP && url.isPlainHTTPOffLoopback
    }

    /// Every saved profile with its bindings, sorted by name; a profile file that cannot be read is skipped with a
    /// warning (``unreadable(_:_:)``: a broken profile must not stop git from reaching the others).
    static func boundProfiles(in store: FileTokenStore, context: CLIContext) async throws -> [ProfileRecord] {
        try await savedProfiles(in: store, context: context).compactMap { $0.record }.filter {
            !$0.profile.bindings.isEmpty
        }
    }

    /// Every saved profile's name, sorted, with its record; nil for one whose file cannot be read (warned about, as
    /// ``unreadable(_:_:)`` says) or has gone since it was listed.
    private static func savedProfiles(
        in store: FileTokenStore, context: CLIContext
    ) async throws -> [(name: String, record: ProfileRecord?)] {
        var profiles: [(name: String, record: ProfileRecord?)] = []
        for name in try await store.profileNames().sorted() {
            do {
                profiles.append((name, try await store.load(profile: name)))
            } catch {
                context.stderr.line(unreadable(name, error))
                profiles.append((name, nil))
            }
        }
        return profiles
    }

    /// The warning for a saved profile that cannot be read while looking for the one bound to a URL: the same line
    /// on the fast lane and the full path, which both skip the profile (``ProfileChoice``).
    static func unreadable(_ name: String, _ error: any Error) -> String {
        "device-login: warning: profile '\(name)' cannot be read, skipped: " + String(describing: error)
    }

    /// The saved profile whose binding matches `url` best (the longest path), chosen by ``ProfileChoice``; nil when
    /// none does.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/configuration`` when two profiles tie.
    static func boundRecord(
        for url: URLBinding, in store: FileTokenStore, context: CLIContext
    ) async throws -> ProfileRecord? {
        let profiles = try await savedProfiles(in: store, context: context)
        switch ProfileChoice(serving: url, among: profiles.map { ($0.name, $0.record?.profile.bindings) }) {
        case .none: return nil
        case .profile(let name): return profiles.first { $0.name == name }?.record
        case .tie(let names, let binding): throw tie(names, binding: binding)
        }
    }

    /// The refusal of a URL that profiles `names` serve equally well, by `binding`: the binding they share, not the
    /// URL asked for, so that the message quotes no input.
    private static func tie(_ names: [String], binding: URLBinding) -> DeviceLoginError {
        DeviceLoginError(
            .configuration, "profiles \(names.map { "'\($0)'" }.joined(separator: " and ")) both serve \(binding)",
            hint: "bind one of them to a longer URL prefix (login --for), or give --profile"
        )
    }

    /// What one request needs to be authorized (``TokenState/authorization(method:url:minimumTTL:nonce:)``): an
    /// access token valid for at least ``minimumLifetime`` and, for a profile that uses DPoP, a proof for `target`.
    /// - Parameters:
    ///   - target: The request the proof is for.
    ///   - nonce: The resource server's nonce, for the proof.
    /// - Throws: As ``freshToken()``; ``DeviceLoginError`` when the proof cannot be made.
    func authorization(for target: RequestTarget, nonce: String? = nil) async throws -> RequestAuthorization {
        let state = session.state
        return try await session.needingSignIn {
            try await state.authorization(
                method: target.method, url: target.url, minimumTTL: Self.minimumLifetime, nonce: nonce)
        }
    }

    /// Refuses a profile that does not use DPoP, for a command that makes proofs (`dpop-proof`, `exec --dpop-url`).
    /// - Parameter what: What needs the proof, for the message: "a DPoP proof".
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/configuration`` (exit 78).
    func requireDPoP(for what: String) throws {
        guard !profile.usesDPoP else { return }
        throw Self.notDPoP(profile: profile.name, for: what)
    }

    /// The refusal of ``requireDPoP(for:)``, for profile `profile` (the agent's lane gives it too).
    static func notDPoP(profile: String, for what: String) -> DeviceLoginError {
        DeviceLoginError(
            .configuration,
            "profile '\(profile)' does not use DPoP: its tokens are Bearer tokens, and \(what) would prove nothing",
            hint: "sign in with DPoP: device-login login --dpop"
        )
    }

    /// An access token valid for at least ``minimumLifetime``, refreshed first when needed, with its expiry.
    /// - Throws: ``SignInNeeded`` when the profile has no tokens or the server ended the session; the refresh's
    ///   other errors (network: exit 69).
    func freshToken() async throws -> (token: String, expiresAt: Date?) {
        let state = session.state
        return try await session.needingSignIn {
            let token = try await state.freshAccessToken(minimumTTL: Self.minimumLifetime)
            return (token, await state.tokens?.expiresAt)
        }
    }
}
