/// The `Bearer` challenge of a `WWW-Authenticate` header (RFC 6750 §3), e.g.
/// `Bearer realm="api", error="invalid_token", error_description="The access token expired"` — or the challenge of
/// another scheme with the same parameters, such as `DPoP` (RFC 9449 §7.1).
struct BearerChallenge: Sendable, Hashable {
    /// The longest header read: 8 KiB.
    static let maximumHeaderBytes = 8192

    /// The challenge's parameters, names lower-cased.
    var parameters: [String: String]

    /// `error` (RFC 6750 §3.1: `invalid_request`, `invalid_token`, `insufficient_scope`), if given.
    var error: String? { parameters["error"] }
    /// `error_description`, if given.
    var errorDescription: String? { parameters["error_description"] }

    /// Finds the challenge of `scheme` (`bearer` by default; any case) among the challenges of a header value; nil
    /// when there is none.
    init?(header: String, scheme: String = "bearer") {
        let scheme = scheme.lowercased()
        let characters = Array(header.utf8.prefix(Self.maximumHeaderBytes))
        var index = 0
        var inBearer = false
        var found = false
        var parameters: [String: String] = [:]

        func skip(_ isSkipped: (UInt8) -> Bool) {
            while index < characters.count, isSkipped(characters[index]) { index += 1 }
        }
        func isSpace(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        func isSeparator(_ byte: UInt8) -> Bool { isSpace(byte) || byte == UInt8(ascii: ",") }
        func readToken() -> String {
            let start = index
            skip { !isSeparator($0) && $0 != UInt8(ascii: "=") }
            return String(decoding: characters[start..<index], as: UTF8.self)
        }
        func readQuoted() -> String {
            var bytes: [UInt8] = []
            index += 1
            while index < characters.count, characters[index] != UInt8(ascii: "\"") {
                if characters[index] == UInt8(ascii: "\\"), index + 1 < characters.count { index += 1 }
                bytes.append(characters[index])
                index += 1
            }
            index += 1
            return String(decoding: bytes, as: UTF8.self)
        }

        while index < characters.count {
            skip(isSeparator)
            let token = readToken()
            if token.isEmpty {
                index += 1
                continue
            }
            skip(isSpace)
            if index < characters.count, characters[index] == UInt8(ascii: "=") {
                index += 1
                skip(isSpace)
                let value =
                    index < characters.count && characters[index] == UInt8(ascii: "\"")
                    ? readQuoted() : readToken()
                if inBearer { parameters[token.lowercased()] = value }
            } else {
                inBearer = token.lowercased() == scheme
                found = found || inBearer
            }
        }
        guard found else { return nil }
        self.parameters = parameters
    }
}
