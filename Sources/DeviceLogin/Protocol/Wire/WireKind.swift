#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How one kind of wire value is read, leniently, and written back in its standard form.
///
/// The value-level provider quirks are accepted here and nowhere else, each with the provider that needs it; the
/// field-level ones (aliases, defaults) are in the rows of each message's ``WireMapping``. Numbers are bounded here,
/// once, at the edge (``JSONValue/integerValue``).
struct WireKind<Value: Sendable>: Sendable {
    /// The value, or nil when the JSON value cannot be read as one (which a row treats as absent).
    let read: @Sendable (JSONValue) -> Value?
    /// The value's standard wire form.
    let write: @Sendable (Value) -> JSONValue

    /// The value under the first of `names` that holds a readable one.
    func first(_ names: [String], in object: JSONObject) -> Value? {
        for name in names {
            if let value = object[name].flatMap(read) { return value }
        }
        return nil
    }

    /// The same kind, reading a value that fails `isValid` as unreadable.
    func requiring(_ isValid: @escaping @Sendable (Value) -> Bool) -> WireKind {
        let read = self.read
        return WireKind(read: { read($0).flatMap { isValid($0) ? $0 : nil } }, write: write)
    }
}

extension WireKind where Value == String {
    /// A non-empty string, written as a string.
    ///
    /// An empty string reads as absent. A number or boolean where a string belongs is read as its JSON text rather
    /// than refused (``JSONValue/stringValue``).
    static var string: WireKind {
        WireKind(read: { value in value.stringValue.flatMap { $0.isEmpty ? nil : $0 } }, write: JSONValue.string)
    }
}

extension WireKind where Value == Int {
    /// A whole number below 10^15 in magnitude, written as a JSON number (``JSONValue/integerValue``).
    ///
    /// Quirk: a string holding the number is accepted. Microsoft's v1 endpoint (and some Keycloak proxies) send
    /// `expires_in` and `interval` as strings, and GitHub's form-encoded answers carry every value as text.
    static var integer: WireKind {
        WireKind(read: \.integerValue, write: { .number(Double($0)) })
    }
}

extension WireKind where Value == Int {
    /// The same kind, bringing a value outside `range` to its nearest end: for lifetimes, where a server's absurd
    /// number (a token for 10^14 seconds, an expiry in the past) must neither overflow date arithmetic nor lose a
    /// sign-in the person has just approved.
    func clamped(to range: ClosedRange<Int>) -> WireKind {
        let read = self.read
        return WireKind(read: { read($0).map { min(max($0, range.lowerBound), range.upperBound) } }, write: write)
    }
}

extension WireKind where Value == Int {
    /// The longest wait in seconds read from a server's `interval`: one hour
    /// (``DeviceAuthorizationResponse/maximumInterval``, which says why).
    static let maximumInterval = 3600

    /// A wait in seconds that the server asks for (a polling `interval`), written as a JSON number: never read as
    /// shorter than sent. A fraction rounds up; anything above `cap`, infinity and numbers too large for any integer
    /// included, reads as `cap`, and anything below `-cap` as `-cap` (the caller gives no meaning to a wait of 0 or
    /// less); NaN and what is no number are unreadable.
    ///
    /// Quirk: a string holding the number is accepted, as ``integer`` accepts it (Microsoft's v1 endpoint, some
    /// Keycloak proxies, GitHub's form-encoded answers).
    static func waitSeconds(atMost cap: Int) -> WireKind {
        WireKind(
            read: { value in
                let seconds: Double
                switch value {
                case .number(let number): seconds = number
                case .string(let text):
                    guard let number = Double(text.trimmed()) else { return nil }
                    seconds = number
                default: return nil
                }
                guard !seconds.isNaN else { return nil }
                // RFC 8628 §3.5: never poll sooner than asked, so a wait beyond the cap is the cap, not the default.
                return Int(min(max(seconds, -Double(cap)), Double(cap)).rounded(.up))
            },
            write: { .number(Double($0)) }
        )
    }
}

extension String {
    /// Whether the text has at least one character a person can see: not only spaces, line separators and
    /// characters that draw nothing (`Unicode.Scalar.drawsNothing`: controls, format characters, Hangul fillers,
    /// the blank Braille pattern, variation selectors).
    var hasVisibleCharacter: Bool {
        unicodeScalars.contains { scalar in
            switch scalar.properties.generalCategory {
            case .spaceSeparator, .lineSeparator, .paragraphSeparator: return false
            default: return !scalar.drawsNothing
            }
        }
    }

    /// Whether the text can be sent as a credential in an HTTP header: visible ASCII only (RFC 6750's `b64token`
    /// is a subset), so no CR, LF, NUL, space or byte a header would split or mangle.
    var isHeaderSafeCredential: Bool {
        !isEmpty && utf8.allSatisfy { (0x21...0x7E).contains($0) }
    }
}

extension WireKind where Value == Bool {
    /// A JSON boolean, written as one.
    ///
    /// Quirk: the strings `"true"` and `"false"` are accepted (AWS Cognito quotes `email_verified` and
    /// `phone_number_verified`).
    static var boolean: WireKind {
        WireKind(
            read: { value in
                switch value {
                case .bool(let flag): return flag
                case .string("true"): return true
                case .string("false"): return false
                default: return nil
                }
            },
            write: JSONValue.bool
        )
    }
}

extension WireKind where Value == Date {
    /// A time as Unix seconds (a NumericDate, RFC 7519 §2), fractions allowed, written as a JSON number.
    ///
    /// A finite number is required; a string holding one is accepted too.
    static var numericDate: WireKind {
        WireKind(
            read: { value in
                switch value {
                case .number(let seconds) where seconds.isFinite: return Date(unixSeconds: seconds)
                case .string(let text):
                    return Double(text.trimmed()).flatMap { $0.isFinite ? Date(unixSeconds: $0) : nil }
                default: return nil
                }
            },
            write: { .number($0.timeIntervalSince1970) }
        )
    }
}

extension WireKind where Value == [String] {
    /// A list of strings, written as a JSON array (``JSONValue/stringListValue``).
    ///
    /// Quirk: a single string is read as its space-separated words, the way OAuth writes a `scope`; members of an
    /// array that are numbers or booleans are read as their JSON text, and other members are dropped.
    static var stringList: WireKind {
        WireKind(read: \.stringListValue, write: { .array($0.map(JSONValue.string)) })
    }

    /// A JWT audience (RFC 7519 §4.1.3: "a single case-sensitive string" or an array of them), written as a single
    /// string when there is one audience.
    ///
    /// A string is one audience, whole: it is not split at spaces, or `"evil my-client"` would pass an audience
    /// check for `my-client`. Only strings count in an array.
    static var audience: WireKind {
        WireKind(
            read: { value in
                switch value {
                case .string(let single): return [single]
                case .array(let values):
                    return values.compactMap { if case .string(let text) = $0 { text } else { nil } }
                default: return nil
                }
            },
            write: { audiences in
                if audiences.count == 1, let only = audiences.first { return .string(only) }
                return .array(audiences.map(JSONValue.string))
            }
        )
    }
}
