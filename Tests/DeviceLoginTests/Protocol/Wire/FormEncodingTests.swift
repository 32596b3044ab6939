import Foundation
import Testing

@testable import DeviceLogin

@Suite("FormEncoding")
struct FormEncodingTests {
    @Test("escapes everything but ALPHA DIGIT * - . _ and turns space into +")
    func escape() {
        #expect(FormEncoding.escape("a Z0*-._~!é/") == "a+Z0*-._%7E%21%C3%A9%2F")
    }

    @Test("every ASCII byte: ALPHA DIGIT * - . _ as they are, space as +, the rest as %XX; the body's length exact")
    func everyASCIIByte() {
        for value in UInt8(0)...0x7F {
            let text = String(UnicodeScalar(value))
            let expected: String
            switch value {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2A, 0x2D, 0x2E, 0x5F: expected = text
            case 0x20: expected = "+"
            default: expected = "%" + (value < 0x10 ? "0" : "") + String(value, radix: 16, uppercase: true)
            }
            #expect(FormEncoding.escape(text) == expected, "byte \(value)")
            let pairs = [("k" + text, text + "ü"), ("n", "")]
            let body = FormEncoding.encode(pairs)
            #expect(FormEncoding.encodedData(pairs) == Data(body.utf8))
            #expect(FormEncoding.decode(body).map(\.0) == pairs.map(\.0))
            #expect(FormEncoding.decode(body).map(\.1) == pairs.map(\.1))
        }
    }

    @Test("decodes pairs, + as space, bad escapes kept as text, empty segments skipped")
    func decode() {
        let pairs = FormEncoding.decode("a=1&&b=two+words&c=%41%zz&d&e=%")
        #expect(pairs.map(\.0) == ["a", "b", "c", "d", "e"])
        #expect(pairs.map(\.1) == ["1", "two words", "A%zz", "", "%"])
    }

    @Test("decodes the edges: & at either end, an empty name, = in a value, escapes cut short, bytes not UTF-8")
    func decodeEdges() {
        #expect(FormEncoding.decode("").isEmpty)
        #expect(FormEncoding.decode("&&&").isEmpty)
        let pairs = FormEncoding.decode("&=v&k=a=b&t=%4&u=%e2%82%AC&w=%ff+x&é=ü&")
        #expect(pairs.map(\.0) == ["", "k", "t", "u", "w", "é"])
        #expect(pairs.map(\.1) == ["v", "a=b", "%4", "€", "\u{FFFD} x", "ü"])
        #expect(FormEncoding.unescape(Substring("x%41%")) == "xA%")
    }

    @Test("round trip of arbitrary text")
    func roundTrip() {
        let text = "x=y&z ü 🙂 %2F +"
        #expect(FormEncoding.unescape(Substring(FormEncoding.escape(text))) == text)
    }
}
