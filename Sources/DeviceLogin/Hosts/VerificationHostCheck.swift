/// Where a device authorization sends the person, checked against the server the sign-in was started with: the
/// warnings a prompt should show, the addresses it may show, and whether it may draw a QR code.
///
/// RFC 8628 §5.4 (remote phishing) and RFC 10027 (cross-device flows) ask a client to help a person notice a
/// sign-in that is not what it seems. This is the pure part of that help; ``DeviceAuthorization/hostCheck`` runs it
/// for an authorization, and `DeviceLoginTerminal`'s prompt shows its warnings. It warns when:
/// - the `verification_uri`'s host is neither the issuer's host nor a name in the issuer's registrable domain
///   (``Warning/Kind/outsideIssuerDomain``): issuer `https://login.example.com`, page `https://evil.example/device`;
///   `https://example.com/device` and `https://device.example.com/` are fine;
/// - `verification_uri_complete` leads to another host than `verification_uri`
///   (``Warning/Kind/completeURIOnAnotherHost``): then ``allowsQRCode`` is false, since a QR code would carry the
///   other host where the person cannot read it, and ``verificationURIComplete`` is nil;
/// - `verification_uri` is `https` but `verification_uri_complete` is not (``Warning/Kind/completeURIDowngraded``):
///   a QR code would carry the code over plain `http`, where anyone on the network can read or redirect it, and the
///   person cannot see the missing `s`; so, as for another host, ``allowsQRCode`` is false and
///   ``verificationURIComplete`` is nil;
/// - the host is internationalised (``Warning/Kind/internationalizedHost``): ``verificationURI`` then shows it in
///   Punycode (`https://xn--80ak6aa92e.com/`), the form in which look-alike letters cannot pass for others.
///
/// It refuses (``refusal``) a host longer than 253 characters or with a label longer than 63 in ASCII form: no
/// DNS name is that long, so such an address is an attack or a broken server. ``DeviceFlow/requestAuthorization()``
/// throws then, before any prompt.
///
/// The registrable domain is approximated without the Public Suffix List: the last two labels of the issuer's host,
/// or three under a two-letter country code with a generic second label (`example.co.uk`, `example.com.au`). An IP
/// address matches only itself; a different port on the same host is the same host. Microsoft Entra ID, whose
/// issuer is on `login.microsoftonline.com` and whose page is `microsoft.com/devicelogin`, is known by name. What
/// the check cannot know: two customers of one hosting domain (`a.github.io`, `b.github.io`) look like one domain,
/// and a server that is itself hostile passes it by sending a page on its own host.
///
/// ```swift
/// let check = authorization.hostCheck
/// for warning in check.warnings { showBanner(warning.message) }  // plain text: sanitise it for a terminal
/// if check.allowsQRCode { showQRCode(check.qrURI) }
/// ```
public struct VerificationHostCheck: Sendable, Hashable {
    /// One thing the person should know before entering the code.
    public struct Warning: Sendable, Hashable, CustomStringConvertible {
        /// Which warning this is. A struct over a private enum: new kinds may be added, so keep a `default` case.
        public struct Kind: Hashable, Sendable, CustomStringConvertible {
            private enum Value: String, Hashable, Sendable {
                case outsideIssuerDomain, completeURIOnAnotherHost, completeURIDowngraded, internationalizedHost
            }
            private let value: Value

            /// The sign-in page is neither on the issuer's host nor in its registrable domain; ``Warning/host`` is
            /// the page's host, ``Warning/otherHost`` the issuer's.
            public static let outsideIssuerDomain = Kind(value: .outsideIssuerDomain)
            /// `verification_uri_complete` leads to ``Warning/otherHost``, not to `verification_uri`'s
            /// ``Warning/host``: show neither its link nor a QR code.
            public static let completeURIOnAnotherHost = Kind(value: .completeURIOnAnotherHost)
            /// `verification_uri` is `https` but `verification_uri_complete` is not (on the same host: another
            /// host is ``completeURIOnAnotherHost``): show neither its link nor a QR code. ``Warning/otherHost`` is
            /// the complete URI's host.
            public static let completeURIDowngraded = Kind(value: .completeURIDowngraded)
            /// ``Warning/host`` has non-ASCII characters (or arrived as Punycode); it is shown in Punycode.
            public static let internationalizedHost = Kind(value: .internationalizedHost)

            public var description: String { value.rawValue }
        }

        /// Which warning this is.
        public let kind: Kind
        /// The `verification_uri`'s host, in ASCII form (lowercase, Punycode).
        public let host: String
        /// The host it is compared with: the issuer's, or `verification_uri_complete`'s; nil for
        /// ``Kind/internationalizedHost``.
        public let otherHost: String?
        /// The warning in a sentence that names both hosts and no command or flag, e.g. "The sign-in page is on
        /// evil.example, but this sign-in was started with auth.example.com. …". The hosts come from the server:
        /// sanitise the text before it reaches a terminal.
        public let message: String

        public var description: String { message }
    }

    /// The `verification_uri` to show: as sent, except that an internationalised host is in Punycode.
    public let verificationURI: String
    /// The `verification_uri_complete` to show, in the same form; nil when the server sent none, or sent one on
    /// another host than ``verificationURI`` (see ``allowsQRCode``).
    public let verificationURIComplete: String?
    /// The `verification_uri`'s host in ASCII form; nil when it is not an absolute URI with a host.
    public let verificationHost: String?
    /// The host the verification host is compared with, in ASCII form: the issuer's (or, for endpoints given by
    /// hand, the device authorization endpoint's); nil when none is known, and then there is no such comparison.
    public let issuerHost: String?
    /// What the person should know before entering the code, most serious first; empty when all is as expected.
    public let warnings: [Warning]
    /// Why the addresses must not be shown at all (a host longer than DNS allows), or nil.
    public let refusal: String?

    /// Whether a QR code may be drawn: false when `verification_uri_complete` leads to another host or downgrades
    /// `https` to another scheme, or the address is refused.
    public var allowsQRCode: Bool {
        refusal == nil
            && !warnings.contains { $0.kind == .completeURIOnAnotherHost || $0.kind == .completeURIDowngraded }
    }

    /// What a QR code should encode when ``allowsQRCode``: the complete URI when there is one, else the plain one
    /// (RFC 8628 §3.3.1).
    public var qrURI: String { verificationURIComplete ?? verificationURI }

    /// Checks the verification URIs of a device authorization response against an issuer.
    ///
    /// - Parameters:
    ///   - verificationURI: `verification_uri`, as the server sent it.
    ///   - verificationURIComplete: `verification_uri_complete`, if the server sent one.
    ///   - issuer: The issuer identifier the sign-in was started with, or another URL of the same server (the
    ///     device authorization endpoint); nil skips the comparison.
    public init(verificationURI: String, verificationURIComplete: String?, issuer: String?) {
        var warnings: [Warning] = []
        let issuerHost = issuer.flatMap(URIHostSpan.init).flatMap { try? HostName($0.host) }
        self.issuerHost = issuerHost?.ascii
        let plain: Address
        let complete: Address?
        do throws(Refusal) {
            plain = try Address(verificationURI, field: "verification_uri")
            complete = try verificationURIComplete.map { uri throws(Refusal) in
                try Address(uri, field: "verification_uri_complete")
            }
        } catch {
            self.verificationURI = verificationURI
            self.verificationURIComplete = nil
            self.verificationHost = nil
            self.warnings = []
            self.refusal = error.message
            return
        }
        self.verificationURI = plain.shown
        self.verificationHost = plain.host?.ascii
        self.refusal = nil
        var completeShown = complete?.shown
        if let host = plain.host {
            if let issuerHost, !Self.belongs(host, toServerOf: issuerHost) {
                warnings.append(
                    Warning(
                        kind: .outsideIssuerDomain, host: host.ascii, otherHost: issuerHost.ascii,
                        message: "The sign-in page is on \(host.ascii), but this sign-in was started with "
                            + "\(issuerHost.ascii). Enter the code only if you expected a page on \(host.ascii)."
                    ))
            }
            if let other = complete?.host, other.ascii != host.ascii {
                completeShown = nil
                warnings.append(
                    Warning(
                        kind: .completeURIOnAnotherHost, host: host.ascii, otherHost: other.ascii,
                        message: "The server's two sign-in links lead to different hosts, \(host.ascii) and "
                            + "\(other.ascii): only the link to \(host.ascii) is shown, and no QR code."
                    ))
            } else if let complete, let scheme = complete.scheme, plain.scheme == "https", scheme != "https" {
                completeShown = nil
                let used = scheme == "http" ? "plain http" : scheme
                warnings.append(
                    Warning(
                        kind: .completeURIDowngraded, host: host.ascii, otherHost: complete.host?.ascii,
                        message: "The server's link with the code filled in uses \(used), not https as its sign-in "
                            + "page on \(host.ascii) does: anyone on the network could read or change that link. "
                            + "Only the https link is shown, and no QR code."
                    ))
            }
            if host.isInternationalized {
                warnings.append(
                    Warning(
                        kind: .internationalizedHost, host: host.ascii, otherHost: nil,
                        message: "The name \(host.ascii) contains non-ASCII characters, shown in punycode: letters "
                            + "of another alphabet can imitate a familiar name."
                    ))
            }
        }
        self.verificationURIComplete = completeShown
        self.warnings = warnings
    }

    /// Whether `host` is the issuer's host, in its registrable domain, or on a sign-in domain known to belong to
    /// the same provider. An IP address matches only itself.
    static func belongs(_ host: HostName, toServerOf issuer: HostName) -> Bool {
        if host.ascii == issuer.ascii { return true }
        guard !host.isIPLiteral, !issuer.isIPLiteral else { return false }
        let domain = issuer.registrableDomain
        return host.isWithin(domain) || (knownSignInDomains[domain] ?? []).contains(where: host.isWithin)
    }

    /// Providers whose sign-in page is on another registrable domain than their issuer, by the issuer's domain.
    /// Microsoft Entra ID: issuers on `login.microsoftonline.com` (`.us` for US Government, `login.chinacloudapi.cn`
    /// for the China cloud), pages at `microsoft.com/devicelogin` and `login.microsoft.com/device`.
    static let knownSignInDomains: [String: [String]] = [
        "microsoftonline.com": ["microsoft.com"],
        "microsoftonline.us": ["microsoft.com"],
        "chinacloudapi.cn": ["microsoft.com"],
    ]

    /// A verification URI read for the check: the scheme and host, if it has them, and the URI as it should be shown.
    private struct Address {
        var host: HostName?
        /// The scheme, lowercased (RFC 3986 §3.1: schemes are case-insensitive); nil without `scheme://`.
        var scheme: String?
        var shown: String

        init(_ uri: String, field: String) throws(Refusal) {
            shown = uri
            guard let span = URIHostSpan(uri) else { return }
            scheme = span.scheme.lowercased()
            do throws(HostName.Problem) {
                host = try HostName(span.host)
            } catch {
                switch error {
                case .empty:
                    return
                case .tooLong(let length):
                    throw Refusal(
                        message: "the \(field)'s host is \(length) characters long, more than the "
                            + "\(HostName.maximumLength) a DNS name can have")
                case .labelTooLong(let length):
                    throw Refusal(
                        message: "a label of the \(field)'s host has \(length) characters, more than the "
                            + "\(HostName.maximumLabelLength) a DNS label can have")
                }
            }
            // Only a host that needed encoding is rewritten; any other URI is shown exactly as sent.
            if let host, span.host.unicodeScalars.contains(where: { !$0.isASCII }) {
                shown = span.prefix + host.ascii + span.suffix
            }
        }
    }

    private struct Refusal: Error {
        var message: String
    }
}
