/// The secret values this process holds — client secrets, device codes, access, refresh and ID tokens — kept so that
/// no text the library or a front end shows can repeat one: the one place every server string passes before it is
/// shown or written.
///
/// A server may echo what it was sent (`"error_description": "refresh token abc… is revoked"`); the `--verbose`
/// trace hides such values through ``Redaction``, and so must every error message, every event line and every
/// status report. Values are remembered where the process comes to hold them: when a request to a token-style
/// endpoint is built (``ClientConfiguration/formRequest(to:parameters:)``: the client secret, its HTTP Basic
/// credential, and every secret form field, such as `device_code` and `refresh_token`) and when a ``TokenSet`` is
/// made (from a response or read back from storage). They are scrubbed where errors are made (``OAuthError``,
/// ``DeviceLoginError``) and again where text is shown (the event encoder, the CLI's terminal text).
///
/// Process-wide on purpose: an error made deep in a refresh must not depend on its caller passing the right values
/// along. A value shorter than ``Redaction/minimumScrubbedLength`` is not remembered (it would match ordinary text),
/// and at most ``capacity`` values are kept, the oldest forgotten first.
///
/// ```swift
/// KnownSecrets.remember(refreshToken)
/// KnownSecrets.scrub("token \(refreshToken) was revoked")  // "token [redacted, 43 chars] was revoked"
/// ```
public struct KnownSecrets: Sendable {
    /// How many values are kept at most: enough for every secret of many profiles and several rotations.
    public static let capacity = 256

    /// The process's secrets.
    private static let shared = Locked(KnownSecrets())

    /// The values, oldest first.
    private var values: [String] = []
    /// How many values this set keeps at most.
    let capacity: Int

    /// An empty set keeping at most `capacity` values (the process's own is ``capacity``).
    init(capacity: Int = Self.capacity) {
        self.capacity = capacity
    }

    /// Remembers `value` as a secret of this process, so ``scrub(_:)-swift.type.method`` hides it wherever it
    /// appears; nil and short values are ignored.
    public static func remember(_ value: String?) {
        shared.withLock { $0.remember(value) }
    }

    /// Remembers each value of `values` as a secret of this process.
    public static func remember(_ values: some Sequence<String?>) {
        shared.withLock { set in
            for value in values { set.remember(value) }
        }
    }

    /// `text` with every secret this process remembered replaced by ``Redaction/marker(length:)``.
    public static func scrub(_ text: String) -> String {
        shared.withLock { $0 }.scrub(text)
    }

    /// `text` scrubbed, or nil when it is nil.
    public static func scrub(_ text: String?) -> String? {
        text.map { scrub($0) }
    }

    /// Remembers `value`, the oldest value forgotten beyond ``capacity``; nil and short values are ignored.
    mutating func remember(_ value: String?) {
        guard let value, value.count >= Redaction.minimumScrubbedLength else { return }
        if let index = values.firstIndex(of: value) { values.remove(at: index) }
        values.append(value)
        if values.count > capacity { values.removeFirst(values.count - capacity) }
    }

    /// `text` with every value replaced by its marker, the longest first (so that a secret inside another is not left
    /// half shown).
    func scrub(_ text: String) -> String {
        guard !values.isEmpty, !text.isEmpty else { return text }
        var result = text
        for secret in values.sorted(by: { $0.count > $1.count }) where result.contains(secret) {
            result = result.replacing(secret, with: Redaction.marker(length: secret.count))
        }
        return result
    }
}
