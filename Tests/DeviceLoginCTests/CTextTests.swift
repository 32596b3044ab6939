import Testing

@testable import DeviceLoginC

@Suite("CText: C strings in and out")
struct CTextTests {
    @Test("a NUL-terminated UTF-8 string is read; NULL and invalid UTF-8 are usage errors")
    func reading() throws {
        #expect(try "héllo".withCString { try CText.string($0, name: "s") } == "héllo")
        #expect(throws: EmbeddedFailure.usage("s is NULL")) { try CText.string(nil, name: "s") }
        let invalid: [CChar] = [0x61, -1, 0]
        #expect(throws: EmbeddedFailure.usage("s is not UTF-8")) {
            try invalid.withUnsafeBufferPointer { try CText.string($0.baseAddress, name: "s") }
        }
    }

    @Test("a length over the limit is refused before anything is read")
    func bounded() {
        let bytes: [CChar] = [0x7B, 0x7D]
        #expect(throws: EmbeddedFailure.self) {
            try bytes.withUnsafeBufferPointer { try CText.bytes($0.baseAddress, length: 3, limit: 2, name: "b") }
        }
        #expect(throws: EmbeddedFailure.self) {
            try bytes.withUnsafeBufferPointer { try CText.bytes($0.baseAddress, length: -1, limit: 2, name: "b") }
        }
        #expect(
            (try? bytes.withUnsafeBufferPointer { try CText.bytes($0.baseAddress, length: 2, limit: 2, name: "b") })
                == [0x7B, 0x7D])
    }

    @Test("a string handed out reads back and is freed; a message is sanitised")
    func handingOut() throws {
        var out: UnsafeMutablePointer<CChar>? = nil
        try CText.give("token-value", to: &out)
        #expect(out.map { String(cString: $0) } == "token-value")
        CText.free(out)
        var message: UnsafeMutablePointer<CChar>? = nil
        CText.report(EmbeddedFailure.usage("bad \u{1B}[31mred\u{1B}[0m"), to: &message)
        #expect(message.map { String(cString: $0) } == "bad red")
        CText.free(message)
        CText.free(nil)
    }
}
