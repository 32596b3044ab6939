/// A URL prefix a profile serves: which git remotes, registries or APIs its tokens are for (`login --for URL`).
///
/// A binding is a scheme (`https` or `http`), a host, a port and a path. It matches a URL with the same scheme,
/// host and port whose path starts with the binding's path at a segment boundary: `https://git.example.com/team`
/// matches `https://git.example.com/team/app.git`, not `https://git.example.com/teamwork`. Hosts compare without
/// case; the port defaults to the scheme's (443, 80); a trailing `/` does not count. Of several bindings that
/// match, the one with the longest path wins (``matchLength(_:)``), as with git's `credential.<url>.*` settings.
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
    /// The path segments, without empty ones: `["team", "app.git"]`.
    public let pathSegments: [String]

    /// Parses `text`: `https://host[:port][/path]`, or `host[:port][/path]` (then `https`), as Docker writes
    /// registry names. A query or fragment is ignored; user information is refused (it would be a credential).
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/configuration`` saying what is wrong.
    public init(_ text: String) throws {
        func refuse(_ reason: String) -> DeviceLoginError {
            DeviceLoginError(
                .configuration, "invalid URL \"\(String(text.prefix(200)))\": \(reason)",
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
        self.pathSegments = rest[authorityEnd...].split(separator: "/").map(String.init)
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
        let defaultPort = scheme == "https" ? 443 : 80
        let portText = port == defaultPort ? "" : ":\(port)"
        return scheme + "://" + host + portText + pathSegments.map { "/" + $0 }.joined()
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
