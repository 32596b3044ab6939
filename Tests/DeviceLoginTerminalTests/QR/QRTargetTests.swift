import DeviceLogin
import Testing

@testable import DeviceLoginTerminal

@Suite("QRTarget")
struct QRTargetTests {
    @Test("The complete URI when both links are on one host, with a caption naming it")
    func link() throws {
        let target = QRTarget(Fixtures.authorization().hostCheck)
        #expect(
            target
                == .link(
                    try #require(SafeURI(Fixtures.completeURI)),
                    caption: "Scan to open auth.example.com with the code below filled in."))
        let plain = QRTarget(Fixtures.authorization(completeURI: nil).hostCheck)
        #expect(
            plain
                == .link(
                    try #require(SafeURI(Fixtures.verificationURI)),
                    caption: "Scan to open auth.example.com, then enter the code below."))
        guard case .success(let made) = target.matrix(errorCorrection: .medium) else {
            Issue.record("no matrix")
            return
        }
        #expect(made.0 == (try QRMatrix(encoding: Fixtures.completeURI)))
    }

    @Test(
        "Refused: links on two hosts, a downgrade to http, a link not plain http(s), a link longer than SafeURI takes"
    )
    func refused() {
        let twoHosts = Fixtures.authorization(completeURI: "https://evil.example/d?user_code=WDJB-MJHT")
        #expect(
            QRTarget(twoHosts.hostCheck)
                == .refused("QR code not shown: the server's two links lead to different hosts."))
        // The complete link on plain http beside an https page: a QR code would carry the downgrade unseen.
        let downgraded = Fixtures.authorization(completeURI: "http://auth.example.com/device?user_code=WDJB-MJHT")
        #expect(
            QRTarget(downgraded.hostCheck)
                == .refused("QR code not shown: the server's link with the code uses plain http, not https."))
        let script = Fixtures.authorization(verificationURI: "javascript:alert(1)", completeURI: nil)
        #expect(
            QRTarget(script.hostCheck)
                == .refused("QR code not shown: the server's link is not a plain http(s) address."))
        // Longer than SafeURI takes (2048 bytes): refused before any encoding is tried.
        let long = Fixtures.authorization(
            completeURI: "https://auth.example.com/device?user_code=" + String(repeating: "A", count: 2048))
        guard case .failure(let refusal) = QRTarget(long.hostCheck).matrix(errorCorrection: .medium) else {
            Issue.record("a link longer than SafeURI takes was encoded")
            return
        }
        #expect(refusal.notice == "QR code not shown: the server's link is not a plain http(s) address.")
    }
}
