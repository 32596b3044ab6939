/// A host from a URI in the ASCII form a browser's address bar and DNS use, with what the phishing check needs: its
/// registrable domain, and whether it is internationalised or an IP address.
///
/// The ASCII form is the host lowercased, without a trailing dot, with the ideographic full stops (U+3002, U+FF0E,
/// U+FF61) read as dots as IDNA does, and each label with a non-ASCII character in Punycode after `xn--`. No other
/// IDNA mapping or normalisation is applied (see ``Punycode``).
struct HostName: Sendable, Hashable {
    /// The longest host accepted, in ASCII characters: 253, the most a DNS name can carry (RFC 1035 §2.3.4, without
    /// the root label).
    static let maximumLength = 253
    /// The longest label accepted, in ASCII characters (RFC 1035 §2.3.4).
    static let maximumLabelLength = 63

    /// Why a host is refused.
    enum Problem: Error, Hashable {
        /// No host at all.
        case empty
        /// The ASCII form has this many characters, more than ``HostName/maximumLength`` (at least; a very long
        /// host is not encoded to count).
        case tooLong(Int)
        /// A label has this many characters in ASCII form, more than ``HostName/maximumLabelLength``.
        case labelTooLong(Int)
    }

    /// The host in ASCII form; an IPv6 literal keeps its brackets.
    let ascii: String
    /// Whether a label had non-ASCII characters, or arrived in Punycode (`xn--`) already.
    let isInternationalized: Bool
    /// Whether the host is an IP address: an IPv6 literal, or a name whose last label is all digits (an IPv4
    /// address in one of the forms browsers read).
    let isIPLiteral: Bool

    /// Reads `text`, a host as it stands in a URI (between `//` or `@` and the port).
    /// - Throws: ``Problem`` when it is empty or longer than DNS allows.
    init(_ host: String) throws(Problem) {
        if host.hasPrefix("[") {
            // An IPv6 literal: nothing to encode, and it matches only itself.
            guard host.utf8.count <= Self.maximumLength else { throw .tooLong(host.utf8.count) }
            self.init(ascii: host.lowercased(), isInternationalized: false, isIPLiteral: true)
            return
        }
        if host.utf8.allSatisfy({ $0 < 0x80 }) {
            try self.init(asciiHost: host)
            return
        }
        try self.init(unicodeHost: host)
    }

    /// Reads a host of ASCII characters only, byte by byte: what ``init(unicodeHost:)`` makes of it, without its
    /// Unicode machinery. No label needs Punycode and lowercasing is ASCII's, so the ASCII form is the bytes
    /// lowercased, less a trailing dot. Every verification URI a flow checks takes this path: splitting and lowercasing
    /// by `Unicode.Scalar` cost 70,000 instructions a flow, a tenth of a flow's CPU in device-login-bench (issue 19).
    init(asciiHost text: String) throws(Problem) {
        var bytes = Array(text.utf8)
        if bytes.last == UInt8(ascii: ".") { bytes.removeLast() }
        guard !bytes.isEmpty else { throw .empty }
        guard bytes.count <= Self.maximumLength else { throw .tooLong(bytes.count) }
        var internationalized = false
        var labelStart = 0
        for index in 0...bytes.count {
            if index < bytes.count {
                let byte = bytes[index]
                if byte != UInt8(ascii: ".") {
                    if byte >= UInt8(ascii: "A"), byte <= UInt8(ascii: "Z") { bytes[index] = byte | 0x20 }
                    continue
                }
            }
            let length = index - labelStart
            guard length <= Self.maximumLabelLength else { throw .labelTooLong(length) }
            if length >= 4, bytes[labelStart..<labelStart + 4].elementsEqual("xn--".utf8) { internationalized = true }
            if index < bytes.count { labelStart = index + 1 }
        }
        let last = bytes[labelStart...]
        let numeric = !last.isEmpty && last.allSatisfy { (0x30...0x39).contains($0) }
        self.init(
            ascii: String(decoding: bytes, as: UTF8.self), isInternationalized: internationalized, isIPLiteral: numeric)
    }

    /// Reads a host that may hold any Unicode: labels split at every kind of full stop, lowercased and, where not
    /// ASCII, encoded in Punycode.
    init(unicodeHost text: String) throws(Problem) {
        var host = text
        if host.unicodeScalars.last == "." { host.unicodeScalars.removeLast() }
        guard !host.isEmpty else { throw .empty }
        // Every code point becomes at least one ASCII character, so a host this long is too long in any form.
        let scalarCount = host.unicodeScalars.count
        guard scalarCount <= Self.maximumLength else { throw .tooLong(scalarCount) }
        var labels: [String] = []
        var internationalized = false
        for label in host.unicodeScalars.split(omittingEmptySubsequences: false, whereSeparator: Self.isDot) {
            let lowered = String(String.UnicodeScalarView(label)).lowercased()
            let encoded: String
            if lowered.unicodeScalars.allSatisfy(\.isASCII) {
                encoded = lowered
                if lowered.hasPrefix("xn--") { internationalized = true }
            } else {
                // At most 253 code points (checked above), within what Punycode encodes.
                encoded = "xn--" + (Punycode.encode(lowered.unicodeScalars) ?? "")
                internationalized = true
            }
            guard encoded.utf8.count <= Self.maximumLabelLength else { throw .labelTooLong(encoded.utf8.count) }
            labels.append(encoded)
        }
        let ascii = labels.joined(separator: ".")
        guard ascii.utf8.count <= Self.maximumLength else { throw .tooLong(ascii.utf8.count) }
        let last = labels.last ?? ""
        let numeric = !last.isEmpty && last.utf8.allSatisfy { (0x30...0x39).contains($0) }
        self.init(ascii: ascii, isInternationalized: internationalized, isIPLiteral: numeric)
    }

    /// Whether `scalar` separates labels: the full stop, and the ideographic ones IDNA reads as it.
    private static func isDot(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case ".", "\u{3002}", "\u{FF0E}", "\u{FF61}": return true
        default: return false
        }
    }

    private init(ascii: String, isInternationalized: Bool, isIPLiteral: Bool) {
        self.ascii = ascii
        self.isInternationalized = isInternationalized
        self.isIPLiteral = isIPLiteral
    }

    /// Second-level labels that registries under a two-letter country code hand out names below, as in
    /// `example.co.uk`, `example.com.au`, `example.ac.jp`, `example.gob.mx`: an approximation of the Public Suffix
    /// List, which is not available here.
    static let genericSecondLevelLabels: Set<String> = [
        "ac", "co", "com", "edu", "gob", "gov", "ltd", "mil", "ne", "net", "or", "org", "plc", "sch",
    ]

    /// The part of the name one owner registers, approximated without the Public Suffix List: the last two labels,
    /// or the last three when the last is a two-letter country code and the one before it is a generic label such as
    /// `co` or `org` (``genericSecondLevelLabels``). An IP address, or a name of one or two labels, is its own
    /// domain.
    ///
    /// It cannot know private suffixes (`github.io`, `cloudfront.net`, `azurewebsites.net`: two customers there
    /// look like one domain) nor country registries with other rules (`example.kawasaki.jp`, `example.pvt.k12.ma.us`).
    var registrableDomain: String {
        let labels = ascii.split(separator: ".", omittingEmptySubsequences: false)
        guard !isIPLiteral, labels.count > 2 else { return ascii }
        let topLevel = labels[labels.count - 1]
        let second = String(labels[labels.count - 2])
        let isCountryCode = topLevel.utf8.count == 2 && topLevel.utf8.allSatisfy { (0x61...0x7A).contains($0) }
        let keep = isCountryCode && Self.genericSecondLevelLabels.contains(second) ? 3 : 2
        return labels.suffix(keep).joined(separator: ".")
    }

    /// Whether this host is `domain` itself or a name under it (`login.example.com` is under `example.com`).
    func isWithin(_ domain: String) -> Bool {
        ascii == domain || ascii.hasSuffix("." + domain)
    }
}
