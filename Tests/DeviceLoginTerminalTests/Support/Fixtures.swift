import DeviceLogin
import DeviceLoginTerminal
import Foundation

/// Values shared by the terminal tests.
enum Fixtures {
    static let userCode = "WDJB-MJHT"
    static let verificationURI = "https://auth.example.com/device"
    static let completeURI = "https://auth.example.com/device?user_code=WDJB-MJHT"
    static let issuer = "https://auth.example.com"
    /// The machine name every prompt in the tests is rendered with.
    static let machineName = "build-box"

    /// A device authorization as a typical server sends it.
    static func authorization(
        userCode: String = userCode,
        verificationURI: String = verificationURI,
        completeURI: String? = completeURI,
        expiresIn: Int = 900,
        issuer: String? = issuer
    ) -> DeviceAuthorization {
        DeviceAuthorization(
            response: DeviceAuthorizationResponse(
                deviceCode: "device-code-never-shown",
                userCode: userCode,
                verificationURI: verificationURI,
                verificationURIComplete: completeURI,
                expiresIn: expiresIn,
                interval: 5
            ),
            receivedAt: Date(timeIntervalSince1970: 1_700_000_000),
            issuer: issuer
        )
    }

    /// A laptop terminal: UTF-8, colour, 100 × 50.
    static let laptop = TerminalCapabilities(isTerminal: true, columns: 100, rows: 50, isUTF8: true)
    /// The same with `NO_COLOR` set.
    static let laptopNoColor = TerminalCapabilities(
        isTerminal: true, columns: 100, rows: 50, isUTF8: true, noColor: true
    )
    /// A serial console: ASCII locale, `TERM=vt220`, 80 × 24.
    static let serialConsole = TerminalCapabilities(
        isTerminal: true, columns: 80, rows: 24, isUTF8: false, term: "vt220"
    )
    /// A pipe, with a UTF-8 locale.
    static let pipe = TerminalCapabilities(isTerminal: false, isUTF8: true)
}
