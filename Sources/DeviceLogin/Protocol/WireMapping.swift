/// How a wire message's stored properties map to and from its JSON object: one table per message type.
///
/// Each message declares its fields once, as rows of a table, and the mapping does everything else: it reads every
/// field leniently (through its ``WireKind``), checks the required ones in the order of the table, keeps the fields
/// it does not know in the message's unknown-field property, and writes the wire form back. `Codable` comes from
/// ``JSONObjectMessage`` on top of that, and `Equatable` and `Hashable` are the compiler's, over the stored
/// properties. Adding a field is one stored property and one row; nothing else changes.
///
/// ```swift
/// static let wire = WireMapping<Self>(
///     start: Self(accessToken: ""), unknown: \.additionalFields, setUnknown: { $0.additionalFields = $1 },
///     missing: { DeviceLoginError(.invalidResponse, "the token response has no \($0)") },
///     fields: [
///         .required("access_token", \.accessToken, .string) { $0.accessToken = $1 },
///         .optional("expires_in", \.expiresIn, .integer) { $0.expiresIn = $1 },
///     ]
/// )
/// ```
///
/// A type that declares its table as `static let wire` and conforms to ``WireMapped`` gets ``JSONObjectMessage``'s
/// `init(jsonObject:)` and `jsonObject` from it.
///
/// Why a table over stored properties, rather than a message that keeps its decoded JSON object as the store and
/// reads typed fields out of it on every access: the stored properties keep the compiler's equality and hashing
/// exactly as before, keep a value set in code exactly as set (a JSON store would pass every `Int` through a `Double`
/// and the bounds of ``JSONValue/integerValue``), need no placeholder to return for a required field, and stay plain
/// documented properties.
///
/// A row names its property twice: a getter written as a key path literal (`\.accessToken`, which the compiler turns
/// into a plain function where a function is expected, SE-0249) and a setter closure (`{ $0.accessToken = $1 }`), so
/// the compiler checks that the property exists and has the row's type. Not a `WritableKeyPath`: the runtime builds
/// each of those on first use and every access through one is a call into it, which cost 1.5 million of the 30
/// million instructions of a whole sign-in (issue 19). That both halves of a row name the same property, and that no
/// two rows share one, is checked by `WireMappingRowTests`, which sends every field of every table through a decode
/// and an encode.
///
/// Provider quirks live in two places only, each with a comment naming the provider: value-level ones in the
/// ``WireKind`` readers (numbers sent as strings, booleans as strings), field-level ones in a message's row (an
/// alias such as Google's `verification_url`, a default such as a missing `token_type` read as `Bearer`).
struct WireMapping<Message: Sendable>: Sendable {
    /// One field: its wire name (and the other names read for it), the property it fills, and its kind.
    struct Field: Sendable {
        /// The wire name, then the other names read for the field when it is absent (provider quirks).
        let names: [String]
        /// Reads the field into the message; false when it is required and absent or unreadable.
        fileprivate let read: @Sendable (JSONObject, inout Message) -> Bool
        /// Writes the field under its wire name, unless it is an absent optional.
        fileprivate let write: @Sendable (Message, inout JSONObject) -> Void

        /// A field the message cannot do without: decoding fails when it is absent or unreadable.
        static func required<Value: Sendable>(
            _ name: String, _ get: @escaping @Sendable (Message) -> Value, _ kind: WireKind<Value>,
            aliases: [String] = [], set: @escaping @Sendable (inout Message, Value) -> Void
        ) -> Field {
            Field([name] + aliases, get, set, kind, stored: { $0 }, sent: { $0 })
        }

        /// A field that may be absent (nil); an unreadable value reads as absent.
        static func optional<Value: Sendable>(
            _ name: String, _ get: @escaping @Sendable (Message) -> Value?, _ kind: WireKind<Value>,
            aliases: [String] = [], set: @escaping @Sendable (inout Message, Value?) -> Void
        ) -> Field {
            Field([name] + aliases, get, set, kind, stored: { .some($0) }, sent: { $0 })
        }

        /// A field read as `absent` when it is absent or unreadable, and always written.
        static func defaulted<Value: Sendable>(
            _ name: String, _ get: @escaping @Sendable (Message) -> Value, _ kind: WireKind<Value>,
            absent: Value, set: @escaping @Sendable (inout Message, Value) -> Void
        ) -> Field {
            Field([name], get, set, kind, stored: { $0 ?? absent }, sent: { $0 })
        }

        /// A field whose property holds `Stored`, read by `get` and written by `set`.
        /// - Parameters:
        ///   - stored: What the property gets for the value read (nil when nothing was readable); nil fails decoding.
        ///   - sent: What is written for the property's value; nil writes nothing.
        private init<Stored, Value: Sendable>(
            _ names: [String], _ get: @escaping @Sendable (Message) -> Stored,
            _ set: @escaping @Sendable (inout Message, Stored) -> Void, _ kind: WireKind<Value>,
            stored: @escaping @Sendable (Value?) -> Stored?, sent: @escaping @Sendable (Stored) -> Value?
        ) {
            self.names = names
            read = { object, message in
                guard let value = stored(kind.first(names, in: object)) else { return false }
                set(&message, value)
                return true
            }
            write = { message, object in
                if let value = sent(get(message)) { object[names[0]] = kind.write(value) }
            }
        }
    }

    /// The value decoding starts from; every required field is overwritten, or decoding fails.
    let start: Message
    /// Reads the property that keeps the fields the table does not name.
    let unknown: @Sendable (Message) -> JSONObject
    /// Writes the property that keeps the fields the table does not name.
    let setUnknown: @Sendable (inout Message, JSONObject) -> Void
    /// The error for a required field that is absent or unreadable, given its wire name.
    let missing: @Sendable (String) -> DeviceLoginError
    /// Refuses a message whose fields were all read but that the client cannot use (a token that cannot go in a
    /// header, a user code with nothing to show); runs after every row.
    let check: @Sendable (Message) throws -> Void
    /// The rows, in the order required fields are checked.
    let fields: [Field]
    /// Every name a row reads: the wire names and their aliases.
    let knownNames: Set<String>

    /// Creates the mapping of one message type.
    /// - Parameters:
    ///   - start: A value of the message whose required fields decoding overwrites.
    ///   - unknown: Reads the property that keeps unknown fields (`additionalFields`, `additionalClaims`).
    ///   - setUnknown: Writes that property.
    ///   - missing: The error thrown for a required field, given its wire name.
    ///   - check: Refuses a message read in full that the client cannot use; by default none.
    ///   - fields: The rows.
    init(
        start: Message, unknown: @escaping @Sendable (Message) -> JSONObject,
        setUnknown: @escaping @Sendable (inout Message, JSONObject) -> Void,
        missing: @escaping @Sendable (String) -> DeviceLoginError,
        check: @escaping @Sendable (Message) throws -> Void = { _ in },
        fields: [Field]
    ) {
        self.start = start
        self.check = check
        self.unknown = unknown
        self.setUnknown = setUnknown
        self.missing = missing
        self.fields = fields
        knownNames = Set(fields.flatMap(\.names))
    }

    /// Reads a message from a JSON object (or form fields turned into one), keeping the fields no row names.
    /// - Throws: The ``missing`` error of the first required field, in table order, that is absent or unreadable.
    func decode(_ object: JSONObject) throws -> Message {
        var message = start
        for field in fields where !field.read(object, &message) {
            throw missing(field.names[0])
        }
        try check(message)
        setUnknown(&message, object.filter { !knownNames.contains($0.key) })
        return message
    }

    /// The message's wire form: the unknown fields, then every field under its wire name.
    ///
    /// An unknown field under a name a row reads is left out: the typed property is the only source of a known field.
    func encode(_ message: Message) -> JSONObject {
        var object = unknown(message).filter { !knownNames.contains($0.key) }
        for field in fields {
            field.write(message, &object)
        }
        return object
    }
}

/// A wire message whose ``JSONObjectMessage`` conformance comes from its ``WireMapping``.
protocol WireMapped: JSONObjectMessage {
    /// The message's table of fields.
    static var wire: WireMapping<Self> { get }
}

extension WireMapped {
    /// Reads the message leniently: every field through its kind, provider quirks included, and the fields no row
    /// names kept as unknown fields.
    /// - Throws: ``DeviceLoginError`` naming the first required field, in table order, that is missing or
    ///   unreadable: code ``DeviceLoginError/Code/invalidResponse`` for responses,
    ///   ``DeviceLoginError/Code/discovery`` for server metadata, ``DeviceLoginError/Code/invalidIDToken`` for ID
    ///   token claims.
    public init(jsonObject object: JSONObject) throws {
        self = try Self.wire.decode(object)
    }

    /// The message in its wire form: every field under its wire name, unknown fields included.
    public var jsonObject: JSONObject { Self.wire.encode(self) }
}
