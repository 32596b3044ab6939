extension JSONWebKey {
    /// Reads a public key from its JSON members (RFC 7517 §4, RFC 7518 §6, RFC 8037 §2).
    ///
    /// Every member this library uses must have its JSON type: a `kid` that is a number is refused, not turned
    /// into text. Members it does not use (`x5c`, private members such as `d`) are ignored.
    /// - Parameter object: The key's JSON object.
    /// - Throws: ``CryptoError`` with code ``CryptoError/Code/unsupported`` for a `kty` or `crv` this library does
    ///   not verify with (`oct`, `X25519`...), ``CryptoError/Code/invalidKey`` for anything malformed.
    public init(jsonObject object: JSONObject) throws(CryptoError) {
        let keyType = try Self.member("kty", of: object)
        let material: Material
        switch keyType {
        case "RSA":
            // RFC 7518 §6.3.1.1 asks producers to drop the zero byte some libraries put before the modulus; the
            // number is the same either way, so it is dropped here too.
            let modulus = try Self.component("n", of: object, maximumBytes: CryptoKey.maximumRSABits / 8 + 1)
            let exponent = try Self.component("e", of: object, maximumBytes: 16)
            material = .rsa(modulus: Array(modulus.drop { $0 == 0 }), exponent: Array(exponent.drop { $0 == 0 }))
        case "EC":
            let curve = try Self.member("crv", of: object)
            guard let known = Curve(rawValue: curve), known != .ed25519 else {
                throw CryptoError(.unsupported, "EC keys on curve \(Self.quoted(curve)) are not supported")
            }
            material = .ellipticCurve(
                known, x: try Self.component("x", of: object, maximumBytes: 64),
                y: try Self.component("y", of: object, maximumBytes: 64)
            )
        case "OKP":
            let curve = try Self.member("crv", of: object)
            guard curve == Curve.ed25519.rawValue else {
                throw CryptoError(.unsupported, "OKP keys on curve \(Self.quoted(curve)) are not supported")
            }
            material = .octetKeyPair(.ed25519, x: try Self.component("x", of: object, maximumBytes: 64))
        default:
            throw CryptoError(.unsupported, "keys of type \(Self.quoted(keyType)) are not supported")
        }
        var operations: [String]?
        if let value = object["key_ops"] {
            guard case .array(let items) = value, items.count <= 16 else {
                throw CryptoError(.invalidKey, "the key's key_ops is not a short array of strings")
            }
            operations = try items.map { item throws(CryptoError) -> String in
                guard case .string(let text) = item else {
                    throw CryptoError(.invalidKey, "the key's key_ops is not a short array of strings")
                }
                return text
            }
        }
        try self.init(
            material: material, keyID: try Self.optionalMember("kid", of: object),
            algorithm: try Self.optionalMember("alg", of: object), use: try Self.optionalMember("use", of: object),
            operations: operations
        )
    }

    /// The key's public members as JSON: `kty`, the key's components, and `kid`, `alg`, `use`, `key_ops` when set.
    public var jsonObject: JSONObject {
        var object = Self.requiredMembers(of: material).mapValues(JSONValue.string)
        if let keyID { object["kid"] = .string(keyID) }
        if let algorithm { object["alg"] = .string(algorithm) }
        if let use { object["use"] = .string(use) }
        if let operations { object["key_ops"] = .array(operations.map(JSONValue.string)) }
        return object
    }

    /// The key's JWK thumbprint (RFC 7638): base64url of the SHA-256 of its required members, in lexicographic order
    /// without whitespace (RFC 7638 §3.2; RFC 8037 §2 for OKP). What DPoP's `cnf.jkt` holds (RFC 9449 §6.1).
    /// - Throws: ``CryptoError`` with code ``CryptoError/Code/libraryUnavailable`` without libcrypto.
    public func thumbprint() throws(CryptoError) -> String {
        Base64URL.encode(try CryptoKey.sha256(Array(thumbprintInput.utf8)))
    }

    /// The JSON text RFC 7638 §3 hashes: the required members, sorted, no whitespace. Base64url and the fixed names
    /// need no JSON escaping.
    var thumbprintInput: String {
        let members = Self.requiredMembers(of: material)
        return "{" + members.keys.sorted().map { "\"\($0)\":\"\(members[$0] ?? "")\"" }.joined(separator: ",") + "}"
    }

    /// The members RFC 7638 §3.2 counts as required: the key type and its public components, base64url-encoded.
    private static func requiredMembers(of material: Material) -> [String: String] {
        switch material {
        case .rsa(let modulus, let exponent):
            return ["kty": "RSA", "n": Base64URL.encode(modulus), "e": Base64URL.encode(exponent)]
        case .ellipticCurve(let curve, let x, let y):
            return ["kty": "EC", "crv": curve.rawValue, "x": Base64URL.encode(x), "y": Base64URL.encode(y)]
        case .octetKeyPair(let curve, let x):
            return ["kty": "OKP", "crv": curve.rawValue, "x": Base64URL.encode(x)]
        }
    }

    /// A required string member.
    static func member(_ name: String, of object: JSONObject) throws(CryptoError) -> String {
        guard let value = try optionalMember(name, of: object) else {
            throw CryptoError(.invalidKey, "the key has no \(name)")
        }
        return value
    }

    /// An optional string member: nil when absent, refused when it is not a string of at most 8 KiB.
    static func optionalMember(_ name: String, of object: JSONObject) throws(CryptoError) -> String? {
        guard let value = object[name] else { return nil }
        guard case .string(let text) = value, text.utf8.count <= 8192 else {
            throw CryptoError(.invalidKey, "the key's \(name) is not a string")
        }
        return text
    }

    /// A base64url member, decoded strictly.
    static func component(_ name: String, of object: JSONObject, maximumBytes: Int) throws(CryptoError) -> [UInt8] {
        let text = try member(name, of: object)
        guard let bytes = Base64URL.decode(text, maximumBytes: maximumBytes) else {
            throw CryptoError(
                .invalidKey, "the key's \(name) is not base64url without padding, or longer than \(maximumBytes) bytes"
            )
        }
        return bytes
    }

    /// A member's value in a message: quoted, at most 32 characters.
    private static func quoted(_ value: String) -> String {
        "\"" + (value.count > 32 ? String(value.prefix(32)) + "…" : value) + "\""
    }
}
