#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A JWS in compact serialization (RFC 7515 §7.1), split and decoded strictly, not yet verified: what an ID token
/// (OpenID Connect Core §2) and a DPoP proof (RFC 9449 §4.2) are.
///
/// Each part is base64url without padding (RFC 7515 §2); the header is a JSON object whose `alg` is a string;
/// `crit` is refused (RFC 7515 §4.1.11: a recipient that does not understand a listed extension must reject the
/// JWS, and this one understands none).
package struct CompactJWS: Sendable {
    /// The decoded JOSE header.
    package let header: JSONObject
    /// The decoded payload's bytes.
    package let payload: [UInt8]
    /// What the signature covers: the ASCII of `header.payload`, as sent.
    package let signingInput: [UInt8]
    /// The decoded signature.
    package let signature: [UInt8]

    /// Splits and decodes `text`.
    /// - Parameters:
    ///   - text: `header.payload.signature`.
    ///   - maximumBytes: The longest text accepted.
    /// - Throws: ``Failure`` saying what is wrong: too long, a JWE, a part that is not strict base64url, a header
    ///   that is not JSON or has no `alg`, a `crit` header.
    package init(_ text: String, maximumBytes: Int) throws(Failure) {
        guard text.utf8.count <= maximumBytes else { throw Failure("it is longer than \(maximumBytes) bytes") }
        let parts = Self.parts(of: text)
        if parts.count == 5 { throw Failure("it is encrypted (JWE), which is not supported") }
        guard parts.count == 3 else { throw Failure("it does not have three dot-separated parts") }
        guard let headerBytes = Base64URL.decode(parts[0], maximumBytes: maximumBytes),
            let header = try? JSONValue.decodeObject(from: Data(headerBytes))
        else { throw Failure("the header is not base64url JSON") }
        guard let payload = Base64URL.decode(parts[1], maximumBytes: maximumBytes) else {
            throw Failure("the payload is not base64url")
        }
        guard let signature = Base64URL.decode(parts[2], maximumBytes: maximumBytes) else {
            throw Failure("the signature is not base64url")
        }
        guard case .string? = header["alg"] else { throw Failure("the header has no alg") }
        if header["crit"] != nil { throw Failure("the header lists critical extensions (crit), none of them known") }
        self.header = header
        self.payload = payload
        self.signature = signature
        self.signingInput = Array(text.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
    }

    /// `text` split at every dot, empty parts kept.
    ///
    /// Split by UTF-8 byte, not by `Character`: a dot is one byte that is never part of another character's bytes, and
    /// splitting an ID token of 800 characters by `Character` cost 260,000 instructions (issue 19). A dot followed
    /// by a combining mark, one `Character`, is split too; neither half is base64url, so such a text is refused
    /// either way.
    package static func parts(of text: String) -> [Substring] {
        var text = text
        let dots = text.withUTF8 { bytes in bytes.indices.filter { bytes[$0] == UInt8(ascii: ".") } }
        let utf8 = text.utf8
        var parts: [Substring] = []
        parts.reserveCapacity(dots.count + 1)
        var start = utf8.startIndex
        for offset in dots {
            let dot = utf8.index(utf8.startIndex, offsetBy: offset)
            parts.append(Substring(utf8[start..<dot]))
            start = utf8.index(after: dot)
        }
        parts.append(Substring(utf8[start...]))
        return parts
    }

    /// The header's `alg`, as sent.
    package var algorithmName: String { header["alg"]?.stringValue ?? "" }

    /// The header's `kid`, when it is a string.
    package var keyID: String? {
        guard case .string(let keyID)? = header["kid"] else { return nil }
        return keyID
    }

    /// Whether the signature is `algorithm`'s over the signing input under `key`.
    /// - Throws: ``CryptoError`` as ``SignatureAlgorithm/verify(_:over:with:)``.
    package func verifies(_ algorithm: SignatureAlgorithm, with key: JSONWebKey) throws(CryptoError) -> Bool {
        try algorithm.verify(signature, over: signingInput, with: key)
    }

    /// Why a text is not a compact JWS.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        /// What is wrong, in words: "the payload is not base64url".
        package let reason: String

        init(_ reason: String) { self.reason = reason }

        package var description: String { reason }
    }
}
