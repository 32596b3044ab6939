import DeviceLogin

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `device-login git-credential get|store|erase`: git's credential helper (gitcredentials(7)). Git runs it with
/// the operation as its last argument and the request on stdin (``GitCredentialRequest``).
///
/// - `get`: for the profile that serves the URL (``HelperSession/open(_:serving:command:context:)``), answers
///   `username`, `password` = a fresh access token, and `password_expiry_utc`. For a URL no profile serves, or a
///   protocol other than http(s), nothing: git asks its next helper.
/// - `store`: nothing to do, the tokens are ours.
/// - `erase`: git's server refused the password; it is marked expired if it is still the stored access token, so
///   the next `get` refreshes. Nothing is signed out.
/// - any other operation is ignored, as gitcredentials(7) asks of helpers.
enum GitCredentialCommand {
    static let name = "git-credential"

    static let spec = CommandSpec(
        name: name,
        summary: "git's credential helper: a fresh access token as the password.",
        positionalSynopsis: "get|store|erase",
        maximumPositionals: 1,
        options: HelperSession.options,
        discussion: """
            Set up, for a remote a profile serves (login --for URL):
              git config --global credential.https://git.example.com.helper '!device-login git-credential'
            git appends the operation. get answers username (the profile's, default oauth2), password (an
            access token valid for at least 60 s) and password_expiry_utc; for a URL that no profile serves it
            answers nothing, so git asks its next helper. store does nothing; erase marks the refused token
            expired, so the next get refreshes it. It never signs in: when the profile needs a sign-in it
            answers quit=1 (git asks no one else) and exits 77. Input that is not git's: exit 64.
            """,
        exitCodes: ExitCode.session,
        run: run
    )

    @Sendable static func run(_ options: ParsedOptions, _ context: CLIContext) async throws -> ExitCode {
        let operation = try operation(options)
        guard ["get", "store", "erase"].contains(operation) else {
            // gitcredentials(7): "If a helper receives any other operation, it should silently ignore the request."
            context.trace("git", "operation '\(operation)' ignored")
            return .success
        }
        let request: GitCredentialRequest
        let url: URLBinding?
        do {
            request = try await GitCredentialRequest.read(from: context)
            url = try request.binding()
        } catch let error as CredentialInputError {
            context.report("\(name): " + error.message)
            return .usage
        }
        guard operation != "store" else { return .success }
        guard let url else {
            context.trace("git", "nothing to answer: no http(s) URL in the request")
            return .success
        }
        if operation == "erase" {
            try await erase(request, url: url, options: options, context: context)
            return .success
        }
        do {
            return try await get(request, url: url, options: options, context: context)
        } catch let needed as SignInNeeded {
            // gitcredentials(7): with quit=1 "no further helpers will be consulted, nor will the user be prompted".
            // The URL is this profile's: a password typed at git's prompt, or another helper's, is not its token.
            try context.stdout.write(try GitCredentialRequest.encode([("quit", "1")]))
            throw needed
        }
    }

    /// The operation git appended (`get`, `store`, `erase`, or another, which is ignored).
    /// - Throws: ``UsageError`` when there is none.
    static func operation(_ options: ParsedOptions) throws -> String {
        guard let operation = options.positionals.first else {
            throw UsageError("give the operation (get, store or erase); git appends it", command: name)
        }
        return operation
    }

    /// `get`: the answer for the profile that serves `url`.
    private static func get(
        _ request: GitCredentialRequest, url: URLBinding, options: ParsedOptions, context: CLIContext
    ) async throws -> ExitCode {
        guard let helper = try await HelperSession.open(options, serving: url, command: name, context: context) else {
            return .success
        }
        guard let username = answerUsername(asked: request.username, profile: helper.profile) else {
            context.trace(
                "git",
                "git asks for user '\(request.username ?? "")'; profile '\(helper.profile.name)' answers as "
                    + "'\(helper.profile.effectiveUsername)': nothing answered")
            return .success
        }
        let (token, expiresAt) = try await helper.freshToken()
        try context.stdout.write(
            try GitCredentialRequest.encode(answer(username: username, token: token, expiresAt: expiresAt)))
        return .success
    }

    /// The answer of `get` from the stored token, for ``FastLane``: `--profile` only, a request that reads.
    static func fastAnswer(_ arguments: [String], process: FastLane.Process) -> FastLane.Answer? {
        guard let options = FastLane.options(arguments, for: spec, allowing: ["profile"], process: process),
            options.positionals == ["get"],
            let read = process.readInput(
                limit: GitCredentialRequest.maximumLength, until: GitCredentialRequest.completeness()),
            let request = process.parseRequest({ try GitCredentialRequest.request(from: read) }),
            let served = try? Optional.some(request.binding())
        else { return nil }
        let nothing = FastLane.Answer(text: "")
        guard let url = served else { return nothing }
        guard let found = FastLane.profile(options, serving: url, process: process) else { return nil }
        guard let glance = found else { return nothing }
        guard let username = answerUsername(asked: request.username, username: glance.profile.username) else {
            return nothing
        }
        guard
            let (token, expiresAt) = FastLane.storedToken(
                glance, lifetime: HelperSession.minimumLifetime, process: process)
        else { return nil }
        return (try? GitCredentialRequest.encode(answer(username: username, token: token, expiresAt: expiresAt)))
            .map { FastLane.Answer(text: $0) }
    }

    /// The attributes `get` answers with.
    static func answer(username: String, token: String, expiresAt: Date?) -> [(key: String, value: String)] {
        var answer = [(key: "username", value: username), (key: "password", value: token)]
        if let expiresAt, let seconds = unixSeconds(expiresAt) {
            answer.append((key: "password_expiry_utc", value: String(seconds)))
        }
        return answer
    }

    /// `erase`: marks the refused password expired when it is the profile's stored access token.
    private static func erase(
        _ request: GitCredentialRequest, url: URLBinding, options: ParsedOptions, context: CLIContext
    ) async throws {
        guard let helper = try await HelperSession.open(options, serving: url, command: name, context: context),
            let password = request.password, !password.isEmpty
        else { return }
        let marked = try await helper.session.state.markAccessTokenStale(password)
        context.trace(
            "git",
            marked
                ? "the refused access token is marked expired: the next get refreshes it"
                : "the refused password is not the stored access token: nothing marked")
    }

    /// The user name to answer with, or nil to answer nothing.
    ///
    /// A profile with no user name of its own (``Profile/username`` nil) answers with whatever name git already
    /// has, from the URL (`https://alice@host/`) or its configuration, as git-credential-oauth does — forges that
    /// take OAuth tokens over HTTPS read the password, and the name is the user's choice — else with
    /// ``Profile/defaultUsername``. A profile that names its user answers only for that user: a request for
    /// another is for another account, and git asks its next helper.
    static func answerUsername(asked: String?, profile: Profile) -> String? {
        answerUsername(asked: asked, username: profile.username)
    }

    /// ``answerUsername(asked:profile:)`` for a profile whose ``Profile/username`` is `username`.
    static func answerUsername(asked: String?, username: String?) -> String? {
        let effective = username ?? Profile.defaultUsername
        guard let asked, !asked.isEmpty, asked != effective else { return effective }
        return username == nil ? asked : nil
    }

    /// `date` as whole Unix seconds, rounded down (git discards a password whose `password_expiry_utc` has
    /// passed); nil for a date before 1970 or beyond any real expiry.
    static func unixSeconds(_ date: Date) -> Int64? {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        guard seconds.isFinite, seconds >= 0, seconds < 1e12 else { return nil }
        return Int64(exactly: seconds)
    }
}
