/// A URL prefix a profile serves: which git remotes, registries or APIs its tokens are for (`login --for URL`).
///
/// A binding is a scheme (`https` or `http`), a host, a port and a path. It matches a URL with the same scheme,
/// host and port whose path starts with the binding's path at a segment boundary: `https://git.example.com/team`
/// matches `https://git.example.com/team/app.git`, not `https://git.example.com/teamwork`. Of several bindings that
/// match, the one with the longest path wins (``matchLength(_:)``), as with git's `credential.<url>.*` settings.
///
/// A binding and a URL asked for are both parsed here, so both are normalised the same way before they are compared
/// (RFC 3986 §6.2.2, §6.2.3): the scheme and host lowercased; the port the scheme's default (443, 80) when none is
/// given; in the path, percent-encoded unreserved characters decoded (`%74eam` is `team`), other percent-encodings
/// with upper-case hex digits (`%2f` is `%2F`, and stays a character of its segment, not a `/`), every byte a path
/// cannot hold as it is (a space, a control character, non-ASCII) percent-encoded, and dot segments removed (§5.2.4:
/// `team-b/../team-a` is `team-a`); empty segments (a trailing `/`, `//`) do not count.
///
/// ```swift
/// let binding = try URLBinding("https://git.example.com")
/// binding.matchLength(try URLBinding("https://git.example.com/team/app.git"))  // 0: matches, at the root
/// ```
///
/// Parsed here rather than by `URL`: the same rules must hold for git's `protocol`/`host`/`path`, Docker's server
/// URLs (often without a scheme) and a user's `--for`, and a profile file is outside input.
public struct URLBinding: Sendable, Hashable, CustomStringConvertible {
    /// The longest binding accepted, in UTF-8 bytes: 2048.
    public static let maximumLength = 2048

    /// `https` or `http`, lowercased.
    public let scheme: String
    /// The host, lowercased: a name, an IPv4 address, or an IPv6 address in brackets.
    public let host: String
    /// The port, the scheme's default when none was given.
    public let port: Int
    /// The path segments, normalised, without empty ones or dot segments: `["team", "app.git"]`.
    public let pathSegments: [String]

    /// Whether this is a plain `http` URL off loopback: one a credential helper serves only from a profile that
    /// allows insecure HTTP, on both of the CLI's paths.
    package var isPlainHTTPOffLoopback: Bool {
        scheme == "http" && !EndpointPolicy.isLoopback(host: host)
    }

    /// Parses `text`: `https://host[:port][/path]`, or `host[:port][/path]` (then `https`), as Docker writes
    /// registry names. A query or fragment is ignored; user information is refused (it would be a credential).
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/configuration`` saying what is wrong, and
    ///   never quoting `text`, which may hold a password (`https://user:password@host`): the caller names the field.
    public init(_ text: String) throws {
        func refuse(_ reason: String) -> DeviceLoginError {
            DeviceLoginError(
                .configuration, "invalid URL: \(reason)",
                hint: "give an http(s) URL such as https://git.example.com/team"
            )
        }
        guard text.utf8.count <= Self.maximumLength else {
            throw refuse("it is longer than \(Self.maximumLength) bytes")
        }
        var rest = Substring(text)
        var scheme = "https"
        if let separator = rest.firstRange(of: "://") {
            scheme = rest[..<separator.lowerBound].lowercased()
            rest = rest[separator.upperBound...]
        }
        guard scheme == "https" || scheme == "http" else { throw refuse("the scheme must be https or http") }
        if let end = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = rest[..<end] }
        let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        guard !authority.contains("@") else { throw refuse("it contains user information ('@')") }
        let (host, port) = try Self.split(authority: authority, scheme: scheme, refuse: refuse)
        self.scheme = scheme
        self.host = host
        self.port = port
        self.pathSegments = try Self.normalisedPath(rest[authorityEnd...], refuse: refuse)
    }

    /// Builds a binding from the parts git's credential protocol sends: `protocol`, `host` (with an optional
    /// `:port`) and, when `credential.useHttpPath` is on, `path` (without a leading `/`).
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/configuration`` for parts that make no
    ///   http(s) URL.
    public init(scheme: String, host: String, path: String? = nil) throws {
        let path = path.map { $0.hasPrefix("/") ? $0 : "/" + $0 } ?? ""
        try self.init(scheme + "://" + host + path)
    }

    /// The binding as a URL: `https://git.example.com/team`, the port shown only when it is not the default.
    public var description: String {
        origin + pathSegments.map { "/" + $0 }.joined()
    }

    /// The scheme, host and port alone, as ``description`` writes them: `https://registry.example.com:5000`.
    public var origin: String {
        let defaultPort = scheme == "https" ? 443 : 80
        return scheme + "://" + host + (port == defaultPort ? "" : ":\(port)")
    }

    /// How well this binding serves `url`: nil when it does not; otherwise the number of path segments that
    /// matched (0 for a binding of a whole host), so the most specific binding is the one with the largest value.
    /// - Parameter url: The URL asked for.
    public func matchLength(_ url: URLBinding) -> Int? {
        guard scheme == url.scheme, host == url.host, port == url.port,
            url.pathSegments.count >= pathSegments.count,
            zip(pathSegments, url.pathSegments).allSatisfy({ $0 == $1 })
        else { return nil }
        return pathSegments.count
    }

    /// The segments of `path`, normalised (RFC 3986 §6.2.2): each one's percent-encoding made canonical
    /// (``normalisedSegment(_:)``), then empty and dot segments removed as §5.2.4 removes them, a `..` taking away
    /// the segment before it and never climbing above the root. Byte by byte, with no URL parser: the fast lane
    /// reads bindings too.
    private static func normalisedPath(
        _ path: Substring, refuse: (String) -> DeviceLoginError
    ) throws -> [String] {
        var segments: [String] = []
        for raw in path.utf8.split(separator: UInt8(ascii: "/")) {
            guard let segment = normalisedSegment(raw) else {
                throw refuse("the path has a '%' that is not followed by two hexadecimal digits")
            }
            switch segment {
            case ".": continue
            case "..": _ = segments.popLast()
            default: segments.append(segment)
            }
        }
        return segments
    }

    /// One path segment with canonical percent-encoding: an encoded unreserved character (`ALPHA DIGIT - . _ ~`,
    /// §2.3) decoded, any other encoding kept with upper-case hex digits, and a byte that is neither unreserved nor
    /// one a segment may hold as it is (sub-delims, `:`, `@`; §3.3) encoded. Nil for a `%` without two hex digits.
    private static func normalisedSegment(_ bytes: Substring.UTF8View.SubSequence) -> String? {
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        func encode(_ byte: UInt8) {
            func digit(_ value: UInt8) -> UInt8 {
                value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10
            }
            result.append(UInt8(ascii: "%"))
            result.append(digit(byte >> 4))
            result.append(digit(byte & 0x0F))
        }
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            index = bytes.index(after: index)
            guard byte == UInt8(ascii: "%") else {
                if isUnreserved(byte) || isSegmentDelimiter(byte) { result.append(byte) } else { encode(byte) }
                continue
            }
            guard index < bytes.endIndex, let high = FormEncoding.hexValue(bytes[index]) else { return nil }
            index = bytes.index(after: index)
            guard index < bytes.endIndex, let low = FormEncoding.hexValue(bytes[index]) else { return nil }
            index = bytes.index(after: index)
            let decoded = high << 4 | low
            if isUnreserved(decoded) { result.append(decoded) } else { encode(decoded) }
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// RFC 3986 §2.3: `ALPHA / DIGIT / "-" / "." / "_" / "~"`.
    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            return true
        default: return false
        }
    }

    /// What else a segment holds as it is (RFC 3986 §3.3, `pchar`): sub-delims, `:` and `@`. Their encoded forms
    /// stay encoded: a reserved character and its encoding are not equivalent (§6.2.2.2).
    private static func isSegmentDelimiter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&")...UInt8(ascii: ","), UInt8(ascii: ";"),
            UInt8(ascii: "="), UInt8(ascii: ":"), UInt8(ascii: "@"):
            return true
        default: return false
        }
    }

    /// Splits `host[:port]` (IPv6 in brackets) and checks both.
    private static func split(
        authority: Substring, scheme: String, refuse: (String) -> DeviceLoginError
    ) throws -> (host: String, port: Int) {
        var hostPart = authority
        var portPart: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw refuse("an IPv6 host lacks its ']'") }
            hostPart = authority[...close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw refuse("unexpected text after the IPv6 host") }
                portPart = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            hostPart = authority[..<colon]
            portPart = authority[authority.index(after: colon)...]
        }
        guard !hostPart.isEmpty else { throw refuse("it has no host") }
        let allowed = hostPart.unicodeScalars.allSatisfy { scalar in
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9", ".", "-", "_", "[", "]", ":": return true
            default: return false
            }
        }
        guard allowed else { throw refuse("the host contains a character that is not allowed") }
        var port = scheme == "https" ? 443 : 80
        if let portPart {
            guard portPart.count <= 5, let number = Int(portPart), (1...65_535).contains(number) else {
                throw refuse("the port must be a number from 1 to 65535")
            }
            port = number
        }
        return (hostPart.lowercased(), port)
    }
}

extension URLBinding: Codable {
    /// Reads a binding from its URL text, checked as ``init(_:)`` checks it.
    public init(from decoder: Decoder) throws {
        try self.init(try decoder.singleValueContainer().decode(String.self))
    }

    /// Writes the binding as its URL text (``description``).
    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
