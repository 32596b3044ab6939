import Foundation
import Testing

@testable import DeviceLogin

@Suite("VerificationHostCheck: where the verification URIs lead, against the issuer")
struct VerificationHostCheckTests {
    /// One row: the issuer, `verification_uri`, `verification_uri_complete`, the warnings expected (by kind), and
    /// whether a QR code may be drawn.
    struct Row: Sendable, CustomTestStringConvertible {
        var issuer: String?
        var plain: String
        var complete: String?
        var warnings: [String]
        var allowsQRCode = true
        var testDescription: String { "\(issuer ?? "nil") / \(plain) / \(complete ?? "nil")" }
    }

    static let outside = "outsideIssuerDomain"
    static let twoHosts = "completeURIOnAnotherHost"
    static let idn = "internationalizedHost"
    static let downgrade = "completeURIDowngraded"

    static let rows: [Row] = [
        // The same host, with or without the complete URI.
        Row(
            issuer: "https://auth.example.com", plain: "https://auth.example.com/device",
            complete: "https://auth.example.com/device?user_code=WDJB-MJHT", warnings: []),
        Row(issuer: "https://auth.example.com/tenant/v2.0", plain: "https://AUTH.example.com/device", warnings: []),
        // A subdomain of the issuer's registrable domain, or the registrable domain itself.
        Row(issuer: "https://example.com", plain: "https://login.example.com/device", warnings: []),
        Row(issuer: "https://login.example.com", plain: "https://example.com/device", warnings: []),
        Row(issuer: "https://login.example.com", plain: "https://device.example.com/", warnings: []),
        // Another domain, including names that merely end or start like the issuer's.
        Row(issuer: "https://login.example.com", plain: "https://evil.example/device", warnings: [outside]),
        Row(issuer: "https://example.com", plain: "https://notexample.com/device", warnings: [outside]),
        Row(issuer: "https://example.com", plain: "https://example.com.evil.example/", warnings: [outside]),
        // User info: the host is the one after the last @.
        Row(issuer: "https://auth.example.com", plain: "https://auth.example.com@evil.example/", warnings: [outside]),
        // Under a country code with a generic second label, three labels make the domain.
        Row(issuer: "https://login.example.co.uk", plain: "https://device.example.co.uk/", warnings: []),
        Row(issuer: "https://login.example.co.uk", plain: "https://example.co.uk/", warnings: []),
        Row(issuer: "https://login.example.co.uk", plain: "https://evil.co.uk/", warnings: [outside]),
        Row(issuer: "https://example.co.uk", plain: "https://other.co.uk/device", warnings: [outside]),
        Row(issuer: "https://login.example.com.au", plain: "https://phish.com.au/", warnings: [outside]),
        // An IP address matches only itself; the port does not matter.
        Row(issuer: "http://127.0.0.1:8080", plain: "http://127.0.0.1:9090/device", warnings: []),
        Row(issuer: "http://127.0.0.1:8080", plain: "http://127.0.0.2:8080/device", warnings: [outside]),
        Row(issuer: "http://127.0.0.1:8080", plain: "http://localhost:8080/device", warnings: [outside]),
        Row(issuer: "http://192.168.1.10", plain: "http://172.16.1.10/device", warnings: [outside]),
        Row(issuer: "http://[::1]:8080", plain: "http://[::1]:9090/device", warnings: []),
        Row(issuer: "http://[::1]:8080", plain: "http://[::2]/device", warnings: [outside]),
        Row(issuer: "https://login.example.com", plain: "https://93.184.216.34/device", warnings: [outside]),
        // A port difference alone is the same host.
        Row(issuer: "https://auth.example.com", plain: "https://auth.example.com:8443/device", warnings: []),
        // Internationalised hosts: always a warning; outside the domain too when a look-alike letter is in it.
        Row(issuer: "https://auth.example.com", plain: "https://\u{0430}uth.example.com/device", warnings: [idn]),
        Row(issuer: "https://example.com", plain: "https://ex\u{0430}mple.com/device", warnings: [outside, idn]),
        Row(issuer: "https://bücher.example", plain: "https://xn--bcher-kva.example/", warnings: [idn]),
        // verification_uri_complete on another host: a warning and no QR code.
        Row(
            issuer: "https://auth.example.com", plain: "https://auth.example.com/device",
            complete: "https://evil.example/device?user_code=WDJB-MJHT", warnings: [twoHosts], allowsQRCode: false),
        Row(
            issuer: "https://auth.example.com", plain: "https://evil.example/device",
            complete: "https://auth.example.com/device?user_code=WDJB-MJHT", warnings: [outside, twoHosts],
            allowsQRCode: false),
        Row(
            issuer: nil, plain: "https://auth.example.com/device", complete: "https://login.example.com/?c=1",
            warnings: [twoHosts], allowsQRCode: false),
        // A complete URI on the same host with another port is fine.
        Row(
            issuer: "https://auth.example.com", plain: "https://auth.example.com/device",
            complete: "https://auth.example.com:8443/device?user_code=WDJB-MJHT", warnings: []),
        // verification_uri_complete on plain http where verification_uri is https: a downgrade, no QR code. Plain
        // http on both (a loopback test server) is no downgrade; nor is https for the complete URI.
        Row(
            issuer: "https://auth.example.com", plain: "https://auth.example.com/device",
            complete: "http://auth.example.com/device?user_code=WDJB-MJHT", warnings: [downgrade],
            allowsQRCode: false),
        Row(
            issuer: "https://auth.example.com", plain: "https://auth.example.com/device",
            complete: "HTTP://auth.example.com:443/device?user_code=WDJB-MJHT", warnings: [downgrade],
            allowsQRCode: false),
        Row(
            issuer: "http://127.0.0.1:8080", plain: "http://127.0.0.1:8080/device",
            complete: "http://127.0.0.1:8080/device?user_code=WDJB-MJHT", warnings: []),
        Row(
            issuer: "http://127.0.0.1:8080", plain: "http://127.0.0.1:8080/device",
            complete: "https://127.0.0.1:8443/device?user_code=WDJB-MJHT", warnings: []),
        // On another host and on http: the host warning says enough, once.
        Row(
            issuer: "https://auth.example.com", plain: "https://auth.example.com/device",
            complete: "http://evil.example/device?user_code=WDJB-MJHT", warnings: [twoHosts], allowsQRCode: false),
        // Microsoft Entra ID: the issuer on microsoftonline.com, the page on microsoft.com.
        Row(
            issuer: "https://login.microsoftonline.com/common/v2.0", plain: "https://microsoft.com/devicelogin",
            warnings: []),
        Row(
            issuer: "https://login.microsoftonline.com/tenant/v2.0", plain: "https://login.microsoft.com/device",
            warnings: []),
        Row(
            issuer: "https://login.microsoftonline.com/tenant/v2.0", plain: "https://microsoft.com.evil.example/",
            warnings: [outside]),
        // No issuer: nothing to compare with.
        Row(issuer: nil, plain: "https://anywhere.example/device", warnings: []),
        // Not an absolute URI with a host: nothing to say here (the prompt refuses to show it).
        Row(issuer: "https://auth.example.com", plain: "javascript:alert(1)", warnings: []),
        Row(issuer: "https://auth.example.com", plain: "https:///device", warnings: []),
    ]

    @Test("Warnings and the QR code, by the hosts", arguments: rows)
    func classify(row: Row) {
        let check = VerificationHostCheck(
            verificationURI: row.plain, verificationURIComplete: row.complete, issuer: row.issuer
        )
        #expect(check.refusal == nil)
        #expect(check.warnings.map(\.kind.description) == row.warnings)
        #expect(check.allowsQRCode == row.allowsQRCode)
        if !row.allowsQRCode { #expect(check.verificationURIComplete == nil) }
    }

    @Test("A host outside the issuer's domain: the warning names both hosts")
    func outsideNamesBothHosts() throws {
        let check = VerificationHostCheck(
            verificationURI: "https://evil.example/device", verificationURIComplete: nil,
            issuer: "https://login.example.com"
        )
        let warning = try #require(check.warnings.first)
        #expect(warning.kind == .outsideIssuerDomain)
        #expect(warning.host == "evil.example" && warning.otherHost == "login.example.com")
        #expect(
            warning.message
                == "The sign-in page is on evil.example, but this sign-in was started with login.example.com. "
                + "Enter the code only if you expected a page on evil.example.")
        #expect(check.verificationHost == "evil.example" && check.issuerHost == "login.example.com")
    }

    @Test("Two links on different hosts: the warning names both, only the plain link is shown, no QR code")
    func twoHostsNamesBoth() throws {
        let check = VerificationHostCheck(
            verificationURI: "https://auth.example.com/device",
            verificationURIComplete: "https://evil.example/device?user_code=WDJB-MJHT", issuer: nil
        )
        let warning = try #require(check.warnings.first)
        #expect(warning.host == "auth.example.com" && warning.otherHost == "evil.example")
        #expect(
            warning.message
                == "The server's two sign-in links lead to different hosts, auth.example.com and evil.example: only "
                + "the link to auth.example.com is shown, and no QR code.")
        #expect(!check.allowsQRCode)
        #expect(check.verificationURIComplete == nil && check.qrURI == "https://auth.example.com/device")
    }

    @Test("A complete URI on plain http beside an https page: the warning names the downgrade, no QR code")
    func downgradeNamed() throws {
        let check = VerificationHostCheck(
            verificationURI: "https://auth.example.com/device",
            verificationURIComplete: "http://auth.example.com/device?user_code=WDJB-MJHT",
            issuer: "https://auth.example.com"
        )
        let warning = try #require(check.warnings.first)
        #expect(warning.kind.description == "completeURIDowngraded")
        #expect(warning.host == "auth.example.com" && warning.otherHost == "auth.example.com")
        #expect(
            warning.message
                == "The server's link with the code filled in uses plain http, not https as its sign-in page on "
                + "auth.example.com does: anyone on the network could read or change that link. Only the https link "
                + "is shown, and no QR code.")
        #expect(!check.allowsQRCode)
        #expect(check.verificationURIComplete == nil && check.qrURI == "https://auth.example.com/device")
    }

    @Test("An internationalised host is shown in Punycode, and only then is the URI rewritten")
    func punycodeShown() throws {
        let check = VerificationHostCheck(
            verificationURI: "https://bücher.example:8443/gerät?x=ü",
            verificationURIComplete: "https://Bücher.example/gerät?user_code=A", issuer: "https://xn--bcher-kva.example"
        )
        #expect(check.verificationURI == "https://xn--bcher-kva.example:8443/gerät?x=ü")
        #expect(check.verificationURIComplete == "https://xn--bcher-kva.example/gerät?user_code=A")
        #expect(check.warnings.map(\.kind) == [.internationalizedHost])
        #expect(
            check.warnings.first?.message
                == "The name xn--bcher-kva.example contains non-ASCII characters, shown in punycode: letters of "
                + "another alphabet can imitate a familiar name.")
        let plain = VerificationHostCheck(
            verificationURI: "https://Auth.Example.com/device", verificationURIComplete: nil, issuer: nil
        )
        #expect(plain.verificationURI == "https://Auth.Example.com/device")
    }

    @Test(
        "A host longer than DNS allows is refused, in either URI",
        arguments: [
            (
                "https://" + String(repeating: "a.", count: 127) + "com/device", nil as String?,
                "the verification_uri's host is 257 characters long, more than the 253 a DNS name can have"
            ),
            (
                "https://" + String(repeating: "a", count: 64) + ".example.com/", nil,
                "a label of the verification_uri's host has 64 characters, more than the 63 a DNS label can have"
            ),
            (
                "https://auth.example.com/device", "https://" + String(repeating: "b", count: 70) + ".example/?c=1",
                "a label of the verification_uri_complete's host has 70 characters, more than the 63 a DNS label can "
                    + "have"
            ),
        ])
    func refused(plain: String, complete: String?, refusal: String) {
        let check = VerificationHostCheck(
            verificationURI: plain, verificationURIComplete: complete, issuer: "https://auth.example.com"
        )
        #expect(check.refusal == refusal)
        #expect(check.warnings.isEmpty && !check.allowsQRCode && check.verificationURIComplete == nil)
    }

    @Test("DeviceAuthorization runs the check against its issuer")
    func onTheAuthorization() {
        let response = DeviceAuthorizationResponse(
            deviceCode: "d", userCode: "WDJB-MJHT", verificationURI: "https://evil.example/device", expiresIn: 600
        )
        let checked = DeviceAuthorization(
            response: response, receivedAt: .init(timeIntervalSince1970: 0), issuer: "https://auth.example.com"
        )
        #expect(checked.hostCheck.warnings.map(\.kind) == [.outsideIssuerDomain])
        let unchecked = DeviceAuthorization(response: response, receivedAt: .init(timeIntervalSince1970: 0))
        #expect(unchecked.hostCheck.warnings.isEmpty)
    }
}
