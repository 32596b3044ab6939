#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes a ``DeviceFlowEvent`` as one line of JSON (JSON Lines), version 1 of the schema in `docs/events.md`: the
/// encoding `device-login login --events` prints, for programs that draw the code themselves (a kiosk, an
/// appliance's own screen, a tool in another language driving device-login as a subprocess).
///
/// Every line is an object with `"v": 1`, an `"event"` name and `"at"` (RFC 3339, UTC, from
/// ``FlowEventContext/at``), then the event's fields. The lines are safe to render: every string from the server
/// passes through ``Sanitizer`` (controls, escape sequences, bidi and invisible characters removed, length bounded),
/// a verification URI is given only when ``SafeURI`` accepts it (plain `http` or `https`; never `javascript:`), and
/// no line ever holds the device code, a token or the client secret: any value ``KnownSecrets`` holds is replaced
/// by a marker in every message, even when the server repeated it in its error.
///
/// ```swift
/// let encoder = FlowEventEncoder()
/// let token = try await flow.run { event in
///     if let line = encoder.line(for: event, context: FlowEventContext(at: SystemTime.now())) { print(line) }
/// }
/// ```
///
/// Version 1 is stable: a new field or a new event may be added, so a reader must ignore what it does not know; a
/// field that changes its meaning or type makes a new version.
public struct FlowEventEncoder: Sendable {
    /// The schema version every line carries as `"v"`.
    public static let version = 1
    /// The bound on a sanitised message, in Unicode scalars.
    static let maximumMessageLength = 1024

    /// Creates an encoder.
    public init() {}

    /// The event as one line of JSON, without its line feed; nil for an event the schema has no line for
    /// (``DeviceFlowEvent/intervalChanged(from:to:)``, which `slow_down` already reports).
    /// - Parameters:
    ///   - event: The event.
    ///   - context: When it happened, and for `succeeded` and `failed` what only the caller knows.
    /// - Returns: The line, or nil.
    public func line(for event: DeviceFlowEvent, context: FlowEventContext) -> String? {
        switch event {
        case .authorizationReceived(let authorization):
            var json = start("authorization", context)
            Self.add(authorization, to: &json)
            return json.object
        case .polling(let attempt, _):
            var json = start("polling", context)
            json.add("attempt", integer: attempt)
            return json.object
        case .pending(let attempt):
            var json = start("pending", context)
            json.add("attempt", integer: attempt)
            return json.object
        case .slowDown(let attempt, let newInterval):
            var json = start("slow_down", context)
            json.add("attempt", integer: attempt)
            json.add("interval", integer: Self.wholeSeconds(newInterval))
            return json.object
        case .intervalChanged:
            return nil
        case .retrying(let attempt, let delay, let reason):
            var json = start("retrying", context)
            json.add("attempt", integer: attempt)
            json.add("reason", .string(Self.shown(reason)))
            json.add("delay", integer: Self.wholeSeconds(delay))
            let next = context.at.addingTimeInterval(TimeInterval(Self.wholeSeconds(delay)))
            json.add("next_attempt_at", .string(DateText.rfc3339(next)))
            return json.object
        case .succeeded:
            var json = start("succeeded", context)
            json.add("profile", string: context.profile)
            json.add("expires_at", string: context.tokenExpiresAt.map(DateText.rfc3339))
            let scopes = context.scopes.map { Sanitizer.sanitize($0) }.filter { !$0.isEmpty }
            json.add("scopes", .array(scopes.map(JSONValue.string)))
            return json.object
        case .failed(let error):
            return failedLine(error, context: context)
        }
    }

    /// A `failed` line for an error that is not a ``DeviceLoginError`` (the caller's own, such as a cancelled
    /// sign-in): `code` is given as is (snake case, e.g. `cancelled`), `message` is sanitised.
    /// - Parameters:
    ///   - code: The failure's code, in snake case.
    ///   - message: What happened, in words a person understands.
    ///   - context: When it happened, and the exit code.
    /// - Returns: The line.
    public func failedLine(code: String, message: String, context: FlowEventContext) -> String {
        var json = start("failed", context)
        json.add("code", .string(code))
        json.add("message", .string(Self.shown(message)))
        json.add("exit_code", integer: context.exitCode)
        return json.object
    }

    /// A `failed` line for `error`: its code in snake case (`access_denied`, `expired`, `invalid_response`, …),
    /// its message and hint, and the server's OAuth error code when one caused it.
    /// - Parameters:
    ///   - error: The error.
    ///   - context: When it happened, and the exit code.
    /// - Returns: The line.
    public func failedLine(_ error: DeviceLoginError, context: FlowEventContext) -> String {
        var json = start("failed", context)
        json.add("code", .string(Self.snakeCase(error.code.description)))
        json.add("message", .string(Self.shown(error.message)))
        if let hint = error.hint {
            json.add("hint", .string(Self.shown(hint)))
        }
        if let oauthError = error.oauthError {
            json.add("oauth_error", .string(Self.shown(oauthError.code.rawValue)))
        }
        json.add("exit_code", integer: context.exitCode)
        return json.object
    }

    /// The `flow` line: which grant signs the person in (`device`, `browser` or `paste`) and why, in the words the
    /// prompt uses (``FlowChoice/Decision``).
    /// - Parameters:
    ///   - decision: The choice.
    ///   - context: When it was made.
    /// - Returns: The line.
    public func flowLine(_ decision: FlowChoice.Decision, context: FlowEventContext) -> String {
        var json = start("flow", context)
        json.add("flow", .string(decision.flow.rawValue))
        json.add("reason", .string(Self.shown(decision.reason)))
        return json.object
    }

    /// The `link` line of the code grant: the address the person opens (only a ``SafeURI``, else the line is not
    /// written), and the flow (`browser`: a browser is being started on this device and the loopback listener
    /// waits; `paste`: the address the browser ends on is read from standard input). Never the PKCE verifier, which
    /// the link does not carry.
    /// - Returns: The line, or nil for a link that is not safe to show.
    public func linkLine(url: String, flow: FlowChoice.Flow, context: FlowEventContext) -> String? {
        guard let safe = Sanitizer.safeURI(url) else { return nil }
        var json = start("link", context)
        json.add("flow", .string(flow.rawValue))
        json.add("url", .string(safe))
        return json.object
    }

    /// The `redirected` line: the code grant's answer arrived (the loopback redirect, or the paste) and its `state`
    /// matched; the code itself is never written.
    public func redirectedLine(context: FlowEventContext) -> String {
        start("redirected", context).object
    }

    /// A message as a line may carry it: every secret this process holds replaced by a marker (``KnownSecrets``:
    /// a server may repeat a token or the device code in its error), then sanitised and bounded; scrubbed once more
    /// after sanitising, in case the sanitiser joined a secret that escape sequences had split.
    static func shown(_ text: String) -> String {
        KnownSecrets.scrub(Sanitizer.sanitize(KnownSecrets.scrub(text), maxLength: maximumMessageLength))
    }

    /// `{"v":1,"event":NAME,"at":…`
    private func start(_ name: String, _ context: FlowEventContext) -> JSONWriter {
        var json = JSONWriter()
        json.add("v", integer: Self.version)
        json.add("event", .string(name))
        json.add("at", .string(DateText.rfc3339(context.at)))
        return json
    }

    /// The `authorization` event's fields: the code, where to enter it (only a ``SafeURI``), the host the person
    /// is sent to, when the code expires, the interval, and the warnings of ``DeviceAuthorization/hostCheck``.
    private static func add(_ authorization: DeviceAuthorization, to json: inout JSONWriter) {
        let check = authorization.hostCheck
        json.add("user_code", .string(Sanitizer.sanitize(authorization.userCode)))
        // As the prompt does: no address when the check refuses it, or when it is not a plain http(s) link.
        let plain = check.shownVerificationURI
        json.add("verification_uri", string: plain?.string)
        // The complete URI only beside a plain one, on the same host (a QR code of it may be drawn).
        if let complete = check.shownVerificationURIComplete {
            json.add("verification_uri_complete", .string(complete.string))
        }
        json.add("host", string: plain?.hostAndPort)
        if plain == nil {
            let why =
                check.refusal.map { Sanitizer.sanitize($0, maxLength: maximumMessageLength) }
                ?? "the server's sign-in address is not a plain http(s) link"
            json.add("address_refused", .string(why))
        }
        json.add("expires_at", .string(DateText.rfc3339(authorization.expiresAt)))
        json.add("interval", integer: authorization.response.effectiveInterval)
        let warnings = check.warnings.map { Sanitizer.sanitize($0.message, maxLength: maximumMessageLength) }
        json.add("warnings", .array(warnings.map(JSONValue.string)))
    }

    /// A duration in whole seconds, rounded up (a wait is never reported as shorter than it is), held to `Int`.
    package static func wholeSeconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        let whole = Int(clamping: seconds)
        return attoseconds > 0 && whole < Int.max ? whole + 1 : whole
    }

    /// `accessDenied` → `access_denied`, `invalidIDToken` → `invalid_id_token`.
    static func snakeCase(_ name: String) -> String {
        let characters = Array(name)
        var out = ""
        for (index, character) in characters.enumerated() {
            if character.isUppercase, index > 0 {
                let previous = characters[index - 1]
                let next = index + 1 < characters.count ? characters[index + 1] : nil
                if previous.isLowercase || (previous.isUppercase && next?.isLowercase == true) { out += "_" }
            }
            out += character.lowercased()
        }
        return out
    }
}
