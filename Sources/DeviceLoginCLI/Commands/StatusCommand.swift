import DeviceLogin
import DeviceLoginTerminal

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `device-login status`: who is signed in, where, until when — never the tokens themselves.
enum StatusCommand {
    static let spec = CommandSpec(
        name: "status",
        summary: "Show whether a profile is signed in, as whom, its scopes, expiry and where it is stored.",
        options: [
            .profile("to show"),
            .flag(
                "json",
                "Print JSON (\"v\": 1): the profile shown, whether it is signed in, and a list of every saved"
                    + " profile (see docs/cli.md)."),
            .value("ca-file", "PEM", "Trust the CA certificates in this PEM file when fetching the issuer's keys."),
        ],
        discussion: """
            Exits 0 when signed in and 77 when not. Tokens are never shown; use `device-login token`. Who is
            signed in comes only from an ID token whose signature verified with the issuer's published key
            (jwks_uri) and whose claims fit; the verdict is kept with the tokens, so status sends no request
            unless the ID token has not been judged yet. A pending sign-in (login --detach) is shown with
            its code and time left, never its device code. With DEVICE_LOGIN_AGENT_SOCK set, it also shows
            what the agent holds (docs/agent.md), and a profile the agent holds counts as signed in.
            """,
        exitCodes: ExitCode.session,
        exitMeanings: [.notSignedIn: "not signed in: the profile has no tokens, or is not saved"],
        run: run
    )

    @Sendable static func run(_ options: ParsedOptions, _ context: CLIContext) async throws -> ExitCode {
        let name = options.value("profile") ?? Profile.defaultName
        try Profile.validate(name: name)
        let store = try context.tokenStore()
        let path = try store.filePath(profile: name)
        context.trace("store", path)
        let (record, unreadable) = try await load(profile: name, store: store)
        let others = try await store.profileNames().filter { $0 != name }
        let verification = try await verify(record, store: store, options: options, context: context)
        var report = Report(
            name: name, path: path, record: record, now: context.now(), others: others, verification: verification
        )
        report.tokensUnreadable = unreadable
        report.servingCopy = servingCopy(of: name, unreadable: unreadable, store: store, now: report.now)
        if let profile = record?.profile, profile.usesDPoP {
            report.dpopKeyPath = try store.dpopKeyPlace(profile: name, in: profile.tokenStore)
        }
        report.sessionKeyring = store.keyring == .session
        (report.pending, report.pendingProblem) = try await pending(of: name, store: store)
        if let socket = AgentSocket.named(in: { context.environment[$0] }) {
            report.agent = AgentView(socket: socket, reply: try await AgentClient.ask(agentList, socket: socket))
        }
        if options.flag("json") {
            let entries = try await [report.json] + otherEntries(others, store: store, now: report.now)
            try context.stdout.line(try TokenOutput.encode(report.document(entries)))
        } else {
            for line in report.lines { try context.stdout.line(line) }
        }
        return report.signedIn ? .success : .notSignedIn
    }

    /// The `profiles` entries of the other saved profiles, for `--json`: what is stored, with the verdict on the ID
    /// token that is kept with the tokens (no request is sent for them). A profile that cannot be read is an entry
    /// with `problem`, not a failure of `status`.
    static func otherEntries(_ names: [String], store: FileTokenStore, now: Date) async throws -> [JSONObject] {
        var entries: [JSONObject] = []
        for name in names {
            let path = try store.filePath(profile: name)
            do {
                let (record, unreadable) = try await load(profile: name, store: store)
                var report = Report(
                    name: name, path: path, record: record, now: now, others: [],
                    verification: record?.tokens?.idTokenVerification)
                report.tokensUnreadable = unreadable
                report.servingCopy = servingCopy(of: name, unreadable: unreadable, store: store, now: now)
                if let profile = record?.profile, profile.usesDPoP {
                    report.dpopKeyPath = try? store.dpopKeyPlace(profile: name, in: profile.tokenStore)
                }
                (report.pending, report.pendingProblem) = try await pending(of: name, store: store)
                entries.append(report.json)
            } catch let error as DeviceLoginError {
                entries.append([
                    "name": .string(name), "signed_in": .bool(false), "store": .string(path),
                    "pending_sign_in": .null, "problem": .string(TerminalText.clean(error.message)),
                ])
            }
        }
        return entries
    }

    /// The profile's record, or — when its tokens rest in a store that cannot be read now without asking anyone (a
    /// locked Secret Service collection: "not signed in", ``DeviceLoginError/Code/noSession``) — its settings without
    /// tokens and why, so that status still shows the profile and where its tokens rest.
    static func load(
        profile name: String, store: FileTokenStore
    ) async throws -> (ProfileRecord?, DeviceLoginError?) {
        do {
            return (try await store.load(profile: name), nil)
        } catch let error as DeviceLoginError where error.code == .noSession {
            return (try await store.loadSettings(profile: name), error)
        }
    }

    /// When the profile's tokens cannot be read now (`unreadable`: a locked Secret Service collection), the copy of
    /// its access token in the kernel keyring that `token` and the helpers still answer with, by their one rule
    /// (``TokenState/storedToken(_:now:lifetime:)``); nil when there is none, or it would not be answered.
    static func servingCopy(
        of name: String, unreadable: DeviceLoginError?, store: FileTokenStore, now: Date
    ) -> ProfileGlance.AccessToken? {
        guard unreadable != nil, let glance = try? store.glanceOnCallingThread(profile: name),
            TokenState.storedToken(glance, now: now, lifetime: .zero) != nil
        else { return nil }
        return glance.accessToken
    }

    /// What status asks an agent named by `DEVICE_LOGIN_AGENT_SOCK`: the profiles it holds, no token.
    static let agentList = AgentRequest(profile: nil, url: nil, minimumLifetime: 0, operation: .list)

    /// What the agent that `token` and the helpers ask instead of this home (docs/agent.md) holds: its `list`, or
    /// why it did not answer.
    struct AgentView {
        /// The agent's socket.
        let socket: String
        /// The profiles it holds, sorted by name; nil when it did not answer.
        let profiles: [AgentReply.Listed]?
        /// Why it did not answer, sanitised; nil when it did.
        let problem: String?

        init(socket: String, reply: Result<AgentReply, AgentClient.Failure>) {
            self.socket = socket
            switch reply {
            case .success(.profiles(let listed)):
                (profiles, problem) = (listed, nil)
            case .success(.failure(let failure)):
                (profiles, problem) = (nil, TerminalText.clean(failure.message))
            case .success:
                (profiles, problem) = (nil, "the agent's answer to list is not a list of profiles")
            case .failure(let failure):
                (profiles, problem) = (nil, TerminalText.clean(failure.message))
            }
        }

        /// Whether the agent holds profile `name`.
        func holds(_ name: String) -> Bool { profiles?.contains { $0.name == name } ?? false }

        /// The lines status shows about it.
        var lines: [String] {
            let place =
                "Through the agent at " + TerminalText.clean(socket)
                + " (token and the helpers ask it, not this home)"
            guard let profiles else { return [place + ": " + (problem ?? "no answer") + "."] }
            guard !profiles.isEmpty else { return [place + ": it holds no profile."] }
            return [place + ": it holds"]
                + profiles.map { listed in
                    let user = listed.username.map { ", user " + TerminalText.clean($0) } ?? ""
                    let bindings =
                        listed.bindings.isEmpty
                        ? "" : ", for " + listed.bindings.map { TerminalText.clean($0) }.joined(separator: ", ")
                    return "  " + TerminalText.clean(listed.name) + user + bindings
                }
        }

        /// Its part of `status --json`: `socket`, and `profiles` (names, user names and bindings) or `problem`.
        var json: JSONObject {
            var object: JSONObject = ["socket": .string(socket)]
            if let profiles {
                object["profiles"] = .array(
                    profiles.map { listed in
                        var entry: JSONObject = [
                            "name": .string(listed.name),
                            "bindings": .array(listed.bindings.map(JSONValue.string)),
                        ]
                        if let username = listed.username { entry["username"] = .string(username) }
                        return .object(entry)
                    })
            }
            if let problem { object["problem"] = .string(problem) }
            return object
        }
    }

    /// The pending sign-in of profile `name`, or why its file cannot be read: a corrupt file, an unsafe one, or one
    /// whose endpoints or address are refused (``FileTokenStore/loadPending(profile:)``) is reported, not hidden, and
    /// status still shows the profile.
    static func pending(
        of name: String, store: FileTokenStore
    ) async throws -> (PendingAuthorization?, DeviceLoginError?) {
        do {
            return (try await store.loadPending(profile: name), nil)
        } catch let error as DeviceLoginError {
            return (nil, error)
        }
    }

    /// The verdict on the profile's ID token (``TokenState/idTokenVerification()``): the one kept with the tokens, or
    /// judged now, fetching the issuer's keys. Nil without an ID token.
    static func verify(
        _ record: ProfileRecord?, store: FileTokenStore, options: ParsedOptions, context: CLIContext
    ) async throws -> IDTokenVerification? {
        guard let record, record.tokens?.idToken != nil else { return nil }
        let profile = record.profile
        // Status sends no token request: a client secret that is not stored is not needed, only the client ID.
        let client =
            (try? profile.clientConfiguration())
            ?? ClientConfiguration(clientID: profile.clientID, allowInsecureHTTP: profile.allowInsecureHTTP)
        let state = TokenState(
            record: record, client: client, store: store,
            transport: context.makeTransport(TransportOptions(caFile: options.value("ca-file"))),
            clock: context.clock, now: context.now
        )
        return try await state.idTokenVerification()
    }

    /// How long an access token that expires at `expiry` stays valid, for people: `valid until <date> (1 h left)`,
    /// `expired at <date> (refreshed on next use)`. Any date is written sanely: one after 9999 is `valid until after
    /// 9999-12-31T23:59:59Z (over 100 years left)`, one before year 1 (or NaN) `expired before 0001-01-01T00:00:00Z`.
    static func expiryText(_ expiry: Date?, now: Date) -> String {
        guard let expiry else { return "no expiry given" }
        let left = DateText.seconds(from: now, to: expiry)
        if left > 0 {
            let stamp =
                expiry > DateText.latest
                ? "after " + TokenOutput.timestamp(DateText.latest)
                : TokenOutput.timestamp(expiry)
            return "valid until \(stamp) (\(TokenOutput.duration(seconds: left)) left)"
        }
        // On the seconds: a NaN date compares as not earlier than any (`>=` of `Date` is `!(<)`).
        let stamp =
            expiry.timeIntervalSince1970 >= DateText.earliest.timeIntervalSince1970
            ? "at " + TokenOutput.timestamp(expiry)
            : "before " + TokenOutput.timestamp(DateText.earliest)
        return "expired \(stamp) (refreshed on next use)"
    }

    /// The status of one profile, as lines or JSON.
    struct Report {
        let name: String
        let path: String
        let record: ProfileRecord?
        let now: Date
        let others: [String]
        /// The verdict on the ID token (``StatusCommand/verify(_:store:options:context:)``); nil without one.
        var verification: IDTokenVerification?
        /// The DPoP key file of a profile that uses DPoP.
        var dpopKeyPath: String? = nil
        /// Whether `DEVICE_LOGIN_KEYRING=session` put a keyring profile's tokens in the session keyring.
        var sessionKeyring = false
        /// The profile's pending sign-in (`login --detach`), if any; its device code is never shown.
        var pending: PendingAuthorization? = nil
        /// Why the profile's pending sign-in file cannot be read, if it cannot.
        var pendingProblem: DeviceLoginError? = nil
        /// Why the profile's tokens cannot be read now (a locked Secret Service collection), if they cannot.
        var tokensUnreadable: DeviceLoginError? = nil
        /// The access token's copy in the kernel keyring that still answers while the tokens cannot be read
        /// (``StatusCommand/servingCopy(of:unreadable:store:now:)``): signed in for as long as it does.
        var servingCopy: ProfileGlance.AccessToken? = nil

        /// What a profile whose access token's copy serves while its collection is locked is told.
        static let lockedWithCopy =
            "the Secret Service collection is locked: only the access token's copy in the kernel keyring can be read"

        /// The agent `token` and the helpers ask instead of this home, when `DEVICE_LOGIN_AGENT_SOCK` names one.
        var agent: AgentView? = nil

        /// Whether `token` answers: the tokens can be read, or the access token's copy still serves, or the agent
        /// holds the profile.
        var signedIn: Bool { record?.tokens != nil || servingCopy != nil || agent?.holds(name) == true }

        /// The token type, and for DPoP where its key is: `DPoP (bound to the key in /…/work.dpop.jwk)`.
        private func tokenTypeText(_ tokens: TokenSet) -> String {
            let type = TerminalText.clean(tokens.tokenType)
            guard tokens.isDPoP, let dpopKeyPath else { return type }
            return type + " (bound to the key in \(dpopKeyPath))"
        }

        /// The ID token's claims, only when it is verified: its signature with the issuer's key, its claims at the
        /// moment it was received (its `exp` has usually passed since: identity, not freshness, is what status
        /// reports).
        private var claims: IDTokenClaims? {
            guard verification?.isVerified == true, let idToken = record?.tokens?.idToken else { return nil }
            return try? IDTokenClaims(idToken: idToken)
        }

        /// What the ID token line says: verified with what, or not verified and why; nil without an ID token.
        private var idTokenText: String? {
            guard record?.tokens?.idToken != nil else { return nil }
            guard let verification else { return "not verified: it was not checked" }
            if verification.isVerified {
                let key = verification.keyID.map { ", key \($0)" } ?? ""
                return "verified (\(verification.algorithm ?? "?")\(key))"
            }
            let yet = verification.outcome == .undetermined ? " yet" : ""
            let problem = verification.problem ?? "no reason given"
            // A verdict reused for a while rather than waiting on the key set again: say how old it is.
            guard let unavailableAt = verification.keysUnavailableAt else { return "not verified\(yet): " + problem }
            let ago = TokenOutput.duration(seconds: max(0, DateText.seconds(from: unavailableAt, to: now)))
            return "not verified (keys unavailable, checked \(ago) ago): " + problem
        }

        private var who: String? {
            guard let claims else { return nil }
            let label = claims.preferredUsername ?? claims.email ?? claims.name
            return label.map { "\($0) (sub \(claims.subject))" } ?? claims.subject
        }

        /// What status shows: this home's profile, then the agent's, when one is named.
        var lines: [String] { homeLines + (agent.map { [""] + $0.lines } ?? []) }

        private var homeLines: [String] {
            var lines: [String] = []
            guard let record else {
                guard agent?.holds(name) != true else {
                    lines.append("Signed in through the agent: no profile '\(name)' in this home; the agent holds it.")
                    return lines + pendingLines + otherProfiles
                }
                lines.append("Not signed in: no profile '\(name)'.")
                if pending == nil, pendingProblem == nil {
                    lines.append("Sign in with: " + CLIHints.loginCommand(profile: name, saved: nil))
                }
                return lines + pendingLines + otherProfiles
            }
            let profile = record.profile
            if let tokens = record.tokens {
                lines.append("Signed in" + (who.map { " as " + TerminalText.clean($0) } ?? "") + ".")
                lines.append("  profile:        \(name)")
                let issuer = profile.issuer ?? profile.endpoints.token.absoluteString
                let scopes = tokens.scope ?? (profile.scopes ?? []).joined(separator: " ")
                if let provider = profile.provider {
                    lines.append("  provider:       " + TerminalText.clean(provider))
                }
                lines.append("  issuer:         " + TerminalText.clean(issuer))
                lines.append("  client ID:      " + TerminalText.clean(profile.clientID))
                lines.append("  scopes:         " + TerminalText.clean(scopes))
                if let idTokenText { lines.append("  ID token:       " + TerminalText.clean(idTokenText)) }
                lines.append("  access token:   " + expiryText(tokens.expiresAt))
                lines.append("  token type:     " + tokenTypeText(tokens))
                lines.append("  refresh token:  " + (tokens.refreshToken == nil ? "none" : "stored"))
                for resource in tokens.resourceTokens.keys.sorted() {
                    lines.append(
                        "  resource:       " + TerminalText.clean(resource) + ", "
                            + expiryText(tokens.resourceTokens[resource]?.expiresAt))
                }
            } else if let tokensUnreadable, let servingCopy {
                // What `token` and the helpers do: answer from the copy, until it is due for a refresh.
                lines.append("Signed in, but " + Self.lockedWithCopy + ".")
                lines.append("  profile:        \(name)")
                lines.append("  access token:   " + expiryText(servingCopy.expiresAt))
                lines.append(
                    "  refresh:        not possible until the collection is unlocked (its refresh token is there)")
                if let hint = tokensUnreadable.hint { lines.append("  hint: " + TerminalText.clean(hint)) }
            } else if let tokensUnreadable {
                let message = TerminalText.clean(tokensUnreadable.message)
                lines.append(message.prefix(1).uppercased() + message.dropFirst() + ".")
                if let hint = tokensUnreadable.hint { lines.append("  hint: " + TerminalText.clean(hint)) }
            } else {
                lines.append(
                    profile.tokenStore == .keyring
                        ? "Not signed in: profile '\(name)' has no tokens in the kernel keyring (signed out, the key "
                            + "revoked or expired, or the machine restarted)."
                        : "Not signed in: profile '\(name)' has no tokens (signed out, or the session ended).")
                let command = CLIHints.loginCommand(profile: name, saved: profile)
                lines.append("Sign in again with: " + TerminalText.clean(command))
            }
            for binding in profile.bindings {
                lines.append("  serves:         " + TerminalText.clean(binding.description))
            }
            if !profile.bindings.isEmpty || profile.username != nil {
                lines.append("  user name:      " + TerminalText.clean(profile.effectiveUsername))
            }
            lines.append("  stored in:      \(path)")
            lines.append(
                "  tokens rest in: "
                    + (profile.tokenStore == .keyring && sessionKeyring
                        ? "kernel keyring (the session keyring, DEVICE_LOGIN_KEYRING=session: gone when the session ends)"
                        : profile.tokenStore.place))
            return lines + pendingLines + otherProfiles
        }

        /// The pending sign-in, if any: its code, where, the prompt's warnings about where, and the time left —
        /// never its device code. Every string in it came from the server through a file: all are sanitised. A file
        /// that cannot be read is said so.
        private var pendingLines: [String] {
            if let pendingProblem {
                return ["Pending sign-in: cannot be read: " + TerminalText.clean(pendingProblem.message)]
                    + (pendingProblem.hint.map { ["  hint: " + TerminalText.clean($0)] } ?? [])
            }
            guard let pending else { return [] }
            let code = TerminalText.clean(pending.authorization.userCode)
            let check = pending.authorization.hostCheck
            // By the prompt's verdict; a file with an address it refuses is not read, so this is a fallback.
            let page = check.shownVerificationURI?.string ?? "an address that is refused"
            guard !pending.isExpired(at: now) else {
                return [
                    "Pending sign-in: code \(code) expired at \(TokenOutput.timestamp(pending.expiresAt)); "
                        + "start a new one with: "
                        + TerminalText.clean(CLIHints.loginCommand(profile: name, saved: record?.profile))
                ]
            }
            let left = TokenOutput.duration(seconds: pending.secondsLeft(at: now))
            // The prompt's warnings, in its words and with its label, repeated where the code is shown again.
            let renderer = PromptRenderer(
                capabilities: TerminalCapabilities(isTerminal: false, isUTF8: true), machineName: nil)
            return check.warnings.map(renderer.warningLine) + [
                "Pending sign-in: code \(code) at \(page), \(left) left.",
                "Finish it with: " + DetachedSignIn.resumeCommand(profile: name),
            ]
        }

        /// The pending sign-in for `--json`: null when there is none.
        private var pendingJSON: JSONValue {
            guard let pending else { return .null }
            let authorization = pending.authorization
            let check = authorization.hostCheck
            // Sanitised, then JSON-escaped by the encoder: a program may show these strings as they are.
            var object: JSONObject = [
                "user_code": .string(TerminalText.clean(authorization.userCode)),
                "verification_uri": check.shownVerificationURI.map { .string($0.string) } ?? .null,
                "warnings": .array(check.warnings.map { .string(TerminalText.clean($0.message)) }),
                "expires_at": .string(TokenOutput.timestamp(pending.expiresAt)),
                "seconds_left": .number(Double(pending.secondsLeft(at: now))),
                "interval": .number(Double(pending.progress.interval.components.seconds)),
                "last_poll_at": pending.progress.lastPollAt.map { .string(TokenOutput.timestamp($0)) } ?? .null,
            ]
            if let complete = check.shownVerificationURIComplete {
                object["verification_uri_complete"] = .string(complete.string)
            }
            return .object(object)
        }

        private var otherProfiles: [String] {
            others.isEmpty ? [] : ["Other profiles: " + others.joined(separator: ", ")]
        }

        private func expiryText(_ expiry: Date?) -> String {
            StatusCommand.expiryText(expiry, now: now)
        }

        /// The `status --json` document, version 1 (docs/cli.md): `v`, the profile shown and whether it is signed
        /// in (what the exit code says), and `profiles`, a list of entries sorted by name — never an object keyed
        /// by profile names.
        func document(_ entries: [JSONObject]) -> JSONObject {
            let sorted = entries.sorted { ($0["name"]?.stringValue ?? "") < ($1["name"]?.stringValue ?? "") }
            var document: JSONObject = [
                "v": .number(1), "profile": .string(name), "signed_in": .bool(signedIn),
                "profiles": .array(sorted.map(JSONValue.object)),
            ]
            if let agent { document["agent"] = .object(agent.json) }
            return document
        }

        /// This profile's entry in `profiles`.
        var json: JSONObject {
            var object: JSONObject = [
                "name": .string(name), "signed_in": .bool(signedIn), "store": .string(path),
                "pending_sign_in": pendingJSON,
            ]
            if let tokensUnreadable { object["problem"] = .string(TerminalText.clean(tokensUnreadable.message)) }
            if let servingCopy {
                // Only the copy's expiry: the scope, refresh token and ID token are in the locked collection.
                object["problem"] = .string(Self.lockedWithCopy)
                object["expires_at"] = servingCopy.expiresAt.map { .string(TokenOutput.timestamp($0)) } ?? .null
            }
            if let pendingProblem {
                object["pending_sign_in_problem"] = .string(TerminalText.clean(pendingProblem.message))
            }
            guard let record else { return object }
            let profile = record.profile
            object["issuer"] = profile.issuer.map(JSONValue.string) ?? .null
            object["client_id"] = .string(profile.clientID)
            if let provider = profile.provider { object["provider"] = .string(provider) }
            object["bindings"] = .array(profile.bindings.map { .string($0.description) })
            // The user name the credential helpers answer with, not the person signed in (that is `user`).
            // `username` is its v1 name, kept as a deprecated alias until a "v": 2 (STYLE.md rule 17).
            object["helper_username"] = .string(profile.effectiveUsername)
            object["username"] = .string(profile.effectiveUsername)
            object["dpop"] = .bool(profile.usesDPoP)
            // Where the tokens rest (issue 21): "file", "keyring" or "secret-service"; "store" is the profile's file.
            object["token_store"] = .string(profile.tokenStore.rawValue)
            if let dpopKeyPath { object["dpop_key"] = .string(dpopKeyPath) }
            if let tokens = record.tokens {
                object["scope"] = tokens.scope.map(JSONValue.string) ?? .null
                object["expires_at"] = tokens.expiresAt.map { .string(TokenOutput.timestamp($0)) } ?? .null
                object["has_refresh_token"] = .bool(tokens.refreshToken != nil)
                object["token_type"] = .string(tokens.tokenType)
                object["resources"] = .array(tokens.resourceTokens.keys.sorted().map(JSONValue.string))
                object["id_token_verified"] = .bool(verification?.isVerified == true)
                if tokens.idToken != nil, verification?.isVerified != true {
                    object["id_token_problem"] = .string(verification?.problem ?? "it was not checked")
                }
            }
            if let claims {
                var user: JSONObject = ["sub": .string(claims.subject)]
                if let name = claims.name { user["name"] = .string(name) }
                if let email = claims.email { user["email"] = .string(email) }
                if let username = claims.preferredUsername { user["preferred_username"] = .string(username) }
                object["user"] = .object(user)
            }
            return object
        }
    }
}
