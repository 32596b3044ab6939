import Testing

@testable import DeviceLogin

@Suite("VerificationHostCheck+SafeURI: the one verdict on which addresses may be shown or kept")
struct VerificationHostCheckSafeURITests {
    @Test(
        "verification_uri is shown only as a plain http(s) link the check does not refuse",
        arguments: [
            ("https://auth.example.com/device", true), ("javascript:alert(1)", false),
            ("https://auth.example.com/\u{1B}[31mdevice", false), ("data:text/html,hi", false),
            ("https://" + String(repeating: "a", count: 64) + ".example.com/", false),
        ])
    func plain(uri: String, shown: Bool) {
        let check = VerificationHostCheck(
            verificationURI: uri, verificationURIComplete: nil, issuer: "https://auth.example.com")
        #expect((check.shownVerificationURI?.string == uri) == shown)
    }

    @Test(
        "verification_uri_complete is shown only beside a shown plain one, on its host, and itself a plain link",
        arguments: [
            ("https://auth.example.com/device", "https://auth.example.com/device?c=1", true),
            ("https://auth.example.com/device", "javascript:alert(1)", false),
            ("https://auth.example.com/device", "https://evil.example/device?c=1", false),
            ("https://auth.example.com/device", "http://auth.example.com/device?c=1", false),
            ("javascript:alert(1)", "https://auth.example.com/device?c=1", false),
        ])
    func complete(plain: String, complete: String, shown: Bool) {
        let check = VerificationHostCheck(
            verificationURI: plain, verificationURIComplete: complete, issuer: "https://auth.example.com")
        #expect((check.shownVerificationURIComplete?.string == complete) == shown)
    }
}
