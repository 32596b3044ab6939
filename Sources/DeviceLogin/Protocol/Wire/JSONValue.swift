#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Any JSON value. Used to keep fields the library does not know (e.g. Microsoft's `message`) and to read
/// providers that send numbers as strings.
public enum JSONValue: Sendable, Hashable, Codable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case array([JSONValue])
    case object([String: JSONValue])
    case null

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .number(let value):
            if value == value.rounded(), abs(value) < 1e15 {
                try container.encode(Int64(value))
            } else {
                try container.encode(value)
            }
        case .bool(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        case .null: try container.encodeNil()
        }
    }

    /// The value as a string: strings as they are, numbers and booleans in their JSON text; otherwise nil.
    public var stringValue: String? {
        switch self {
        case .string(let value): return value
        case .number(let value):
            return value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        case .bool(let value): return value ? "true" : "false"
        default: return nil
        }
    }

    /// The value as a whole number below 10^15 in magnitude: numbers, and strings that hold one (some providers
    /// quote them). The bound is the same for both: a quoted number is no larger a number.
    public var integerValue: Int? {
        switch self {
        case .number(let value):
            guard value.isFinite, value.rounded() == value, abs(value) < 1e15 else { return nil }
            return Int(value)
        case .string(let text):
            let trimmed = text.trimmed()
            if let value = Int(trimmed) { return value.magnitude < 1_000_000_000_000_000 ? value : nil }
            if let value = Double(trimmed), value.isFinite, value.rounded() == value, abs(value) < 1e15 {
                return Int(value)
            }
            return nil
        default: return nil
        }
    }

    /// The members of an array of strings, or the words of a space-separated string.
    public var stringListValue: [String]? {
        switch self {
        case .array(let values): return values.compactMap(\.stringValue)
        case .string(let value): return value.split(separator: " ").map(String.init)
        default: return nil
        }
    }
}

/// A JSON object as decoded from the wire, with lenient typed accessors.
///
/// Message types are built from one of these, whether the body was JSON or form-encoded, through their
/// `WireMapping`, so each provider quirk is handled in one place.
public typealias JSONObject = [String: JSONValue]

extension Dictionary where Key == String, Value == JSONValue {
    /// The string at `key`, read as ``WireKind/string`` reads it (non-empty; a number written as text).
    func string(_ key: String) -> String? {
        WireKind.string.first([key], in: self)
    }

    /// The whole number at `key`, read as ``WireKind/integer`` reads it (bounded; numbers sent as strings).
    func integer(_ key: String) -> Int? {
        WireKind.integer.first([key], in: self)
    }

    /// The fields not named in `known`.
    func excluding(_ known: some Sequence<String>) -> JSONObject {
        var rest = self
        for key in known { rest[key] = nil }
        return rest
    }
}

extension JSONValue {
    /// Decodes a JSON object from `data`, or throws when `data` is not one.
    ///
    /// The strict parser (``JSONParser``) reads it first: every poll's answer comes through here, and `JSONDecoder`
    /// with `Codable` cost five times as much (each string value is tried as a `Bool` and a `Double` first, and each
    /// try makes an error). What the strict parser refuses — a repeated member, a byte-order mark, deeper nesting —
    /// goes to `JSONDecoder` as before, so nothing that was read is refused now; where both read a text, they read
    /// the same values.
    static func decodeObject(from data: Data) throws -> JSONObject {
        if case .object(let object)? = try? JSONParser.parse(Array(data)) { return object }
        return try JSONDecoder().decode(JSONObject.self, from: data)
    }

    /// Encodes `object` as compact JSON with sorted keys (stable output for tests and files).
    static func encode(_ object: JSONObject) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(object)
    }
}

/// A coding key for any string, used to encode and decode open field sets.
struct AnyCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// A wire message that is read from and written as a JSON object, keeping fields it does not know.
///
/// Conforming types implement ``init(jsonObject:)`` (lenient reading, each provider quirk on purpose) and
/// ``jsonObject`` (the wire form); the library's messages get both from their table of fields (`WireMapped`).
/// `Codable` comes for free and round-trips unknown fields.
public protocol JSONObjectMessage: Codable, Sendable {
    /// Reads the message from a decoded JSON object (or form fields turned into one).
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/invalidResponse`` naming the missing field.
    init(jsonObject: JSONObject) throws
    /// The message in its wire form, unknown fields included.
    var jsonObject: JSONObject { get }
}

extension JSONObjectMessage {
    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        try self.init(jsonObject: try container.decode(JSONObject.self))
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(jsonObject)
    }
}
