#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One endpoint of ``ServerEndpoints``: a `URL` given by a caller, or the text of one read from a profile's file,
/// checked by a parser of our own and made into a `URL` only when it is used.
///
/// Reading a profile happens on the CLI's fast lane, which answers `token` and the credential helpers from the
/// stored access token and never sends a request: Foundation's URL parser, the first time it runs, costs that
/// process about 0.65 MB of its 10 MB budget. So a stored endpoint is kept as text until a request needs it.
///
/// The check is RFC 3986's absolute URI (§4.3): a scheme, only the characters §2 allows, `%` only before two
/// hexadecimal digits, a port of digits. Every `URL` Foundation makes is
/// written that way (it percent-encodes what it takes in), so every stored endpoint this library wrote passes; text
/// that fails is a damaged file. Text that passes but that `URL(string:)` still refuses (it should not happen)
/// becomes ``unusable``, which every request refuses as an insecure endpoint: never a crash.
struct EndpointURL: Sendable {
    private enum Form: Sendable {
        case url(URL)
        case text(String)
    }

    private let form: Form

    /// The longest stored endpoint read, in UTF-8 bytes: 8192.
    static let maximumLength = 8192

    /// What a checked text that Foundation refuses becomes: a URL no request goes to.
    static let unusable = URL(string: "invalid:unusable-endpoint")!

    init(_ url: URL) {
        form = .url(url)
    }

    /// Checks `text` as a stored endpoint; nil when it is not an absolute URI.
    init?(stored text: String) {
        guard Self.isAbsoluteURI(text) else { return nil }
        form = .text(text)
    }

    /// The endpoint as a `URL`, made now when it was read as text.
    var url: URL {
        switch form {
        case .url(let url): url
        case .text(let text): URL(string: text) ?? Self.unusable
        }
    }

    /// The endpoint as written in a profile's file.
    var text: String {
        switch form {
        case .url(let url): url.absoluteString
        case .text(let text): text
        }
    }

    /// Whether `text` is an RFC 3986 absolute URI (§4.3: `scheme ":" hier-part [ "?" query ] [ "#" fragment ]`), in
    /// at most ``maximumLength`` bytes. Which schemes a request may use is ``EndpointPolicy``'s to say, as for any
    /// endpoint.
    static func isAbsoluteURI(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count <= maximumLength, let colon = bytes.firstIndex(of: UInt8(ascii: ":")),
            let first = bytes.first, isLetter(first),
            bytes[..<colon].allSatisfy({
                isLetter($0) || isDigit($0) || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-")
                    || $0 == UInt8(ascii: ".")
            })
        else { return false }
        var index = colon + 1
        if bytes[index...].starts(with: Array("//".utf8)) {
            let rest = bytes[(index + 2)...]
            let end =
                rest.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
                ?? rest.endIndex
            guard isAuthority(rest[..<end]) else { return false }
            index = end
        }
        // Path, query and fragment: pchar, "/", "?", and one "#" before the fragment.
        var seenFragment = false
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                guard isPercentEncoded(bytes, at: index) else { return false }
                index += 3
                continue
            }
            if byte == UInt8(ascii: "#") {
                guard !seenFragment else { return false }
                seenFragment = true
            } else if !(isPathCharacter(byte) || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?")) {
                return false
            }
            index += 1
        }
        return true
    }

    /// `[ userinfo "@" ] host [ ":" port ]` (RFC 3986 §3.2); the host may be empty (`file:///path`).
    private static func isAuthority(_ authority: ArraySlice<UInt8>) -> Bool {
        var hostAndPort = authority
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) {
            let userinfo = authority[..<at]
            guard isRun(userinfo, allowing: { isUnreserved($0) || isSubDelimiter($0) || $0 == UInt8(ascii: ":") })
            else { return false }
            hostAndPort = authority[(at + 1)...]
        }
        var host = hostAndPort
        if hostAndPort.first == UInt8(ascii: "[") {
            // An IP literal: hexadecimal digits, ":" and "." (IPv6 with an IPv4 tail), then "]".
            guard let close = hostAndPort.firstIndex(of: UInt8(ascii: "]")) else { return false }
            let literal = hostAndPort[(hostAndPort.startIndex + 1)..<close]
            guard !literal.isEmpty,
                literal.allSatisfy({ isHexDigit($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") })
            else { return false }
            host = hostAndPort[...close]
            let after = hostAndPort[(close + 1)...]
            return after.isEmpty || isPort(after)
        }
        if let colon = hostAndPort.firstIndex(of: UInt8(ascii: ":")) {
            guard isPort(hostAndPort[colon...]) else { return false }
            host = hostAndPort[..<colon]
        }
        return isRun(host, allowing: { isUnreserved($0) || isSubDelimiter($0) })
    }

    /// `":" *DIGIT`, at most five digits.
    private static func isPort(_ text: ArraySlice<UInt8>) -> Bool {
        guard text.first == UInt8(ascii: ":") else { return false }
        let digits = text.dropFirst()
        return digits.count <= 5 && digits.allSatisfy(isDigit)
    }

    /// Whether every byte of `run` passes `allowed`, or is a well-formed percent-encoding.
    private static func isRun(_ run: ArraySlice<UInt8>, allowing allowed: (UInt8) -> Bool) -> Bool {
        var index = run.startIndex
        while index < run.endIndex {
            if run[index] == UInt8(ascii: "%") {
                guard isPercentEncoded(Array(run), at: index - run.startIndex) else { return false }
                index += 3
            } else {
                guard allowed(run[index]) else { return false }
                index += 1
            }
        }
        return true
    }

    private static func isPercentEncoded(_ bytes: [UInt8], at index: Int) -> Bool {
        index + 2 < bytes.count && isHexDigit(bytes[index + 1]) && isHexDigit(bytes[index + 2])
    }

    /// `pchar` without pct-encoded (RFC 3986 §3.3): unreserved, sub-delims, ":" and "@".
    private static func isPathCharacter(_ byte: UInt8) -> Bool {
        isUnreserved(byte) || isSubDelimiter(byte) || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "@")
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        isLetter(byte) || isDigit(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~")
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private static func isSubDelimiter(_ byte: UInt8) -> Bool {
        Array("!$&'()*+,;=".utf8).contains(byte)
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
            UInt8(ascii: "A")...UInt8(ascii: "F"):
            true
        default: false
        }
    }
}

extension EndpointURL: Hashable {
    /// Two endpoints are the same when they are written the same.
    static func == (left: EndpointURL, right: EndpointURL) -> Bool {
        left.text == right.text
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(text)
    }
}
