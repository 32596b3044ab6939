/// An absolute `http` or `https` URI that is safe to print and to encode in a QR code.
///
/// The verification URI comes from the server and the user is about to type a code into whatever page it opens, so
/// it is checked strictly rather than leniently (RFC 8628 §5.4, remote phishing). A URI is refused when:
/// - its scheme is not `http` or `https` (`javascript:`, `file:`, `data:`, …), or `//` and a host do not follow;
/// - it has any character outside RFC 3986's URI characters: spaces, controls, non-ASCII (an internationalised host
///   must arrive in its `xn--` form), `"`, `<`, `>`, `\`, `^`, a backtick, `{`, `|`, `}`; or a `%` without two hex
///   digits after it;
/// - its authority has user info (`https://good.example@evil.example/` sends the user to `evil.example`);
/// - its host has an empty label, a character other than letters, digits, `-`, `_` and `.`, or ends in a numeric
///   label without being a plain dotted-quad IPv4 address (browsers read `http://2130706433/` and `http://0x7f.1/`
///   as IP addresses, a classic disguise); an IPv6 literal must hold only hex digits, `:` and `.`;
/// - its port is empty, not a number or outside 1–65535;
/// - it is longer than ``maximumLength``.
///
/// ```swift
/// if let uri = SafeURI(authorization.verificationURI) {
///     print("You will be sent to \(uri.hostAndPort)")
/// }
/// ```
public struct SafeURI: Sendable, Hashable, CustomStringConvertible {
    /// The longest URI accepted, in bytes.
    public static let maximumLength = 2048

    /// The URI exactly as given.
    public let string: String
    /// The host, lowercased (an IPv6 literal keeps its brackets).
    public let host: String
    /// The port, when the URI names one.
    public let port: Int?

    /// Checks `text` and keeps it when it is safe.
    ///
    /// - Parameter text: A URI from the server.
    /// - Returns: `nil` when `text` breaks any of the rules above.
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count <= Self.maximumLength, Self.hasOnlyURICharacters(bytes) else { return nil }
        guard let schemeEnd = bytes.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        let scheme = String(decoding: bytes[..<schemeEnd], as: UTF8.self).lowercased()
        guard scheme == "http" || scheme == "https" else { return nil }
        let afterScheme = bytes[(schemeEnd + 1)...]
        guard afterScheme.starts(with: "//".utf8) else { return nil }
        let authorityStart = afterScheme.startIndex + 2
        // The authority ends at the first "/", "?" or "#".
        let authorityEnd =
            bytes[authorityStart...].firstIndex { $0 == 0x2F || $0 == 0x3F || $0 == 0x23 }
            ?? bytes.endIndex
        let authority = bytes[authorityStart..<authorityEnd]
        guard !authority.contains(UInt8(ascii: "@")), let (host, port) = Self.hostAndPort(authority) else { return nil }
        self.string = text
        self.host = host
        self.port = port
    }

    /// The host, followed by `:port` when the URI names a port: where the user will be sent.
    public var hostAndPort: String {
        port.map { "\(host):\($0)" } ?? host
    }

    /// The URI as given.
    public var description: String { string }

    /// Whether every byte is an RFC 3986 URI character (unreserved, reserved, or a well-formed `%XX`).
    private static func hasOnlyURICharacters(_ bytes: [UInt8]) -> Bool {
        let allowedPunctuation = Set("-._~:/?#[]@!$&'()*+,;=".utf8)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.endIndex, bytes[index + 1].isHexDigit, bytes[index + 2].isHexDigit else {
                    return false
                }
                index += 3
                continue
            }
            guard byte.isLetterOrDigit || allowedPunctuation.contains(byte) else { return false }
            index += 1
        }
        return true
    }

    /// Splits an authority (without user info) into a checked, lowercased host and an optional port.
    private static func hostAndPort(_ authority: ArraySlice<UInt8>) -> (String, Int?)? {
        let hostPart: ArraySlice<UInt8>
        let portPart: ArraySlice<UInt8>?
        if authority.first == UInt8(ascii: "[") {
            guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else { return nil }
            let literal = authority[(authority.startIndex + 1)..<close]
            guard !literal.isEmpty, literal.allSatisfy({ $0.isHexDigit || $0 == 0x3A || $0 == 0x2E }) else {
                return nil
            }
            hostPart = authority[...close]
            let rest = authority[(close + 1)...]
            guard rest.isEmpty || rest.first == UInt8(ascii: ":") else { return nil }
            portPart = rest.isEmpty ? nil : rest.dropFirst()
        } else {
            let colon = authority.firstIndex(of: UInt8(ascii: ":"))
            hostPart = authority[..<(colon ?? authority.endIndex)]
            portPart = colon.map { authority[($0 + 1)...] }
            guard isRegisteredName(hostPart) else { return nil }
        }
        var port: Int?
        if let portPart {
            guard (1...5).contains(portPart.count), portPart.allSatisfy(\.isDigit),
                let number = Int(String(decoding: portPart, as: UTF8.self)), (1...65535).contains(number)
            else { return nil }
            port = number
        }
        return (String(decoding: hostPart, as: UTF8.self).lowercased(), port)
    }

    /// Whether `host` is a domain name, or a dotted-quad IPv4 address when its last label is numeric.
    private static func isRegisteredName(_ host: ArraySlice<UInt8>) -> Bool {
        let labels = host.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard !host.isEmpty, labels.allSatisfy({ !$0.isEmpty }) else { return false }
        guard host.allSatisfy({ $0.isLetterOrDigit || $0 == 0x2D || $0 == 0x5F || $0 == 0x2E }) else { return false }
        // WHATWG URL parsing reads a host whose last label is numeric as IPv4, in decimal, octal or hex (`0x7f`),
        // with one to four parts. No top-level domain starts with a digit, so such a host must be the plain form:
        // four decimal parts without leading zeros.
        guard let last = labels.last, last.first?.isDigit == true else { return true }
        return labels.count == 4
            && labels.allSatisfy { label in
                label.allSatisfy(\.isDigit) && label.count <= 3 && (label.count == 1 || label.first != 0x30)
                    && (Int(String(decoding: label, as: UTF8.self)) ?? 256) <= 255
            }
    }
}

extension UInt8 {
    fileprivate var isDigit: Bool { (0x30...0x39).contains(self) }
    fileprivate var isHexDigit: Bool { isDigit || (0x41...0x46).contains(self) || (0x61...0x66).contains(self) }
    fileprivate var isLetterOrDigit: Bool { isDigit || (0x41...0x5A).contains(self) || (0x61...0x7A).contains(self) }
}
