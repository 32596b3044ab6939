import Testing

@testable import DeviceLogin

@Suite("URIHostSpan: an absolute URI cut around its host")
struct URIHostSpanTests {
    @Test(
        "The host, and what stands before and after it",
        arguments: [
            ("https://auth.example.com/device", "https://", "auth.example.com", "/device"),
            ("https://auth.example.com", "https://", "auth.example.com", ""),
            ("https://auth.example.com:8443/d?x#y", "https://", "auth.example.com", ":8443/d?x#y"),
            ("https://a@b@evil.example/", "https://a@b@", "evil.example", "/"),
            ("http://[::1]:8080/d", "http://", "[::1]", ":8080/d"),
            ("https://bücher.example/gerät", "https://", "bücher.example", "/gerät"),
            ("https://auth.example.com?x=/", "https://", "auth.example.com", "?x=/"),
            ("HTTPS://Auth.Example.com#f", "HTTPS://", "Auth.Example.com", "#f"),
            ("https:///device", "https://", "", "/device"),
        ])
    func spans(uri: String, prefix: String, host: String, suffix: String) throws {
        let span = try #require(URIHostSpan(uri))
        #expect(span.prefix == prefix && span.host == host && span.suffix == suffix)
        #expect(span.prefix + span.host + span.suffix == uri)
    }

    @Test(
        "No scheme://, no span",
        arguments: ["javascript:alert(1)", "auth.example.com/device", "//host/", "", "1http://a/"])
    func notAbsolute(uri: String) {
        #expect(URIHostSpan(uri) == nil)
    }
}
