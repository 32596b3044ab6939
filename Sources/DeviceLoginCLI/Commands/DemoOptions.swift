import DeviceLogin
import DeviceLoginTerminal

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The options of `demo` turned into values: the server's (read by the server `device-login-demo` makes) and the
/// sign-in's. Pure, like ``LoginSettings``.
package struct DemoOptions: Sendable, Equatable {
    /// Approve each code by itself this many seconds after it was issued; nil waits for a person.
    package var approveAfter: Int?
    /// The port on 127.0.0.1; 0 for a free one.
    package var port: UInt16
    /// The polling interval the server asks for, in seconds.
    package var interval: Int
    /// The `verification_uri` the server sends instead of its own page's address (`--verification-uri`), to show
    /// the prompt's warning about a page on another host; nil for the server's own.
    package var verificationURI: String?
    /// Only run the server.
    var serve: Bool
    /// When the sign-in prompt draws a QR code.
    var qr: QRMode
    /// Print the token response as JSON on stdout.
    var json: Bool
    /// Speak DPoP (RFC 9449): the server demands proofs and nonces, and the sign-in binds its tokens to a new key.
    package var dpop: Bool
    /// The access tokens' lifetime in seconds, nil for the server's default (an hour).
    package var tokenLifetime: Int?
    /// Draw the sign-in full screen (`--kiosk`), and with `--renew` request a new code by itself.
    var kiosk = false
    var renew = false

    /// The longest `--verification-uri` taken, in bytes: the prompt shows no longer one.
    static let maximumURILength = 2048

    /// Reads the options; every one is checked before any server starts.
    /// - Throws: ``UsageError`` naming the option at fault.
    init(_ options: ParsedOptions) throws {
        func seconds(_ name: String, range: ClosedRange<Int>) throws -> Int? {
            guard let text = options.value(name) else { return nil }
            guard let value = Int(text), range.contains(value) else {
                throw UsageError(
                    "--\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound)",
                    command: "demo")
            }
            return value
        }
        approveAfter = try seconds("approve-after", range: 0...3600)
        port = try seconds("port", range: 0...65_535).flatMap(UInt16.init(exactly:)) ?? 0
        interval = try seconds("interval", range: 1...60) ?? 5
        verificationURI = options.value("verification-uri")
        if let verificationURI, verificationURI.isEmpty || verificationURI.utf8.count > Self.maximumURILength {
            throw UsageError(
                "--verification-uri must be a URI of 1 to \(Self.maximumURILength) bytes", command: "demo")
        }
        serve = options.flag("serve")
        qr = try LoginSettings.qrMode(options, command: "demo")
        json = options.flag("json")
        dpop = options.flag("dpop")
        tokenLifetime = try seconds("token-lifetime", range: 1...86_400)
        (kiosk, renew) = try LoginSettings.kioskFlags(options, command: "demo")
    }

    /// The sign-in `demo` runs against its server: a public client, nothing saved, the `--qr`, `--json` and
    /// `--dpop` given.
    func signIn(issuer: String, clientID: String) -> LoginSettings {
        LoginSettings(
            issuer: issuer, client: ClientConfiguration(clientID: clientID), qr: qr, json: json, store: false,
            dpop: dpop, kiosk: kiosk, renew: renew
        )
    }
}
