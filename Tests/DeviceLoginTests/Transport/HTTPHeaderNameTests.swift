import Foundation
import Testing

@testable import DeviceLogin

@Suite("HTTPHeader names: compared in any case, as lowercased() compares them")
struct HTTPHeaderNameTests {
    @Test(
        "ASCII names in any case; a name that is not ASCII compared lowercased, whatever its length in bytes",
        arguments: [
            ("Content-Type", "content-type", true),
            ("CONTENT-TYPE", "Content-Type", true),
            ("Content-Type", "Content-Typf", false),
            ("Content-Type", "Content-Typ", false),
            ("Accept", "Content-Type", false),
            ("", "", true),
            // U+212A KELVIN SIGN lowercases to "k": equal lowercased, though 3 bytes against 1.
            ("\u{212A}ey", "key", true),
            ("X-\u{212A}ey", "x-KEY", true),
            ("X-\u{212A}ey", "y-KEY", false),
            ("Ü-Name", "ü-name", true),
            ("Ü-Name", "ü-namf", false),
        ])
    func sameName(name: String, other: String, same: Bool) {
        #expect(HTTPHeader(name, "v").hasName(other) == same)
        #expect(HTTPHeader(other, "v").hasName(name) == same)
        #expect((name.lowercased() == other.lowercased()) == same)
    }

    @Test("A request's and a response's header lookups use it")
    func lookups() {
        let headers = [HTTPHeader("Accept", "a"), HTTPHeader("Content-Type", "application/json")]
        let request = HTTPRequest(method: .post, url: URL(string: "https://example.com/")!, headers: headers, body: nil)
        #expect(request.header("content-type") == "application/json")
        #expect(request.header("dpop") == nil)
        let response = HTTPResponse(status: 200, headers: headers, body: Data())
        #expect(response.header("ACCEPT") == "a")
    }
}
