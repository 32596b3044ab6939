import DeviceLogin

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How tokens and times are written on stdout.
enum TokenOutput {
    /// The token response as received, plus `expires_at` (RFC 3339, UTC) when `expires_in` was given: one line.
    static func json(_ response: TokenResponse, receivedAt: Date) throws -> String {
        var object = response.jsonObject
        if let expiresIn = response.expiresIn {
            object["expires_at"] = .string(timestamp(receivedAt.addingTimeInterval(TimeInterval(expiresIn))))
        }
        return try encode(object)
    }

    /// A JSON object as one line with sorted keys, safe to land on a terminal: the core's one writer
    /// (`JSONWriter`), which escapes every character of the one rule for unsafe characters. It needs no
    /// `JSONEncoder`, whose generic machinery costs the fast lane a megabyte of memory.
    /// - Throws: Nothing today: the writer cannot fail. Callers write the result where an error could be reported.
    static func encode(_ object: JSONObject) throws -> String {
        JSONWriter.text(.object(object))
    }

    /// Any JSON value as compact text (for arrays and objects in text output).
    static func compact(_ value: JSONValue) -> String {
        JSONWriter.text(value)
    }

    /// Who the ID token says signed in, when `verification` says it is verified (its signature with the issuer's
    /// key, its claims): a label such as `ada@example.test`; otherwise nil with the reason it is not believed.
    static func signedInUser(
        idToken: String?, verification: IDTokenVerification?
    ) -> (label: String?, problem: String?) {
        guard let idToken else { return (nil, nil) }
        guard let verification, verification.isVerified else {
            return (nil, TerminalText.clean(verification?.problem ?? "it was not checked"))
        }
        guard let claims = try? IDTokenClaims(idToken: idToken) else { return (nil, "the ID token could not be read") }
        let label = claims.preferredUsername ?? claims.email ?? claims.name ?? claims.subject
        return (TerminalText.clean(label), nil)
    }

    /// A date as RFC 3339 in UTC, to the second: `2026-11-30T01:02:03Z`; far dates are held to the years 0001
    /// to 9999 (``DateText/rfc3339(_:)``).
    static func timestamp(_ date: Date) -> String {
        DateText.rfc3339(date)
    }

    /// A duration for people: `59 s`, `5 min`, `1 h 30 min`, `2 d 3 h`, and `over 100 years` from 36,500 days.
    static func duration(seconds: Int) -> String {
        let value = max(0, seconds)
        switch value {
        case (36_500 * 86_400)...: return "over 100 years"
        case ..<60: return "\(value) s"
        case ..<3600: return "\(value / 60) min"
        case ..<86_400:
            let minutes = (value % 3600) / 60
            return minutes == 0 ? "\(value / 3600) h" : "\(value / 3600) h \(minutes) min"
        default:
            let hours = (value % 86_400) / 3600
            return hours == 0 ? "\(value / 86_400) d" : "\(value / 86_400) d \(hours) h"
        }
    }
}
