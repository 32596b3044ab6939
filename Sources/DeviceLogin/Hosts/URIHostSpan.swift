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
        let scalars = uri.unicodeScalars
        guard let colon = scalars.firstIndex(of: ":"), colon > scalars.startIndex else { return nil }
        let scheme = scalars[..<colon]
        guard let first = scheme.first, first.isASCIILetter,
            scheme.allSatisfy({ $0.isASCIILetter || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0) })
        else { return nil }
        let afterColon = scalars[scalars.index(after: colon)...]
        guard afterColon.starts(with: "//".unicodeScalars) else { return nil }
        let authorityStart = scalars.index(colon, offsetBy: 3)
        let authorityEnd =
            scalars[authorityStart...].firstIndex { "/?#".unicodeScalars.contains($0) } ?? scalars.endIndex
        let authority = scalars[authorityStart..<authorityEnd]
        let hostStart = authority.lastIndex(of: "@").map { scalars.index(after: $0) } ?? authorityStart
        let hostAndPort = scalars[hostStart..<authorityEnd]
        let hostEnd: String.Index
        if hostAndPort.first == "[" {
            hostEnd = hostAndPort.firstIndex(of: "]").map { scalars.index(after: $0) } ?? authorityEnd
        } else {
            hostEnd = hostAndPort.firstIndex(of: ":") ?? authorityEnd
        }
        prefix = String(String.UnicodeScalarView(scalars[..<hostStart]))
        host = String(String.UnicodeScalarView(scalars[hostStart..<hostEnd]))
        suffix = String(String.UnicodeScalarView(scalars[hostEnd...]))
    }
}

extension Unicode.Scalar {
    fileprivate var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
}
