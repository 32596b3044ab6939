import Testing

@testable import DeviceLogin

@Suite("FormEncoding")
struct FormEncodingTests {
    @Test("escapes everything but ALPHA DIGIT * - . _ and turns space into +")
    func escape() {
        #expect(FormEncoding.escape("a Z0*-._~!é/") == "a+Z0*-._%7E%21%C3%A9%2F")
    }

    @Test("decodes pairs, + as space, bad escapes kept as text, empty segments skipped")
    func decode() {
        let pairs = FormEncoding.decode("a=1&&b=two+words&c=%41%zz&d&e=%")
        #expect(pairs.map(\.0) == ["a", "b", "c", "d", "e"])
        #expect(pairs.map(\.1) == ["1", "two words", "A%zz", "", "%"])
    }

    @Test("round trip of arbitrary text")
    func roundTrip() {
        let text = "x=y&z ü 🙂 %2F +"
        #expect(FormEncoding.unescape(Substring(FormEncoding.escape(text))) == text)
    }
}
