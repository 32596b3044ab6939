/// The members of one JSON object, read strictly by type: the reader of the library's own stored forms (a profile's
/// record, its tokens, its server's endpoints), where a value of the wrong type is damage, not a provider's quirk
/// (those are ``WireKind``'s, for what servers send).
///
/// Every error is a ``DeviceLoginError`` with code ``DeviceLoginError/Code/storage`` that names the field by its
/// path from the top of the file (`profile.endpoints.token_endpoint`), never its value, in the words a store puts
/// after "is corrupt: ". An absent member and a `null` one are the same: absent.
///
/// ```swift
/// let fields = try JSONFields(try JSONParser.parse(bytes))
/// let version = try fields.integer("version")
/// let profile = try Profile(stored: try fields.object("profile"))
/// ```
package struct JSONFields: Sendable {
    /// The object's members.
    package let members: JSONObject
    /// The object's path from the top of the file: empty for the top level.
    package let path: [String]

    /// Reads `value`, which must be an object, found at `path`.
    /// - Throws: ``DeviceLoginError`` (storage) when it is not an object.
    package init(_ value: JSONValue, path: [String] = []) throws {
        guard case .object(let members) = value else {
            throw DeviceLoginError(.storage, "\(Self.name(path)) has the wrong type")
        }
        self.members = members
        self.path = path
    }

    /// Reads the object a decoder stands at: the one way a stored type's `Decodable` conformance reaches its
    /// `init(stored:)`, so that `JSONDecoder` and the store read a record by the same rules.
    /// - Throws: The decoder's errors; ``DeviceLoginError`` (storage) when the value is not an object.
    package init(decoding decoder: any Decoder) throws {
        let value = try decoder.singleValueContainer().decode(JSONValue.self)
        try self.init(value, path: decoder.codingPath.map(\.stringValue))
    }

    /// The member `key`; nil when it is absent or `null`.
    package func value(_ key: String) -> JSONValue? {
        switch members[key] {
        case nil, .null?: nil
        case let value?: value
        }
    }

    /// The member `key`, which must be there.
    /// - Throws: ``DeviceLoginError`` (storage) naming the missing field.
    package func required(_ key: String) throws -> JSONValue {
        guard let value = members[key] else {
            let parent = path.isEmpty ? "" : " in " + Self.name(path)
            throw DeviceLoginError(.storage, "the field \(key) is missing" + parent)
        }
        // A null where a value must be is a value of the wrong type, as JSONDecoder has always said of it.
        guard value != .null else { throw wrongType(key) }
        return value
    }

    // MARK: - Values

    /// The string at `key`.
    package func string(_ key: String) throws -> String {
        guard case .string(let text) = try required(key) else { throw wrongType(key) }
        return text
    }

    /// The string at `key`, nil when absent.
    package func stringIfPresent(_ key: String) throws -> String? {
        try value(key).map { value in
            guard case .string(let text) = value else { throw wrongType(key) }
            return text
        }
    }

    /// The string at `key` made into a value by `make`, which gives nil for a string it does not take ("is
    /// invalid") or throws its own error; nil when absent.
    package func stringIfPresent<Value>(_ key: String, as make: (String) throws -> Value?) throws -> Value? {
        guard let text = try stringIfPresent(key) else { return nil }
        guard let value = try make(text) else { throw invalid(key) }
        return value
    }

    /// ``stringIfPresent(_:as:)`` for a member that must be there.
    package func string<Value>(_ key: String, as make: (String) throws -> Value?) throws -> Value {
        guard let value = try make(try string(key)) else { throw invalid(key) }
        return value
    }

    /// The boolean at `key`.
    package func bool(_ key: String) throws -> Bool {
        guard case .bool(let flag) = try required(key) else { throw wrongType(key) }
        return flag
    }

    /// The boolean at `key`, nil when absent.
    package func boolIfPresent(_ key: String) throws -> Bool? {
        try value(key).map { value in
            guard case .bool(let flag) = value else { throw wrongType(key) }
            return flag
        }
    }

    /// The number at `key`.
    package func number(_ key: String) throws -> Double {
        guard case .number(let number) = try required(key) else { throw wrongType(key) }
        return number
    }

    /// The number at `key`, nil when absent.
    package func numberIfPresent(_ key: String) throws -> Double? {
        try value(key).map { value in
            guard case .number(let number) = value else { throw wrongType(key) }
            return number
        }
    }

    /// The whole number at `key`, which must fit an `Int` exactly.
    package func integer(_ key: String) throws -> Int {
        guard let whole = Int(exactly: try number(key)) else { throw invalid(key) }
        return whole
    }

    /// The whole number at `key`, nil when absent.
    package func integerIfPresent(_ key: String) throws -> Int? {
        guard let number = try numberIfPresent(key) else { return nil }
        guard let whole = Int(exactly: number) else { throw invalid(key) }
        return whole
    }

    /// The array of strings at `key`, each made into a value by `make` (as ``stringIfPresent(_:as:)``); nil when
    /// absent.
    package func stringsIfPresent<Value>(_ key: String, as make: (String) throws -> Value?) throws -> [Value]? {
        guard let value = value(key) else { return nil }
        guard case .array(let elements) = value else { throw wrongType(key) }
        var values: [Value] = []
        values.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            guard case .string(let text) = element else { throw wrongType("\(key).\(index)") }
            guard let made = try make(text) else { throw invalid("\(key).\(index)") }
            values.append(made)
        }
        return values
    }

    /// The array of strings at `key`, nil when absent.
    package func stringsIfPresent(_ key: String) throws -> [String]? {
        try stringsIfPresent(key, as: { $0 })
    }

    /// The object at `key`.
    package func object(_ key: String) throws -> JSONFields {
        try JSONFields(try required(key), path: path + [key])
    }

    /// The object at `key`, nil when absent.
    package func objectIfPresent(_ key: String) throws -> JSONFields? {
        try value(key).map { try JSONFields($0, path: path + [key]) }
    }

    // MARK: - Errors

    /// The dotted path of the member `key`, for a message.
    package func name(of key: String) -> String {
        Self.name(path + [key])
    }

    /// "P has the wrong type", for the member `key`.
    package func wrongType(_ key: String) -> DeviceLoginError {
        DeviceLoginError(.storage, "\(name(of: key)) has the wrong type")
    }

    /// "P is invalid", for the member `key`.
    package func invalid(_ key: String) -> DeviceLoginError {
        DeviceLoginError(.storage, "\(name(of: key)) is invalid")
    }

    private static func name(_ path: [String]) -> String {
        path.isEmpty ? "the top level" : path.joined(separator: ".")
    }
}

/// A stored type whose one reader is `init(stored:)`: its `Decodable` conformance is this protocol's
/// `init(from:)`, which reads the object the decoder stands at (``JSONFields/init(decoding:)``) and hands it over, so
/// that `JSONDecoder` and the store read a record by the same rules. Encoding stays the compiler's, under each
/// type's `CodingKeys`.
package protocol StoredDecodable: Decodable {
    /// Reads the value from its stored form.
    /// - Throws: ``DeviceLoginError`` naming the first field that cannot be read.
    init(stored fields: JSONFields) throws
}

extension StoredDecodable {
    /// Reads the value in its stored form, as `init(stored:)` reads it.
    public init(from decoder: any Decoder) throws {
        try self.init(stored: try JSONFields(decoding: decoder))
    }
}
