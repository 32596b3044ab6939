#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The parts of a JWS in compact serialization (RFC 7515 §7.1), decoded but not verified.
struct CompactJWT {
    /// The decoded JOSE header.
    var header: JSONObject
    /// The decoded payload (the claims set).
    var payload: JSONObject

    /// Splits and decodes `token`.
    /// - Parameters:
    ///   - token: `header.payload.signature`, base64url without padding.
    ///   - maximumBytes: The longest token accepted.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/invalidIDToken``.
    init(_ token: String, maximumBytes: Int) throws {
        func invalid(_ reason: String) -> DeviceLoginError {
            DeviceLoginError(.invalidIDToken, "the ID token is malformed: \(reason)")
        }
        guard token.utf8.count <= maximumBytes else {
            throw invalid("it is longer than \(maximumBytes) bytes")
        }
        let parts = CompactJWS.parts(of: token)
        if parts.count == 5 { throw invalid("it is encrypted (JWE), which is not supported") }
        guard parts.count == 3 else { throw invalid("it does not have three dot-separated parts") }
        guard let header = Self.decodeObject(parts[0]) else { throw invalid("the header is not base64url JSON") }
        guard let payload = Self.decodeObject(parts[1]) else { throw invalid("the payload is not base64url JSON") }
        self.header = header
        self.payload = payload
    }

    private static func decodeObject(_ part: Substring) -> JSONObject? {
        guard let data = base64URLDecode(part) else { return nil }
        return try? JSONValue.decodeObject(from: data)
    }

    /// Decodes base64url (RFC 4648 §5), padded or not.
    ///
    /// Byte by byte: base64 is ASCII, so a text with any other byte is not base64url (nil).
    static func base64URLDecode(_ text: Substring) -> Data? {
        var base64 = text.utf8.map { byte in
            switch byte {
            case UInt8(ascii: "-"): UInt8(ascii: "+")
            case UInt8(ascii: "_"): UInt8(ascii: "/")
            default: byte
            }
        }
        while base64.count % 4 != 0 { base64.append(UInt8(ascii: "=")) }
        return Data(base64Encoded: Data(base64))
    }
}
