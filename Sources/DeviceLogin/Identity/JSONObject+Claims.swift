#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Dictionary where Key == String, Value == JSONValue {
    /// The boolean at `key`: a JSON boolean, or the strings `"true"`/`"false"` (AWS Cognito quotes them).
    func bool(_ key: String) -> Bool? {
        switch self[key] {
        case .bool(let value): return value
        case .string("true"): return true
        case .string("false"): return false
        default: return nil
        }
    }

    /// The time at `key`, given as Unix seconds (a NumericDate, RFC 7519 §2), fractions allowed.
    func date(_ key: String) -> Date? {
        switch self[key] {
        case .number(let value) where value.isFinite: return Date(unixSeconds: value)
        case .string(let text): return Double(text.trimmed()).flatMap { $0.isFinite ? Date(unixSeconds: $0) : nil }
        default: return nil
        }
    }
}
