/// An absolute URI cut around its host: what comes before (scheme, `//`, user info), the host as written, and what
/// comes after (port, path, query, fragment). Nothing is checked or decoded here beyond finding the host.
///
/// The host is found as RFC 3986 §3.2 and browsers find it: after `scheme://` and after the last `@` of the
/// authority, which ends at the first `/`, `?` or `#`; an IPv6 literal runs to its `]`, another host to the first
/// `:`. So `https://good.example@evil.example/` has the host `evil.example`.
struct URIHostSpan: Sendable, Hashable {
    /// The scheme, `://` and any user info with its `@`.
    let prefix: String
    /// The scheme as written, without its `:`.
    var scheme: String { String(prefix.prefix { $0 != ":" }) }
    /// The host as written, not lowercased.
    let host: String
    /// The port with its `:`, the path, the query and the fragment.
    let suffix: String

    /// Cuts `uri` around its host.
    /// - Parameter uri: An absolute URI, e.g. a `verification_uri`.
    /// - Returns: nil when `uri` has no `scheme://` start (RFC 3986 §3.1: a letter, then letters, digits, `+`, `-`,
    ///   `.`).
    init?(_ uri: String) {
        // On the UTF-8 bytes: every delimiter is ASCII, and an ASCII byte is always a whole scalar, so the cuts fall
        // where the scalars' would (this runs for every authorization a flow receives).
        let bytes = uri.utf8
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > bytes.startIndex else { return nil }
        let scheme = bytes[..<colon]
        guard let first = scheme.first, Self.isASCIILetter(first), scheme.allSatisfy(Self.isSchemeByte) else {
            return nil
        }
        guard bytes[bytes.index(after: colon)...].starts(with: "//".utf8) else { return nil }
        let authorityStart = bytes.index(colon, offsetBy: 3)
        let authorityEnd =
            bytes[authorityStart...].firstIndex {
                $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#")
            } ?? bytes.endIndex
        let authority = bytes[authorityStart..<authorityEnd]
        let hostStart = authority.lastIndex(of: UInt8(ascii: "@")).map { bytes.index(after: $0) } ?? authorityStart
        let hostAndPort = bytes[hostStart..<authorityEnd]
        let hostEnd: String.Index
        if hostAndPort.first == UInt8(ascii: "[") {
            hostEnd = hostAndPort.firstIndex(of: UInt8(ascii: "]")).map { bytes.index(after: $0) } ?? authorityEnd
        } else {
            hostEnd = hostAndPort.firstIndex(of: UInt8(ascii: ":")) ?? authorityEnd
        }
        // Cut as scalars: a String's own subscript would move a cut to a Character's start.
        prefix = String(Substring(uri.unicodeScalars[..<hostStart]))
        host = String(Substring(uri.unicodeScalars[hostStart..<hostEnd]))
        suffix = String(Substring(uri.unicodeScalars[hostEnd...]))
    }

    private static func isASCIILetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    /// RFC 3986 §3.1: `scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`.
    private static func isSchemeByte(_ byte: UInt8) -> Bool {
        isASCIILetter(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "+")
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
    }
}
