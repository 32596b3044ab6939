#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Hides secrets in text meant for people: traces, logs, error reports.
///
/// A secret is replaced by `[redacted, N chars]`, so a reader still sees that a value was there and how long it
/// was. Secrets are found three ways: by name (the form fields, JSON members and headers that carry tokens, codes
/// and client secrets, such as `access_token`, `device_code`, `client_secret` and `Authorization`), and by value —
/// every secret value seen once is remembered by the ``Redaction`` value and scrubbed wherever it shows up later,
/// so a server that echoes a device code in an HTML error page does not leak it either.
public struct Redaction: Sendable {
    /// The form fields and JSON members whose values are secrets (OAuth 2.0, OpenID Connect, RFC 8628, RFC 7009,
    /// RFC 7523, RFC 8693, RFC 9449).
    public static let secretFields: Set<String> = [
        "access_token", "refresh_token", "id_token", "device_code", "client_secret", "code", "code_verifier",
        "token", "assertion", "client_assertion", "subject_token", "actor_token", "password", "dpop_jkt",
    ]
    /// The headers whose values are secrets, lowercased.
    public static let secretHeaders: Set<String> = [
        "authorization", "proxy-authorization", "dpop", "cookie", "set-cookie",
    ]
    /// Secret values shorter than this are not scrubbed by value (they would match ordinary text); by name they
    /// always are.
    public static let minimumScrubbedLength = KnownSecrets.minimumScrubbedLength

    /// Secret values seen so far, longest first.
    private var known: [String] = []

    /// Creates a redaction that knows no secret values yet.
    public init() {}

    /// The text that stands for a secret of `length` characters.
    public static func marker(length: Int) -> String {
        KnownSecrets.marker(length: length)
    }

    /// Remembers `value` as a secret, so ``scrub(_:)`` hides it wherever it appears.
    public mutating func remember(_ value: String) {
        guard value.count >= Self.minimumScrubbedLength, !known.contains(value) else { return }
        known.append(value)
        known.sort { $0.count > $1.count }
    }

    /// `text` with every remembered secret replaced by its marker.
    public func scrub(_ text: String) -> String {
        var result = text
        for secret in known where result.contains(secret) {
            result = result.replacing(secret, with: Self.marker(length: secret.count))
        }
        return result
    }

    /// A header as `Name: value`, its value redacted when the header carries a secret (the scheme of an
    /// `Authorization` value stays visible: `Authorization: Bearer [redacted, 43 chars]`).
    public mutating func header(_ header: HTTPHeader) -> String {
        guard Self.secretHeaders.contains(header.name.lowercased()) else {
            return "\(header.name): \(scrub(header.value))"
        }
        remember(header.value)
        let parts = header.value.split(separator: " ", maxSplits: 1)
        if parts.count == 2, parts[0].allSatisfy(\.isLetter) {
            let credential = String(parts[1])
            remember(credential)
            return "\(header.name): \(parts[0]) \(Self.marker(length: credential.count))"
        }
        return "\(header.name): \(Self.marker(length: header.value.count))"
    }

    /// A form body with the values of secret fields redacted, the rest as sent.
    public mutating func form(_ body: String) -> String {
        body.split(separator: "&", omittingEmptySubsequences: false).map { segment in
            let parts = segment.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, Self.secretFields.contains(FormEncoding.unescape(parts[0])) else {
                return scrub(String(segment))
            }
            let value = FormEncoding.unescape(parts[1])
            remember(value)
            remember(String(parts[1]))
            return "\(parts[0])=\(Self.marker(length: value.count))"
        }.joined(separator: "&")
    }

    /// A JSON object with the values of secret members redacted at any depth, re-encoded with sorted keys; nil when
    /// `data` is not a JSON object.
    public mutating func json(_ data: Data) -> String? {
        guard let object = try? JSONValue.decodeObject(from: data) else { return nil }
        let redacted = redact(.object(object), secret: false)
        guard case .object(let clean) = redacted, let encoded = try? JSONValue.encode(clean) else { return nil }
        return scrub(String(decoding: encoded, as: UTF8.self))
    }

    private mutating func redact(_ value: JSONValue, secret: Bool) -> JSONValue {
        switch value {
        case .object(let members):
            var result: JSONObject = [:]
            for (key, member) in members { result[key] = redact(member, secret: Self.secretFields.contains(key)) }
            return .object(result)
        case .array(let elements):
            return .array(elements.map { redact($0, secret: secret) })
        case .string(let text) where secret:
            remember(text)
            return .string(Self.marker(length: text.count))
        default:
            return value
        }
    }
}
