import Testing

@testable import DeviceLogin

@Suite("HostName: ASCII form, limits and the registrable domain")
struct HostNameTests {
    @Test(
        "The ASCII form: lowercase, Punycode, no trailing dot, ideographic dots read as dots",
        arguments: [
            ("Auth.Example.COM", "auth.example.com", false),
            ("auth.example.com.", "auth.example.com", false),
            ("bücher.example", "xn--bcher-kva.example", true),
            ("BÜCHER.example", "xn--bcher-kva.example", true),
            ("xn--bcher-kva.example", "xn--bcher-kva.example", true),
            ("\u{0430}uth.example.com", "xn--uth-5cd.example.com", true),
            ("bücher\u{3002}example", "xn--bcher-kva.example", true),
            ("a\u{FF0E}b\u{FF61}example", "a.b.example", false),
            ("[::1]", "[::1]", false),
        ])
    func asciiForm(host: String, ascii: String, internationalized: Bool) throws {
        let name = try HostName(host)
        #expect(name.ascii == ascii)
        #expect(name.isInternationalized == internationalized)
    }

    @Test("253 characters is the longest host, 63 the longest label")
    func limits() throws {
        let label63 = String(repeating: "a", count: 63)
        let host253 = [label63, label63, label63, String(repeating: "b", count: 61)].joined(separator: ".")
        #expect(host253.count == 253)
        #expect(try HostName(host253).ascii == host253)
        #expect(throws: HostName.Problem.tooLong(254)) { try HostName(host253 + "b") }
        #expect(throws: HostName.Problem.labelTooLong(64)) { try HostName(label63 + "a.example.com") }
        // A label that is short in Unicode but long in Punycode.
        let wide = String(repeating: "ü", count: 58) + ".example"
        #expect(throws: HostName.Problem.labelTooLong(64)) { try HostName(wide) }
        // Too long to be worth encoding: refused by its length in code points.
        #expect(throws: HostName.Problem.tooLong(10_000)) { try HostName(String(repeating: "ü", count: 10_000)) }
        #expect(throws: HostName.Problem.empty) { try HostName("") }
        #expect(throws: HostName.Problem.empty) { try HostName(".") }
    }

    @Test(
        "The registrable domain: two labels, or three under a country code with a generic second label",
        arguments: [
            ("login.example.com", "example.com"),
            ("example.com", "example.com"),
            ("a.b.c.example.org", "example.org"),
            ("localhost", "localhost"),
            ("login.example.co.uk", "example.co.uk"),
            ("example.co.uk", "example.co.uk"),
            ("www.example.com.au", "example.com.au"),
            ("login.example.ac.jp", "example.ac.jp"),
            ("login.example.de", "example.de"),
            // Not a country code: two labels.
            ("login.example.co.example", "co.example"),
            // A country code with a second label that is not generic: two labels.
            ("login.bbc.uk", "bbc.uk"),
            ("127.0.0.1", "127.0.0.1"),
            ("[2001:db8::1]", "[2001:db8::1]"),
        ])
    func registrableDomain(host: String, domain: String) throws {
        #expect(try HostName(host).registrableDomain == domain)
    }

    @Test("IP addresses are literals, in every form a browser reads")
    func ipLiterals() throws {
        for host in ["127.0.0.1", "[::1]", "2130706433", "0x7f.1"] {
            #expect(try HostName(host).isIPLiteral, "\(host)")
        }
        #expect(try !HostName("1.example.com").isIPLiteral)
    }

    @Test("An ASCII host reads byte by byte exactly as the Unicode path reads it, refusals included")
    func asciiPathAgreesWithUnicodePath() {
        func reading(_ make: () throws(HostName.Problem) -> HostName) -> String {
            do throws(HostName.Problem) {
                let name = try make()
                return "\(name.ascii) \(name.isInternationalized) \(name.isIPLiteral)"
            } catch {
                return "\(error)"
            }
        }
        var hosts = [
            "", ".", "..", "a.", "a..b", "Auth.Example.COM.", "XN--bcher-kva.example", "xn--", "xn-.a", "127.0.0.1",
            "0x7f.1", "1.", "a.1.", String(repeating: "a", count: 63) + ".b", String(repeating: "a", count: 64),
            String(repeating: "a.", count: 126) + "b", String(repeating: "a.", count: 127),
        ]
        // Random hosts over an alphabet with every case the reading distinguishes (seeded: the same on every run).
        var generator = SplitMix(seed: 19)
        let alphabet = Array("aZz09.-xXnN_".utf8)
        for _ in 0..<3_000 {
            let length = generator.below(80)
            var bytes = (0..<length).map { _ in alphabet[generator.below(alphabet.count)] }
            if generator.below(4) == 0 { bytes.insert(contentsOf: Array("xn--".utf8), at: 0) }
            hosts.append(String(decoding: bytes, as: UTF8.self))
        }
        for host in hosts {
            #expect(
                reading { () throws(HostName.Problem) in try HostName(asciiHost: host) }
                    == reading { () throws(HostName.Problem) in try HostName(unicodeHost: host) }, "\(host)")
        }
    }
}
