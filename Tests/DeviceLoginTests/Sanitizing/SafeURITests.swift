import DeviceLogin
import Testing

@Suite("SafeURI")
struct SafeURITests {
    @Test(
        "Accepted, with the host and port the user is sent to",
        arguments: [
            ("https://auth.example.com/device", "auth.example.com"),
            ("HTTPS://Auth.Example.COM/device", "auth.example.com"),
            ("http://127.0.0.1:8080/device", "127.0.0.1:8080"),
            ("https://[::1]:8443/device?user_code=AB-CD", "[::1]:8443"),
            ("https://login.microsoftonline.com/common/oauth2/deviceauth", "login.microsoftonline.com"),
            ("https://auth.example.com", "auth.example.com"),
            ("https://auth.example.com?user_code=WDJB-MJHT#x", "auth.example.com"),
            ("https://xn--bcher-kva.example/device", "xn--bcher-kva.example"),
            ("https://my_host.example/a%20b", "my_host.example"),
            ("https://sso.example.com:443/device", "sso.example.com:443"),
        ])
    func accepted(uri: String, hostAndPort: String) throws {
        let safe = try #require(SafeURI(uri))
        #expect(safe.string == uri)
        #expect(safe.hostAndPort == hostAndPort)
    }

    @Test(
        "Refused",
        arguments: [
            "javascript:alert(1)",
            "JavaScript://%0Aalert(1)",
            "file:///etc/passwd",
            "data:text/html;base64,PHNjcmlwdD4=",
            "ftp://files.example.com/",
            "https:/auth.example.com",
            "https:auth.example.com",
            "//auth.example.com/device",
            "/device",
            "",
            "https://",
            "https:///device",
            "https://auth.example.com/a b",
            "https://auth.example.com/\u{1B}[2J",
            "https://auth.example.com/\n",
            "https://auth.example.com/\u{7F}",
            "https://auth.example.com/\u{202E}",
            "https://bücher.example/",
            "https://аuth.example.com/", // Cyrillic а
            "https://auth.example.com\\@evil.example/",
            "https://auth.example.com/<script>",
            "https://auth.example.com/%zz",
            "https://auth.example.com/%4",
            "https://auth.example.com@evil.example/",
            "https://user:pass@auth.example.com/",
            "https://auth..example.com/",
            "https://.auth.example.com/",
            "https://auth.example.com./",
            "https://auth.example.com:/",
            "https://auth.example.com:0/",
            "https://auth.example.com:65536/",
            "https://auth.example.com:8o/",
            "https://2130706433/",
            "https://0x7f.1/",
            "https://0177.0.0.1/",
            "https://127.1/",
            "https://256.0.0.1/",
            "https://[evil]/",
            "https://[::1/",
            "https://[::1]x/",
            "https://auth%2eexample.com/",
            "https://auth.example.com/" + String(repeating: "a", count: 2048),
        ])
    func refused(uri: String) {
        #expect(SafeURI(uri) == nil)
        #expect(Sanitizer.safeURI(uri) == nil)
    }
}
